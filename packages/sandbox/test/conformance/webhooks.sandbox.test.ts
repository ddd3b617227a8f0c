import { verifyWebhook, WebhookVerificationError } from '@evf/client';
import { assertMatches } from '@evf/contract';
import type { Sandbox } from '@evf/sandbox';
import { client, readAll, start, waitTerminal } from './helpers';
import { startRawReceiver } from '../../../../test/support/webhook-receiver';

const RETRY_WAITS_MS = [2000, 10_000, 60_000, 300_000];

describe('sandbox conformance: job webhooks', () => {
  let sb: Sandbox;
  let call: ReturnType<typeof client>;
  beforeAll(async () => {
    sb = await start({ allowInsecureWebhooks: true, timeScale: 0.001 });
    call = client(sb);
  });
  afterAll(() => sb.close());

  test('one signed message per job at finish, with the spec headers and body; results_url reads the rows', async () => {
    const rx = await startRawReceiver();
    try {
      const emails = [
        'valid1@example.com',
        'unknown1@example.com',
        'catchall1@example.com',
        'VALID1@example.com',
      ];
      const sub = await call('POST', '/v1/verify/bulk', { body: { emails, webhook_url: rx.url } });
      expect(sub.status).toBe(202);
      const job = await waitTerminal(call, sub.body.job_id);
      await sb.webhooksIdle();
      expect(rx.raw).toHaveLength(1);
      const msg = rx.raw[0]!;
      expect(msg.path).toBe('/hook');
      expect(msg.headers['content-type']).toBe('application/json');
      expect(msg.headers['user-agent']).toBe('Service-Webhook/1');
      expect(msg.headers['x-service-event']).toBe('job.completed');
      expect(msg.headers['x-service-job']).toBe(sub.body.job_id);
      expect(msg.headers['x-service-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
      const ts = Number(msg.headers['x-service-timestamp']);
      expect(Math.abs(ts - Date.now() / 1000)).toBeLessThan(5);
      const verified = verifyWebhook({
        rawBody: msg.rawBody,
        headers: msg.headers as Record<string, string>,
        secrets: sb.webhookSecret,
      });
      expect(verified.jobId).toBe(sub.body.job_id);
      const body = JSON.parse(msg.rawBody);
      assertMatches('WebhookBody', body);
      expect(body).toMatchObject({
        event: 'job.completed',
        job_id: job.job_id,
        status: 'completed',
        total_emails: 3,
        processed_emails: 3,
        verdicts: job.verdicts,
        created_at: job.created_at,
        completed_at: job.completed_at,
        results_url: `/v1/jobs/${job.job_id}/results`,
      });
      expect(body.error).toBeUndefined();
      expect(() =>
        verifyWebhook({
          rawBody: msg.rawBody,
          headers: msg.headers as Record<string, string>,
          secrets: 'whsec_wrongsecret123',
        }),
      ).toThrow(WebhookVerificationError);
      const page = await call('GET', body.results_url);
      expect(page.body.results).toHaveLength(3);
      expect(sb.webhookAttempts.filter((a) => a.jobId === job.job_id).map((a) => a.outcome)).toEqual([
        'acknowledged',
      ]);
    } finally {
      await rx.close();
    }
  });

  test('a receiver down for the first four attempts gets the fifth; waits are 2, 10, 60 s (scaled); one acknowledgement', async () => {
    const rx = await startRawReceiver((n) => (n <= 4 ? 503 : 200));
    try {
      const sub = await call('POST', '/v1/verify/bulk', {
        body: { emails: ['valid@example.com'], webhook_url: rx.url },
      });
      await waitTerminal(call, sub.body.job_id);
      await sb.webhooksIdle();
      expect(rx.raw).toHaveLength(5);
      const gaps = rx.raw.slice(1).map((r, i) => r.at - rx.raw[i]!.at);
      RETRY_WAITS_MS.forEach((wait, i) => expect(gaps[i]).toBeGreaterThanOrEqual(wait * 0.001 - 5));
      // Each attempt is signed afresh with its own timestamp and verifies.
      for (const r of rx.raw)
        verifyWebhook({
          rawBody: r.rawBody,
          headers: r.headers as Record<string, string>,
          secrets: sb.webhookSecret,
        });
      expect(new Set(rx.raw.map((r) => r.rawBody)).size).toBe(1);
      const outcomes = sb.webhookAttempts.filter((a) => a.jobId === sub.body.job_id).map((a) => a.outcome);
      expect(outcomes).toEqual(['rejected', 'rejected', 'rejected', 'rejected', 'acknowledged']);
    } finally {
      await rx.close();
    }
  });

  test('after five failed attempts delivery stops; redirects are not followed', async () => {
    const rx = await startRawReceiver(() => 302);
    try {
      const sub = await call('POST', '/v1/verify/bulk', {
        body: { emails: ['valid@example.com'], webhook_url: rx.url },
      });
      await waitTerminal(call, sub.body.job_id);
      await sb.webhooksIdle();
      expect(rx.raw).toHaveLength(5);
      expect(rx.raw.every((r) => r.path === '/hook')).toBe(true);
    } finally {
      await rx.close();
    }
  });

  test('no 2xx within 10 s counts as a failure (timeout), then the next attempt is made', async () => {
    const rx = await startRawReceiver((n) => (n === 1 ? 'hang' : 200));
    try {
      const sub = await call('POST', '/v1/verify/bulk', {
        body: { emails: ['valid@example.com'], webhook_url: rx.url },
      });
      await waitTerminal(call, sub.body.job_id);
      await sb.webhooksIdle();
      expect(sb.webhookAttempts.filter((a) => a.jobId === sub.body.job_id).map((a) => a.outcome)).toEqual([
        'timeout',
        'acknowledged',
      ]);
    } finally {
      await rx.close();
    }
  });

  test('injected webhook failures: the sandbox fails N attempts without sending', async () => {
    const rx = await startRawReceiver();
    try {
      sb.faults.webhookFailures(4);
      const sub = await call('POST', '/v1/verify/bulk', {
        body: { emails: ['valid@example.com'], webhook_url: rx.url },
      });
      await waitTerminal(call, sub.body.job_id);
      await sb.webhooksIdle();
      expect(rx.raw).toHaveLength(1);
      expect(sb.webhookAttempts.filter((a) => a.jobId === sub.body.job_id).map((a) => a.outcome)).toEqual([
        'injected_failure',
        'injected_failure',
        'injected_failure',
        'injected_failure',
        'acknowledged',
      ]);
    } finally {
      await rx.close();
    }
  });

  test('a failed job sends job.failed with error; rows already stored stay readable; unanswered addresses are refunded', async () => {
    const rx = await startRawReceiver();
    try {
      sb.faults.failJob(undefined, { afterRows: 3, error: 'Cluster lost' });
      const before = sb.ledger();
      const emails = Array.from({ length: 10 }, (_, i) => `valid${i}@example.com`);
      const sub = await call('POST', '/v1/verify/bulk', { body: { emails, webhook_url: rx.url } });
      const job = await waitTerminal(call, sub.body.job_id);
      expect(job).toMatchObject({ status: 'failed', terminal: true, processed: 3, error: 'Cluster lost' });
      const rows = await readAll(call, sub.body.job_id);
      expect(rows.map((r) => r.email)).toEqual(emails.slice(0, 3));
      await sb.webhooksIdle();
      const body = JSON.parse(rx.raw[0]!.rawBody);
      assertMatches('WebhookBody', body);
      expect(body).toMatchObject({
        event: 'job.failed',
        status: 'failed',
        processed_emails: 3,
        total_emails: 10,
        error: 'Cluster lost',
      });
      expect(rx.raw[0]!.headers['x-service-event']).toBe('job.failed');
      const after = sb.ledger();
      expect(after.charged - before.charged).toBe(10);
      expect(after.refunded - before.refunded).toBe(7);
    } finally {
      await rx.close();
    }
  });

  test('rotating the signing secret takes effect at once for the next delivery', async () => {
    const rx = await startRawReceiver();
    const sb2 = await start({ allowInsecureWebhooks: true, timeScale: 0.001 });
    try {
      const c = client(sb2);
      const old = sb2.webhookSecret;
      const fresh = sb2.rotateWebhookSecret();
      expect(fresh).not.toBe(old);
      const sub = await c('POST', '/v1/verify/bulk', {
        body: { emails: ['valid@example.com'], webhook_url: rx.url },
      });
      await waitTerminal(c, sub.body.job_id);
      await sb2.webhooksIdle();
      const msg = rx.raw[0]!;
      expect(() =>
        verifyWebhook({ rawBody: msg.rawBody, headers: msg.headers as Record<string, string>, secrets: old }),
      ).toThrow();
      verifyWebhook({ rawBody: msg.rawBody, headers: msg.headers as Record<string, string>, secrets: fresh });
    } finally {
      await sb2.close();
      await rx.close();
    }
  });

  test('webhook_url is re-checked before every delivery: a host resolving to a private address then is refused, nothing is sent', async () => {
    // The first look-up is the check at submission; every later one is a delivery's re-check. Flipping
    // by call count, not after the 202 arrives, because at this time scale the job can finish and
    // its first delivery start before the response reaches the test.
    let lookups = 0;
    const sb2 = await start({
      timeScale: 0.001,
      resolver: async () => (++lookups === 1 ? ['93.184.216.34'] : ['10.0.0.5']),
    });
    try {
      const c = client(sb2);
      const sub = await c('POST', '/v1/verify/bulk', {
        body: { emails: ['valid@example.com'], webhook_url: 'https://hooks.example.com/done' },
      });
      expect(sub.status).toBe(202);
      await waitTerminal(c, sub.body.job_id);
      await sb2.webhooksIdle();
      const attempts = sb2.webhookAttempts.filter((a) => a.jobId === sub.body.job_id);
      expect(attempts).toHaveLength(5);
      expect(lookups).toBe(1 + 5);
      expect(attempts.every((a) => a.outcome === 'refused_url' && a.detail === 'resolves_public')).toBe(true);
    } finally {
      await sb2.close();
    }
  });

  test('without allowInsecureWebhooks a loopback http receiver is refused at submission', async () => {
    const sb2 = await start();
    try {
      const r = await client(sb2)('POST', '/v1/verify/bulk', {
        body: { emails: ['valid@example.com'], webhook_url: 'http://127.0.0.1:9999/hook' },
      });
      expect(r.status).toBe(422);
      expect(r.body.error.field).toBe('webhook_url');
      expect(sb2.ledger().charged).toBe(0);
    } finally {
      await sb2.close();
    }
  });

  test('a job without webhook_url sends nothing', async () => {
    const before = sb.webhookAttempts.length;
    const sub = await call('POST', '/v1/verify/bulk', { body: { emails: ['valid@example.com'] } });
    await waitTerminal(call, sub.body.job_id);
    // An attempt is logged only once it has finished: wait for every delivery under way, so one that
    // was wrongly started would be counted rather than missed.
    await sb.webhooksIdle();
    expect(sb.webhookAttempts.length).toBe(before);
  });
});
