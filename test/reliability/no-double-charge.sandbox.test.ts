/**
 * No double charge in any failure. Each case is an answer a real deployment can produce after
 * the service already created the job: a gateway's 503 page, a 429/503 arriving after creation, the
 * caller's abort after sending, a 202 cut short. In every one the client sends the POST exactly once,
 * the service holds exactly one job and one charge, and the error says the list may have been charged.
 * Only the service's own "not now" (a JSON 429 with X-RateLimit-Reset, a JSON 503 with Retry-After) is
 * resent (the service never answers so after acting, so such an answer is trusted). Then a property over random fault sequences: credits charged always equal the unique
 * addresses of the jobs the service holds, and no address is in two jobs.
 */
import fc from 'fast-check';
import {
  AbortedError,
  PartialSubmissionError,
  SubmissionUncertainError,
  VerificationUncertainError,
  type EmailVerificationClient,
} from '@evf/client';
import type { FailNextSpec, Sandbox } from '@evf/sandbox';
import { fcParams } from '../support/arbitraries';
import {
  clientFor,
  countBulkPosts,
  eventually,
  freshAccount,
  requestsSince,
  startFastSandbox,
} from '../support/sandbox';
import { installSecretGuard } from '../support/secret-guard';

installSecretGuard();

let sb: Sandbox;
beforeAll(async () => {
  sb = await startFastSandbox({ timeScale: 1 / 1000 });
});
afterAll(() => sb.close());
beforeEach(() => sb.faults.clear());

const THREE = ['valid.a@example.com', 'valid.b@example.com', 'valid.c@example.com'];

async function jobsOf(client: EmailVerificationClient): Promise<number[]> {
  return (await client.listJobs({ limit: 100 })).jobs.map((j) => j.total_emails);
}

/** Submits THREE once through a fresh account with `fault` armed, and returns what happened. */
async function submitWith(
  fault: FailNextSpec,
): Promise<{ error: unknown; posts: number; jobs: number[]; charged: number }> {
  const acct = freshAccount(sb);
  const { client } = clientFor(sb, acct.apiKey);
  sb.faults.failNext({ path: '/v1/verify/bulk', method: 'POST', ...fault });
  const from = sb.requests.length;
  const error = await client.submitList({ emails: THREE, name: 'May leads' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  return {
    error,
    posts: countBulkPosts(requestsSince(sb, from)),
    jobs: await jobsOf(client),
    charged: sb.ledger(acct.accountId).charged,
  };
}

describe('a bulk POST whose answer does not prove a refusal is never resent', () => {
  test.each<[string, FailNextSpec]>([
    ['a gateway 503 page after the job was created (HTML, no Retry-After)', { status: 503, when: 'after' }],
    ['a 429 arriving after the job was created', { status: 429, when: 'after' }],
    [
      'a gateway 503 page before the service saw it (the client cannot know that)',
      { status: 503, from: 'gateway' },
    ],
    ['a 502 from a gateway after creation', { status: 502, when: 'after' }],
    ['a 202 cut off mid-body', { drop: 'mid-body' }],
    ['the connection dropped after the job was created', { drop: 'before-response', when: 'after' }],
  ])('%s: one POST, one job, one charge, and the error says it may be charged', async (_name, fault) => {
    const { error, posts, jobs, charged } = await submitWith(fault);
    expect(posts).toBe(1);
    const created = fault.when === 'after' || fault.drop === 'mid-body';
    expect(jobs).toEqual(created ? [3] : []);
    expect(charged).toBe(created ? 3 : 0);
    expect(error).toBeInstanceOf(SubmissionUncertainError);
    const uncertain = error as SubmissionUncertainError;
    expect(uncertain.addressCount).toBe(3);
    expect(uncertain.jobName).toBe('May leads');
    expect(uncertain.message).toMatch(/may have accepted it and charged up to 3 credits/);
    expect(uncertain.message).not.toMatch(/Nothing was charged/i);
  });

  test("the service's own 503 (JSON, Retry-After) before acting is resent: one job, one charge", async () => {
    const { error, posts, jobs, charged } = await submitWith({ status: 503, retryAfterSeconds: 1 });
    expect(error).toBeUndefined();
    expect(posts).toBe(2);
    expect(jobs).toEqual([3]);
    expect(charged).toBe(3);
  });

  test("the service's own 429 (JSON, X-RateLimit-Reset) before acting is resent: one job, one charge", async () => {
    const { error, posts, jobs, charged } = await submitWith({ status: 429, retryAfterSeconds: 1 });
    expect(error).toBeUndefined();
    expect(posts).toBe(2);
    expect(jobs).toEqual([3]);
    expect(charged).toBe(3);
  });

  test("the caller's abort after the POST reached the service: SubmissionUncertainError, not a bare abort; one job", async () => {
    const acct = freshAccount(sb);
    const { client } = clientFor(sb, acct.apiKey);
    // The service makes the job, then its answer is slow; the caller gives up before it arrives.
    sb.faults.slow({ path: '/v1/verify/bulk', delayMs: 2_000, when: 'after' });
    const controller = new AbortController();
    const from = sb.requests.length;
    const pending = client.submitList({ emails: THREE }, { signal: controller.signal }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await eventually(() => sb.ledger(acct.accountId).charged === 3);
    controller.abort();
    const error = await pending;
    expect(error).toBeInstanceOf(SubmissionUncertainError);
    expect((error as SubmissionUncertainError).cause).toBeInstanceOf(AbortedError);
    await eventually(async () => (await jobsOf(client)).length === 1, 10_000);
    expect(await jobsOf(client)).toEqual([3]);
    expect(sb.ledger(acct.accountId).charged).toBe(3);
    expect(countBulkPosts(requestsSince(sb, from))).toBe(1);
  }, 30_000);

  test('an abort before anything was sent is a plain AbortedError and sends nothing', async () => {
    const acct = freshAccount(sb);
    const { client, attempts } = clientFor(sb, acct.apiKey);
    const controller = new AbortController();
    controller.abort();
    await expect(client.submitList({ emails: THREE }, { signal: controller.signal })).rejects.toBeInstanceOf(
      AbortedError,
    );
    expect(attempts.filter((a) => a.startsWith('POST'))).toEqual([]);
  });
});

describe('single verification: one charge whatever the wire does', () => {
  test.each<[string, FailNextSpec]>([
    ['a gateway 503 page after verifying', { status: 503, when: 'after' }],
    ['a 429 after verifying', { status: 429, when: 'after' }],
    ['an answer cut mid-body', { drop: 'mid-body' }],
  ])('%s: sent once, charged once, VerificationUncertainError', async (_name, fault) => {
    const acct = freshAccount(sb);
    const { client } = clientFor(sb, acct.apiKey);
    sb.faults.failNext({ path: '/v1/verify/single', method: 'POST', ...fault });
    const from = sb.requests.length;
    const error = await client.verifySingle({ email: 'valid.single@example.com' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VerificationUncertainError);
    expect((error as Error).message).toMatch(/may have been verified and charged 1 credit/);
    expect(requestsSince(sb, from).filter((l) => l === 'POST /v1/verify/single')).toHaveLength(1);
    expect(sb.ledger(acct.accountId).charged).toBe(1);
  });
});

describe('revoking the key the client itself uses', () => {
  test('the first answer is lost: the resent DELETE is refused with 401, and that is reported as revoked', async () => {
    const acct = freshAccount(sb);
    const keyId = sb.apiKeys(acct.accountId)[0]!.keyId;
    const { client, attempts } = clientFor(sb, acct.apiKey);
    sb.faults.failNext({
      path: `/v1/keys/${keyId}`,
      method: 'DELETE',
      drop: 'before-response',
      when: 'after',
    });
    await expect(client.revokeKey(keyId)).resolves.toEqual({
      key_id: keyId,
      revoked: true,
      confirmedBy: 'own-key-refused',
    });
    expect(attempts.filter((a) => a.startsWith('DELETE'))).toHaveLength(2);
    expect(sb.apiKeys(acct.accountId)[0]!.revoked).toBe(true);
  });
});

// Property: whatever the wire does to each bulk POST of a split list, the service never charges an
// address twice, and what it charged is exactly the unique addresses of the jobs it holds.
const FAULTS: FailNextSpec[] = [
  { status: 503, retryAfterSeconds: 1 },
  { status: 429, retryAfterSeconds: 1 },
  { status: 503, when: 'after' },
  { status: 429, when: 'after' },
  { status: 500 },
  { status: 502, when: 'after' },
  { drop: 'mid-body' },
  { drop: 'before-response' },
  { drop: 'before-response', when: 'after' },
];
const RUNS = 100;

test(`random faults on every bulk POST of a split list (${RUNS} runs): credits charged = unique addresses accepted, none twice`, async () => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 2, max: 30 }),
      fc.integer({ min: 1, max: 7 }),
      fc.array(fc.option(fc.constantFrom(...FAULTS), { nil: undefined }), { minLength: 1, maxLength: 12 }),
      async (size, maxPerJob, schedule) => {
        runs++;
        sb.faults.clear();
        const acct = freshAccount(sb);
        const emails = Array.from({ length: size }, (_, i) => `valid.p${runs}.${i}@example.com`);
        let post = 0;
        const { client } = clientFor(sb, acct.apiKey, {
          onRequest: ({ method, path }) => {
            if (method !== 'POST' || path !== '/v1/verify/bulk') return;
            const fault = schedule[post++];
            if (fault) sb.faults.failNext({ path: '/v1/verify/bulk', method: 'POST', ...fault });
          },
        });
        const error = await client.submitList({ emails }, { maxPerJob }).then(
          () => undefined,
          (e: unknown) => e,
        );
        if (error !== undefined)
          expect([SubmissionUncertainError, PartialSubmissionError].some((c) => error instanceof c)).toBe(
            true,
          );
        await sb.webhooksIdle();
        const held = (await client.listJobs({ limit: 100 })).jobs;
        const addresses = new Map<string, number>();
        for (const job of held) {
          for await (const row of client.results(job.job_id))
            addresses.set(row.email, (addresses.get(row.email) ?? 0) + 1);
        }
        expect([...addresses.values()].every((n) => n === 1)).toBe(true);
        expect(sb.ledger(acct.accountId).charged).toBe(held.reduce((n, j) => n + j.total_emails, 0));
        // What the error says was accepted is what the service holds; nothing it calls unsent is there.
        if (error instanceof PartialSubmissionError) {
          for (const email of error.unsent) expect(addresses.has(email)).toBe(false);
          expect(error.submittedJobIds.every((id) => held.some((j) => j.job_id === id))).toBe(true);
        }
      },
    ),
    fcParams(RUNS, 4),
  );
  expect(runs).toBeGreaterThanOrEqual(RUNS);
}, 300_000);
