/**
 * submitList against the sandbox answering GET /v1/account in the spec's shape (plan, credits,
 * credits_used_today): jobs sized from the plan, what fits sent, the rest returned with the time it can
 * go, and a top-up account (no plan shown) taught its job size by the service's 429.
 */
import {
  AllowanceExceededError,
  EmailVerificationClient,
  PartialSubmissionError,
  type Runtime,
} from '@evf/client';
import { createClient, fetchTransport, nodeRuntime } from '@evf/client/node';
import type { Sandbox } from '@evf/sandbox';
import { startFastSandbox } from '../../../test/support/sandbox';

const DAY = 24 * 3600_000;
const list = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `valid.${tag}${i}@example.com`);

let sb: Sandbox;
/** The client's clock follows the sandbox's, which the tests move forward. */
let offset = 0;
const runtime: Runtime = { ...nodeRuntime, now: () => Date.now() + offset };
const advance = (ms: number) => {
  offset += ms;
  sb.advanceTime(ms);
};
beforeAll(async () => {
  sb = await startFastSandbox({ timeScale: 1 / 1000 });
});
afterEach(() => sb.faults.resumeNewJobs());
afterAll(() => sb.close());
// A loaded machine scans a list of 50,000 in seconds; no test here is about time.
jest.setTimeout(60_000);

function clientFor(seed: Parameters<Sandbox['addAccount']>[0]) {
  const acct = sb.addAccount({ credits: 1_000_000, ...seed });
  const client = new EmailVerificationClient({
    apiKey: acct.apiKey,
    baseUrl: sb.baseUrl,
    transport: fetchTransport,
    runtime,
  });
  const from = sb.requests.length;
  return { acct, client, calls: () => sb.requests.slice(from).map((r) => `${r.method} ${r.path}`) };
}

test('Starter, sendWhatFits: 10,000 sent, the rest returned for 24 hours later, with no 429 asked for', async () => {
  const { acct, client, calls } = clientFor({ plan: 'starter' });
  const before = runtime.now();
  const out = await client.submitList({ emails: list(10_500, 'a') }, { sendWhatFits: true });
  expect(out.jobs.map((j) => j.total_emails)).toEqual([10_000]);
  expect(out.unsent).toHaveLength(500);
  expect(out.stoppedBy).toBe('allowance');
  expect(Date.parse(out.unsentAfter!) - before).toBeGreaterThanOrEqual(DAY);
  expect(calls()).toEqual(['GET /v1/account', 'POST /v1/verify/bulk']);
  expect(sb.ledger(acct.accountId).charged).toBe(10_000);
});

test('Starter, no option: a 429 part way is PartialSubmissionError with retryAt (the day window) and stoppedBy', async () => {
  const { client } = clientFor({ plan: 'starter' });
  const error = await client.submitList({ emails: list(10_500, 'b') }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PartialSubmissionError);
  const partial = error as PartialSubmissionError;
  expect(partial.stoppedBy).toBe('allowance');
  expect(partial.unsent).toHaveLength(500);
  // The hour and the day both refuse; the request fits when the day's window frees, not the hour's.
  expect(Date.parse(partial.retryAt!) - runtime.now()).toBeGreaterThan(DAY - 60_000);
  expect(partial.message).toMatch(/can be sent after \d{4}-\d\d-\d\dT/);
  expect(partial.message).toMatch(/shared by all the account's keys/);
});

test('top-ups only (no plan shown): a 429 on a 50,000 job teaches jobs of 10,000; the rest waits for the reset', async () => {
  const { acct, client, calls } = clientFor({ plan: null, topUpTotal: 20_000 });
  const out = await client.submitList({ emails: list(25_000, 'c') }, { sendWhatFits: true });
  expect(out.jobs.map((j) => j.total_emails)).toEqual([10_000]);
  expect(out.unsent).toHaveLength(15_000);
  expect(out.stoppedBy).toBe('allowance');
  expect(Date.parse(out.unsentAfter!) - runtime.now()).toBeGreaterThan(DAY - 60_000);
  expect(calls()).toEqual([
    'GET /v1/account',
    'POST /v1/verify/bulk',
    'POST /v1/verify/bulk',
    'POST /v1/verify/bulk',
  ]);
  expect(sb.ledger(acct.accountId).charged).toBe(10_000);
});

test('one job asked for on Starter and larger than 10,000: AllowanceExceededError, nothing sent', async () => {
  const { acct, client, calls } = clientFor({ plan: 'starter' });
  const error = await client
    .submitList({ emails: list(12_000, 'd') }, { maxJobs: 1 })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AllowanceExceededError);
  expect(error).toMatchObject({ perDay: 10_000, asked: 12_000 });
  expect(calls()).toEqual(['GET /v1/account']);
  expect(sb.ledger(acct.accountId).charged).toBe(0);
});

test('one job asked for, top-ups only, refused by a 429 as too large: AllowanceExceededError, not retry-later', async () => {
  const { acct, client } = clientFor({ plan: null, topUpTotal: 20_000 });
  const error = await client
    .submitList({ emails: list(12_000, 'e') }, { maxJobs: 1 })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AllowanceExceededError);
  expect((error as Error).message).toMatch(/at most 10000 addresses per run/);
  expect(sb.ledger(acct.accountId).charged).toBe(0);
});

test('one job asked for, top-ups only, sendWhatFits: the 429 cuts the job to 10,000, it goes, the rest comes back', async () => {
  const { acct, client } = clientFor({ plan: null, topUpTotal: 20_000 });
  const emails = list(50_000, 'cap');
  const out = await client.submitList({ emails }, { maxJobs: 1, sendWhatFits: true });
  expect(out.jobs.map((j) => j.total_emails)).toEqual([10_000]);
  expect(out.unsent).toEqual(emails.slice(10_000));
  expect(out.stoppedBy).toBeUndefined();
  expect(sb.ledger(acct.accountId).charged).toBe(10_000);
  // The next run of the rest meets today's allowance: a stop with a time, nothing charged.
  const next = await client.submitList({ emails: out.unsent }, { maxJobs: 1, sendWhatFits: true });
  expect(next).toMatchObject({ jobs: [], stoppedBy: 'allowance' });
  expect(Date.parse(next.unsentAfter!)).toBeGreaterThan(Date.now());
  expect(next.unsent).toEqual(out.unsent);
  expect(sb.ledger(acct.accountId).charged).toBe(10_000);
});

test('a 503 "new jobs paused" after the first job: a stop with the Retry-After time, nothing charged twice', async () => {
  const { acct } = clientFor({ plan: 'pro' });
  let posts = 0;
  const pausing = new EmailVerificationClient({
    apiKey: acct.apiKey,
    baseUrl: sb.baseUrl,
    runtime,
    transport: async (req) => {
      const res = await fetchTransport(req);
      if (req.method === 'POST' && ++posts === 1) sb.faults.pauseNewJobs({ retryAfterSeconds: 3600 * 1000 });
      return res;
    },
  });
  try {
    const out = await pausing.submitList({ emails: list(60_000, 'f') }, { sendWhatFits: true });
    expect(out.jobs.map((j) => j.total_emails)).toEqual([50_000]);
    expect(out.unsent).toHaveLength(10_000);
    expect(out.stoppedBy).toBe('paused');
    // Pro has no daily limit: nothing "left today" to report (it once read 0).
    expect(out).not.toHaveProperty('leftToday');
    expect(Date.parse(out.unsentAfter!) - runtime.now()).toBeGreaterThan(3000_000);
    const error = await pausing.submitList({ emails: list(60_000, 'g') }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ServiceUnavailableError' });
  } finally {
    sb.faults.resumeNewJobs();
  }
  expect(sb.ledger(acct.accountId).charged).toBe(50_000);
});

test('a list within the smallest allowance does not read the account', async () => {
  const { client, calls } = clientFor({ plan: 'starter', credits: 100 });
  await client.submitList({ emails: ['valid.one@example.com'] });
  expect(calls()).toEqual(['POST /v1/verify/bulk']);
});

test('planList, withJobFields, submitPlan: fields changed after planning are checked again, the plan posts as planned', async () => {
  const acct = sb.addAccount({ plan: 'pro', credits: 100 });
  const client = createClient({ apiKey: acct.apiKey, baseUrl: sb.baseUrl });
  const plan = await client.planList({
    emails: ['valid.a@example.com', 'VALID.A@example.com', 'bad@'],
    name: 'May',
  });
  expect(plan.chunks).toEqual([['valid.a@example.com']]);
  await expect(
    client.withJobFields(plan, { webhook_url: 'http://hooks.example.com/x' }),
  ).rejects.toMatchObject({ field: 'webhook_url' });
  const renamed = await client.withJobFields(plan, { name: 'June' });
  const { jobs } = await client.submitPlan(renamed);
  expect(jobs).toHaveLength(1);
  expect((await client.listJobs()).jobs.map((j) => j.total_emails)).toEqual([1]);
});

test('the days move on: after the reset the unsent go, and the first addresses are not charged again', async () => {
  const { acct, client } = clientFor({ plan: 'starter' });
  const first = await client.submitList({ emails: list(15_000, 'h') }, { sendWhatFits: true });
  advance(Date.parse(first.unsentAfter!) - runtime.now());
  const second = await client.submitList({ emails: first.unsent }, { sendWhatFits: true });
  expect(second.unsent).toEqual([]);
  expect(second.stoppedBy).toBeUndefined();
  expect(sb.ledger(acct.accountId).charged).toBe(15_000);
});

test('Starter, the rest again at once: one refused POST gives the exact time; the note says why and what is left', async () => {
  const { acct, client, calls } = clientFor({ plan: 'starter' });
  const first = await client.submitList({ emails: list(12_000, 'i') }, { sendWhatFits: true });
  expect(first.leftToday).toBe(0);
  expect(first.note).toMatch(
    /^Sent 10000 of 12000 addresses in 1 job; 2000 not sent yet: over the account's API allowance of 10000 addresses a day \(Starter plan\), 0 left today, which all its keys share; they can be sent after \d{4}-/,
  );
  const again = await client.submitList({ emails: first.unsent }, { sendWhatFits: true });
  expect(again.jobs).toEqual([]);
  expect(again.unsent).toEqual(first.unsent);
  // The service's own reset: a day after the first job (to the second), not a day after this run.
  const jobAt = Date.parse(first.jobs[0]!.created_at);
  expect(Math.abs(Date.parse(again.unsentAfter!) - (jobAt + DAY))).toBeLessThanOrEqual(1000);
  expect(calls()).toEqual([
    'GET /v1/account',
    'POST /v1/verify/bulk',
    'GET /v1/account',
    'POST /v1/verify/bulk',
  ]);
  expect(sb.ledger(acct.accountId).charged).toBe(10_000);
});

test('a 429 after a job was accepted, with no room to split under maxJobs: the accepted job stays in the answer', async () => {
  const { acct, client } = clientFor({ plan: null, topUpTotal: 100_000 });
  const error = await client
    .submitList({ emails: list(90_000, 'j') }, { maxJobs: 2 })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PartialSubmissionError);
  expect(error).toMatchObject({ stoppedBy: 'allowance' });
  expect((error as PartialSubmissionError).accepted.map((j) => j.total_emails)).toEqual([50_000]);
  expect((error as PartialSubmissionError).unsent).toHaveLength(40_000);
  expect(sb.ledger(acct.accountId).charged).toBe(50_000);
});

test('Growth, two keys of one account: the second sends what the first left today, and the note says they share it', async () => {
  const acct = sb.addAccount({ plan: 'growth', credits: 1_000_000, keys: [{}, {}] });
  const [first, second] = sb.apiKeys(acct.accountId).map(
    (k) =>
      new EmailVerificationClient({
        apiKey: k.apiKey,
        baseUrl: sb.baseUrl,
        transport: fetchTransport,
        runtime,
      }),
  );
  await first!.submitList({ emails: list(30_000, 'k') }, { sendWhatFits: true });
  const out = await second!.submitList({ emails: list(40_000, 'l') }, { sendWhatFits: true });
  expect(out.jobs.map((j) => j.total_emails)).toEqual([20_000]);
  expect(out.leftToday).toBe(0);
  expect(out.note).toMatch(/50000 addresses a day \(Growth plan\), 0 left today, which all its keys share/);
  expect(sb.ledger(acct.accountId).charged).toBe(50_000);
});
