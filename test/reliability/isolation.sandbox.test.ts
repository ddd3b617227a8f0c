/**
 * Sandbox isolation through the real client: missing, wrong and revoked keys get 401 on every
 * endpoint and charge nothing; one account cannot see, read or revoke another's things; and a
 * webhook URL is checked again before every delivery, so a host that turns private after submission
 * (DNS rebinding) is never connected to. The injected resolver keeps every address off the network:
 * no delivery in this file goes anywhere but loopback.
 */
import {
  AuthenticationError,
  EmailVerificationClient,
  InputError,
  NotFoundError,
  type EvfError,
} from '@evf/client';
import { acceleratedRuntime, fetchTransport } from '@evf/client/node';
import type { Sandbox } from '@evf/sandbox';
import { clientFor, eventually, SPEED, startFastSandbox } from '../support/sandbox';
import { assertNoSecrets, installSecretGuard } from '../support/secret-guard';
import { startWebhookReceiver } from '../support/webhook-receiver';

installSecretGuard();

type Call = [name: string, run: (c: EmailVerificationClient) => Promise<unknown>];
const everyEndpoint = (jobId: string, keyId: string): Call[] => [
  ['POST /v1/verify/single', (c) => c.verifySingle({ email: 'valid.auth@example.com' })],
  ['POST /v1/verify/bulk', (c) => c.submitBulk({ emails: ['valid.auth@example.com'] })],
  ['GET /v1/jobs', (c) => c.listJobs()],
  ['GET /v1/jobs/{id}', (c) => c.getJob(jobId)],
  ['GET /v1/jobs/{id}/results', (c) => c.getResultsPage(jobId)],
  ['GET /v1/account/credits', (c) => c.getCredits()],
  ['GET /v1/account', (c) => c.getAccount()],
  ['GET /v1/subscription', (c) => c.getSubscription()],
  ['DELETE /v1/keys/{id}', (c) => c.revokeKey(keyId)],
];

describe('keys', () => {
  let sb: Sandbox;
  let jobId: string;
  beforeAll(async () => {
    sb = await startFastSandbox({
      accounts: [
        {
          id: 'acct_keys',
          plan: 'pro',
          credits: 5000,
          keys: [{ id: 'key_main' }, { id: 'key_spare' }, { id: 'key_doomed' }],
        },
      ],
    });
    jobId = (await clientFor(sb).client.submitBulk({ emails: ['valid.seed@example.com'] })).job_id;
  });
  afterAll(() => sb.close());

  const keyOf = (id: string) => sb.apiKeys('acct_keys').find((k) => k.keyId === id)!.apiKey;

  async function expect401Everywhere(client: EmailVerificationClient) {
    const before = sb.ledger('acct_keys');
    for (const [name, run] of everyEndpoint(jobId, 'key_spare')) {
      const error = await run(client).then(
        () => new Error(`${name} was allowed`),
        (e: unknown) => e,
      );
      expect([name, error]).toEqual([name, expect.any(AuthenticationError)]);
      expect((error as AuthenticationError).status).toBe(401);
      assertNoSecrets(error, `${name} error`);
    }
    expect(sb.ledger('acct_keys')).toEqual(before);
    expect(sb.apiKeys('acct_keys').find((k) => k.keyId === 'key_spare')!.revoked).toBe(false);
  }

  test('no key at all (a transport that adds none): 401 on every endpoint, nothing charged', async () => {
    const client = new EmailVerificationClient({
      authenticatedByTransport: true,
      baseUrl: sb.baseUrl,
      transport: fetchTransport,
      runtime: acceleratedRuntime(SPEED),
    });
    await expect401Everywhere(client);
  });

  test('a wrong key: 401 on every endpoint, nothing charged', async () => {
    await expect401Everywhere(clientFor(sb, 'evf_0123456789abcdef0123456789abcdef01234567').client);
  });

  test('a revoked key: 401 on every endpoint at once; the account’s other keys keep working', async () => {
    const { client: main } = clientFor(sb, keyOf('key_main'));
    const { client: doomed } = clientFor(sb, keyOf('key_doomed'));
    expect((await doomed.getCredits()).credits).toBeGreaterThan(0);
    await main.revokeKey('key_doomed');
    await expect401Everywhere(doomed);
    expect((await main.getJob(jobId)).job_id).toBe(jobId);
    expect((await clientFor(sb, keyOf('key_spare')).client.listJobs()).jobs.map((j) => j.job_id)).toContain(
      jobId,
    );
  });
});

describe('accounts', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startFastSandbox({
      accounts: [
        { id: 'acct_a', plan: 'pro', credits: 1000, keys: [{ id: 'key_a' }] },
        { id: 'acct_b', plan: 'pro', credits: 1000, keys: [{ id: 'key_b' }] },
      ],
    });
  });
  afterAll(() => sb.close());

  test("one account can't see, read or revoke another's jobs and keys (404, as if they did not exist)", async () => {
    const a = clientFor(sb, sb.credentials('acct_a').apiKey).client;
    const b = clientFor(sb, sb.credentials('acct_b').apiKey).client;
    const jobId = (
      await a.submitList({ emails: ['valid.private1@example.com', 'valid.private2@example.com'] })
    ).jobs[0]!.job_id;
    await a.waitForJob(jobId);
    const ledgerB = sb.ledger('acct_b');

    const failures: Array<[string, unknown]> = [];
    for (const [name, run] of [
      ['getJob', () => b.getJob(jobId)],
      ['getResultsPage', () => b.getResultsPage(jobId, { per_page: 1000 })],
      [
        'results()',
        async () => {
          for await (const row of b.results(jobId)) void row;
        },
      ],
      ['waitForJob', () => b.waitForJob(jobId)],
      ["revokeKey (A's key id)", () => b.revokeKey('key_a')],
    ] as const) {
      failures.push([
        name,
        await (run as () => Promise<unknown>)().then(
          () => 'allowed',
          (e: unknown) => e,
        ),
      ]);
    }
    for (const [name, error] of failures) {
      expect([name, error]).toEqual([name, expect.any(NotFoundError)]);
      expect((error as NotFoundError).status).toBe(404);
      // Nothing about A's job leaks through the error.
      expect(JSON.stringify((error as NotFoundError).body)).not.toContain('valid.private');
    }
    expect((await b.listJobs({ limit: 100 })).jobs.map((j) => j.job_id)).not.toContain(jobId);
    const all: string[] = [];
    for await (const j of b.jobs()) all.push(j.job_id);
    expect(all).not.toContain(jobId);
    // A's key still works (B's revoke did nothing) and B paid nothing for looking.
    expect((await a.getJob(jobId)).status).toBe('completed');
    expect(sb.ledger('acct_b')).toEqual(ledgerB);
  });
});

describe('webhook URLs are checked again before every delivery', () => {
  // Per host: the addresses it resolves to at submission, then at every later lookup (delivery time).
  const plan = new Map<string, { atSubmission: string[]; later: string[]; calls: number }>();
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startFastSandbox({
      webhookRetryWaitsMs: [50, 50, 50, 50],
      resolver: async (host) => {
        const p = plan.get(host);
        if (!p) throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
        return p.calls++ === 0 ? p.atSubmission : p.later;
      },
    });
  });
  afterAll(() => sb.close());

  const PUBLIC = '93.184.216.34';
  test.each([
    ['10.x', ['10.0.0.7']],
    ['172.16.x', ['172.16.9.9']],
    ['192.168.x', ['192.168.0.1']],
    ['loopback', ['127.0.0.1']],
    ['cloud metadata 169.254.169.254', ['169.254.169.254']],
    ['IPv6 loopback', ['::1']],
    ['IPv6 unique local', ['fd00::1']],
    ['IPv4-mapped private', ['::ffff:10.0.0.1']],
    ['one private among public ones', [PUBLIC, '10.0.0.1']],
    ['no longer resolving', []],
  ])(
    'a host public at submission that resolves to %s at delivery is refused at all five attempts, never connected to',
    async (_name, later) => {
      const host = `rebind-${plan.size}.hooks-example.com`;
      plan.set(host, { atSubmission: [PUBLIC], later, calls: 0 });
      const { client } = clientFor(sb);
      const jobId = (
        await client.submitBulk({
          emails: ['valid.rebind@example.com'],
          webhook_url: `https://${host}/evf/done`,
        })
      ).job_id;
      await eventually(() => sb.webhookAttempts.filter((a) => a.jobId === jobId).length === 5);
      const attempts = sb.webhookAttempts.filter((a) => a.jobId === jobId);
      expect(attempts.map((a) => a.outcome)).toEqual(Array(5).fill('refused_url'));
      expect(attempts.every((a) => a.status === undefined)).toBe(true);
      expect(plan.get(host)!.calls).toBe(6); // once at submission, once before each of the five attempts
    },
  );

  test('control: the same recheck lets a receiver through while it stays where it was, and refuses it once it moves', async () => {
    const receiver = await startWebhookReceiver([sb.webhookSecret]);
    try {
      const url = receiver.url.replace('127.0.0.1', 'localhost');
      plan.set('localhost', { atSubmission: ['127.0.0.1'], later: ['127.0.0.1'], calls: 0 });
      const { client } = clientFor(sb);
      const kept = (await client.submitBulk({ emails: ['valid.kept@example.com'], webhook_url: url })).job_id;
      await eventually(() => receiver.events.some((e) => e.jobId === kept));
      plan.get('localhost')!.later = ['10.0.0.9'];
      const moved = (await client.submitBulk({ emails: ['valid.moved@example.com'], webhook_url: url }))
        .job_id;
      await eventually(() => sb.webhookAttempts.filter((a) => a.jobId === moved).length === 5);
      expect(sb.webhookAttempts.filter((a) => a.jobId === moved).map((a) => a.outcome)).toEqual(
        Array(5).fill('refused_url'),
      );
      expect(receiver.events.map((e) => e.jobId)).toEqual([kept]);
    } finally {
      await receiver.close();
    }
  });

  test('the client can do the same check before submitting (resolveHost), refusing with nothing sent', async () => {
    const from = sb.requests.length;
    const client = new EmailVerificationClient({
      apiKey: sb.apiKey,
      baseUrl: sb.baseUrl,
      transport: fetchTransport,
      runtime: { ...acceleratedRuntime(SPEED), lookup: async () => ['10.1.2.3'] },
      webhookUrl: { resolveHost: true, allowLoopbackHttp: false },
    });
    const error = (await client
      .submitBulk({ emails: ['valid.x@example.com'], webhook_url: 'https://internal.hooks-example.com/x' })
      .catch((e: unknown) => e)) as EvfError;
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).field).toBe('webhook_url');
    expect(sb.requests.length).toBe(from);
  });
});
