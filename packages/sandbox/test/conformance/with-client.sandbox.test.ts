import {
  AuthenticationError,
  InsufficientCreditsError,
  NotFoundError,
  ServiceUnavailableError,
  VerificationTimeoutError,
  categorize,
  verifyWebhook,
} from '@evf/client';
import { acceleratedRuntime, createClient } from '@evf/client/node';
import { assertMatches } from '@evf/contract';
import type { Sandbox } from '@evf/sandbox';
import { start } from './helpers';
import { startRawReceiver } from '../../../../test/support/webhook-receiver';

/** The same walk through the spec, this time through the typed client, as the connectors use it. */
describe('sandbox conformance through @evf/client', () => {
  let sb: Sandbox;
  const make = (apiKey = sb.apiKey) =>
    createClient({
      apiKey,
      baseUrl: sb.baseUrl,
      runtime: acceleratedRuntime(100),
      webhookUrl: { allowLoopbackHttp: true },
    });
  beforeAll(async () => {
    sb = await start({
      allowInsecureWebhooks: true,
      accounts: [
        { id: 'main', plan: 'pro', credits: 10_000 },
        { id: 'poor', plan: 'pro', credits: 1 },
      ],
    });
  });
  afterAll(() => sb.close());

  test('verifySingle answers match the contract and categorize by details', async () => {
    const client = make();
    for (const [email, category] of [
      ['valid.a@example.com', 'Valid'],
      ['trap.a@example.com', 'Spam Trap'],
      ['temp.a@example.com', 'Disposable'],
      ['info@example.com', 'Role'],
      ['catchall.a@example.com', 'Catch-All'],
      ['full.a@example.com', 'Inbox Full'],
      ['disabled.a@example.com', 'Invalid / Disabled / No Mail Server'],
      ['notverified.a@example.com', 'Unknown / Not Verified (refunded)'],
    ] as const) {
      const r = await client.verifySingle({ email });
      assertMatches('SingleResult', r);
      expect(categorize(r.details).category).toBe(category);
    }
  });

  test('408 from a slow address is a VerificationTimeoutError and the credit comes back', async () => {
    const before = sb.ledger('main').credits;
    await expect(make().verifySingle({ email: 'slow.a@example.com' })).rejects.toBeInstanceOf(
      VerificationTimeoutError,
    );
    expect(sb.ledger('main').credits).toBe(before);
  });

  test('submitList: duplicates and a malformed address are reported and not charged; signed webhook; rows read back once each', async () => {
    const rx = await startRawReceiver();
    try {
      const client = make();
      const before = sb.ledger('main');
      const emails = [
        'valid1@example.com',
        'VALID1@example.com',
        'not an address',
        'unknown1@example.com',
        'catchall1@example.com',
        'valid2@example.com',
      ];
      const list = await client.submitList({ emails, name: 'client walk', webhook_url: rx.url });
      expect(list.jobs).toHaveLength(1);
      expect(list.preflight.malformed.map((m) => m.email)).toEqual(['not an address']);
      expect(list.preflight.duplicates).toHaveLength(1);
      expect(list.creditsUsed).toBe(4);
      const job = await client.waitForJob(list.jobs[0]!.job_id, { intervalMs: 10_000 });
      assertMatches('Job', job);
      expect(job.status).toBe('completed');
      const rows = [];
      for await (const row of client.results(job.job_id, { pageSize: 2 })) rows.push(row);
      expect(rows.map((r) => r.email)).toEqual([
        'valid1@example.com',
        'unknown1@example.com',
        'catchall1@example.com',
        'valid2@example.com',
      ]);
      await sb.webhooksIdle();
      expect(rx.raw).toHaveLength(1);
      const verified = verifyWebhook({
        rawBody: rx.raw[0]!.rawBody,
        headers: rx.raw[0]!.headers as Record<string, string>,
        secrets: sb.credentials('main').webhookSecret,
      });
      expect(verified.body.job_id).toBe(job.job_id);
      const after = sb.ledger('main');
      expect(after.charged - before.charged).toBe(4);
      expect(after.refunded - before.refunded).toBe(1);
      const credits = await client.getCredits();
      assertMatches('CreditBalance', credits);
      expect(credits.credits).toBe(after.credits);
    } finally {
      await rx.close();
    }
  });

  test('listJobs, jobs() iterator, account and subscription', async () => {
    const client = make();
    const list = await client.listJobs({ limit: 100 });
    assertMatches('JobList', list);
    const all = [];
    for await (const j of client.jobs({ pageSize: 1 })) all.push(j.job_id);
    expect(all).toEqual(list.jobs.map((j) => j.job_id));
    assertMatches('Account', await client.getAccount());
    assertMatches('Subscription', await client.getSubscription());
  });

  test('errors map to the client classes: 402, 404, 503 (after retries), 401 after revokeKey', async () => {
    const poorKey = sb.credentials('poor').apiKey;
    await expect(
      make(poorKey).submitBulk({ emails: ['valid1@example.com', 'valid2@example.com'] }),
    ).rejects.toBeInstanceOf(InsufficientCreditsError);
    await expect(make().getJob('job_nope')).rejects.toBeInstanceOf(NotFoundError);
    sb.faults.pauseNewJobs({ retryAfterSeconds: 1 });
    await expect(make().submitBulk({ emails: ['valid1@example.com'] })).rejects.toBeInstanceOf(
      ServiceUnavailableError,
    );
    sb.faults.resumeNewJobs();
    const extra = sb.addAccount({ id: 'extra', plan: 'pro', credits: 5 });
    const extraClient = make(extra.apiKey);
    await extraClient.revokeKey(extra.keyId);
    await expect(extraClient.getCredits()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(make().revokeKey('key_nope')).rejects.toBeInstanceOf(NotFoundError);
  });
});
