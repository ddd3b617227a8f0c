import { parseRetryHeader } from '@evf/client';
import type { Sandbox } from '@evf/sandbox';
import { client, readAll, start, waitTerminal } from './helpers';

async function admin(sb: Sandbox, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sb.origin}/__sandbox${path}`, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe('sandbox conformance: fault injection (options, handle and admin HTTP API)', () => {
  let sb: Sandbox;
  let call: ReturnType<typeof client>;
  beforeEach(async () => {
    sb = await start();
    call = client(sb);
  });
  afterEach(() => sb.close());

  test('failNext with a 5xx answers the next N matching requests, then the real answer comes back', async () => {
    sb.faults.failNext({ path: '/v1/account/credits', status: 502, count: 2 });
    expect((await call('GET', '/v1/account/credits')).status).toBe(502);
    expect((await call('GET', '/v1/account')).status).toBe(200);
    const second = await call('GET', '/v1/account/credits');
    expect(second.status).toBe(502);
    expect(second.body.error.code).toBe('injected_fault');
    expect((await call('GET', '/v1/account/credits')).status).toBe(200);
  });

  test('a connection dropped before the response: fetch fails, and a bulk POST dropped before work charges nothing', async () => {
    sb.faults.failNext({ path: '/v1/verify/bulk', drop: 'before-response' });
    await expect(
      call('POST', '/v1/verify/bulk', { body: { emails: ['valid@example.com'] } }),
    ).rejects.toThrow();
    expect(sb.ledger().charged).toBe(0);
    expect((await call('GET', '/v1/jobs')).body.jobs).toHaveLength(0);
  });

  test("when: 'after' does the work, then fails the answer as a gateway would: the job exists and is charged though the client saw a 503 page", async () => {
    sb.faults.failNext({ path: '/v1/verify/bulk', status: 503, when: 'after' });
    // A gateway's page is not the service's JSON, so it is read here over plain fetch, not `call`.
    const r = await fetch(`${sb.baseUrl}/v1/verify/bulk`, {
      method: 'POST',
      headers: { 'X-API-Key': sb.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ emails: ['valid1@example.com', 'valid2@example.com'] }),
    });
    expect(r.status).toBe(503);
    expect(r.headers.get('content-type')).toBe('text/html');
    expect(r.headers.get('retry-after')).toBeNull();
    expect(await r.text()).toMatch(/<title>503 Service Unavailable<\/title>/);
    expect(sb.ledger().charged).toBe(2);
    expect((await call('GET', '/v1/jobs')).body.jobs).toHaveLength(1);
  });

  test("from: 'service' after the work answers as the service does (JSON and the wait header), for clients that must tell the two apart", async () => {
    sb.faults.failNext({
      path: '/v1/jobs',
      method: 'GET',
      status: 503,
      when: 'after',
      from: 'service',
      retryAfterSeconds: 5,
    });
    const r = await call('GET', '/v1/jobs');
    expect(r.status).toBe(503);
    expect(r.headers['retry-after']).toBeDefined();
    expect(r.body.error.code).toBe('injected_fault');
  });

  test('a connection dropped mid-body during pagination: the next read of the same page returns it whole', async () => {
    const emails = Array.from({ length: 300 }, (_, i) => `row${i}@example.com`);
    const id = (await call('POST', '/v1/verify/bulk', { body: { emails } })).body.job_id;
    await waitTerminal(call, id);
    sb.faults.failNext({ path: /\/results$/, drop: 'mid-body' });
    await expect(call('GET', `/v1/jobs/${id}/results`, { query: { per_page: 100 } })).rejects.toThrow();
    const rows = await readAll(call, id, 100);
    expect(rows.map((r) => r.email)).toEqual(emails);
  });

  test('a pause after the first job, lifting at its Retry-After: job 1 in, job 2 refused with a fixed time, in after it', async () => {
    sb.faults.pauseNewJobs({ retryAfterSeconds: 3600, afterJobs: 1, liftsAtRetryAfter: true });
    const submit = (tag: string) =>
      call('POST', '/v1/verify/bulk', { body: { emails: [`${tag}.valid@example.com`] } });
    expect((await submit('first')).status).toBe(202);
    const refused = await submit('second');
    expect(refused.status).toBe(503);
    const again = await submit('third');
    expect(again.status).toBe(503);
    // A lifting pause names one time: the second refusal's wait is no longer than the first's.
    expect(Number(again.headers['retry-after'])).toBeLessThanOrEqual(Number(refused.headers['retry-after']));
    expect(sb.ledger().charged).toBe(1);
    sb.advanceTime(3600_000);
    expect((await submit('fourth')).status).toBe(202);
    expect(sb.faults.newJobsPaused).toBeNull();
  });

  test('pausing new jobs: 503 with Retry-After on bulk submission only, nothing charged; resuming lets jobs in', async () => {
    sb.faults.pauseNewJobs({ retryAfterSeconds: 120 });
    const r = await call('POST', '/v1/verify/bulk', { body: { emails: ['valid@example.com'] } });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe('new_jobs_paused');
    // 120 s at timeScale 0.01 is 1.2 s, rounded up to whole seconds.
    expect(r.headers['retry-after']).toBe('2');
    expect(sb.ledger().charged).toBe(0);
    expect((await call('POST', '/v1/verify/single', { body: { email: 'valid@example.com' } })).status).toBe(
      200,
    );
    sb.faults.resumeNewJobs();
    expect((await call('POST', '/v1/verify/bulk', { body: { emails: ['valid@example.com'] } })).status).toBe(
      202,
    );
  });

  test.each([
    ['epoch-seconds', 'delta-seconds'],
    ['delta-seconds', 'http-date'],
    ['http-date', 'delta-seconds'],
  ] as const)(
    'injected 429 carries X-RateLimit-Reset as %s; 503 Retry-After as %s; both parse',
    async (resetFormat, retryFormat) => {
      const sb2 = await start({
        timeScale: 1,
        rateLimitResetFormat: resetFormat,
        retryAfterFormat: retryFormat,
      });
      try {
        const c = client(sb2);
        // The sandbox reads its clock between `sent` and `received`, and says "30 s from then" rounded up
        // to a whole second: measured from `sent` that is at least 30 s, from `received` at most 31 s,
        // however long the round trip took.
        sb2.faults.failNext({ path: '/v1/verify/bulk', status: 429, retryAfterSeconds: 30 });
        let sent = Date.now();
        const r = await c('POST', '/v1/verify/bulk', { body: { emails: ['valid@example.com'] } });
        let received = Date.now();
        expect(r.status).toBe(429);
        expect(parseRetryHeader(r.headers['x-ratelimit-reset'], sent)).toBeGreaterThanOrEqual(30_000);
        expect(parseRetryHeader(r.headers['x-ratelimit-reset'], received)).toBeLessThanOrEqual(31_000);
        sb2.faults.failNext({ path: '/v1/verify/bulk', status: 503, retryAfterSeconds: 30 });
        sent = Date.now();
        const r2 = await c('POST', '/v1/verify/bulk', { body: { emails: ['valid@example.com'] } });
        received = Date.now();
        expect(r2.status).toBe(503);
        expect(parseRetryHeader(r2.headers['retry-after'], sent)).toBeGreaterThanOrEqual(30_000);
        expect(parseRetryHeader(r2.headers['retry-after'], received)).toBeLessThanOrEqual(31_000);
        expect(sb2.ledger().charged).toBe(0);
      } finally {
        await sb2.close();
      }
    },
  );

  test('failJob by id fails a running job midway; error set; stored rows readable', async () => {
    // About 7 s of work at this rate, so the job is still running when the fault is set even on a
    // loaded machine; it fails after 150 rows, half a second in.
    const sb2 = await start({ timeScale: 1, rowsPerSecond: 300, queueDelayMs: 0 });
    try {
      const c = client(sb2);
      const emails = Array.from({ length: 2000 }, (_, i) => `valid${i}@example.com`);
      const id = (await c('POST', '/v1/verify/bulk', { body: { emails } })).body.job_id;
      await new Promise((r) => setTimeout(r, 100));
      sb2.faults.failJob(id, { afterRows: 150, error: 'Stopped for the test' });
      const job = await waitTerminal(c, id);
      expect(job.status).toBe('failed');
      expect(job.error).toBe('Stopped for the test');
      expect(job.processed).toBeGreaterThanOrEqual(150);
      expect(job.processed).toBeLessThan(2000);
      const rows = await readAll(c, id);
      expect(rows).toHaveLength(job.processed);
      expect(() => sb2.faults.failJob(id)).toThrow(/already finished/);
    } finally {
      await sb2.close();
    }
  });

  test('faults armed from options at start', async () => {
    const sb2 = await start({
      faults: { failNext: [{ path: '/v1/jobs', status: 500 }], pauseNewJobs: true },
    });
    try {
      const c = client(sb2);
      expect((await c('GET', '/v1/jobs')).status).toBe(500);
      expect((await c('GET', '/v1/jobs')).status).toBe(200);
      expect((await c('POST', '/v1/verify/bulk', { body: { emails: ['valid@example.com'] } })).status).toBe(
        503,
      );
    } finally {
      await sb2.close();
    }
  });

  test('the admin HTTP API arms the same faults and reports state, requests, ledger and webhook attempts (no secrets)', async () => {
    expect(
      (await admin(sb, 'POST', '/faults/fail-next', { path: '/v1/account', status: 503, count: 1 })).status,
    ).toBe(204);
    expect((await call('GET', '/v1/account')).status).toBe(503);
    expect((await call('GET', '/v1/account')).status).toBe(200);
    expect(
      (await admin(sb, 'POST', '/faults/fail-next', { path_regex: '^/v1/jobs$', drop: 'before-response' }))
        .status,
    ).toBe(204);
    await expect(call('GET', '/v1/jobs')).rejects.toThrow();
    expect((await admin(sb, 'POST', '/faults/pause-new-jobs', { retry_after_seconds: 5 })).status).toBe(204);
    expect((await call('POST', '/v1/verify/bulk', { body: { emails: ['valid@example.com'] } })).status).toBe(
      503,
    );
    expect((await admin(sb, 'DELETE', '/faults/pause-new-jobs')).status).toBe(204);
    expect((await admin(sb, 'POST', '/faults/fail-job', { after_rows: 1, error: 'admin' })).status).toBe(204);
    const id = (
      await call('POST', '/v1/verify/bulk', {
        body: { emails: ['valid1@example.com', 'valid2@example.com'] },
      })
    ).body.job_id;
    expect((await waitTerminal(call, id)).error).toBe('admin');
    expect(
      (await admin(sb, 'POST', '/faults/slow', { path: '/v1/jobs', delay_ms: 10, count: 1 })).status,
    ).toBe(204);
    expect((await admin(sb, 'POST', '/faults/webhook-failures', { count: 2 })).status).toBe(204);
    expect((await admin(sb, 'POST', '/faults/latency', { ms: 0 })).status).toBe(204);
    const state = await admin(sb, 'GET', '/state');
    expect(state.status).toBe(200);
    expect(state.body.faults.webhook_failures).toBe(2);
    expect(state.body.jobs).toHaveLength(1);
    const ledger = await admin(sb, 'GET', `/ledger/${sb.accountId}`);
    expect(ledger.body).toEqual(sb.ledger());
    const requests = await admin(sb, 'GET', '/requests');
    expect(requests.body.requests.length).toBeGreaterThan(3);
    expect((await admin(sb, 'GET', '/webhooks')).body.attempts).toEqual([]);
    expect((await admin(sb, 'POST', '/clock/advance', { ms: 1000 })).status).toBe(204);
    expect((await admin(sb, 'DELETE', '/faults')).status).toBe(204);
    expect((await admin(sb, 'GET', '/state')).body.faults.webhook_failures).toBe(0);
    expect((await admin(sb, 'POST', '/faults/fail-next', { status: 42 })).status).toBe(422);
    expect((await admin(sb, 'POST', '/faults/nope', {})).status).toBe(404);
    for (const path of ['/state', '/requests', '/webhooks', `/ledger/${sb.accountId}`]) {
      const text = JSON.stringify((await admin(sb, 'GET', path)).body);
      expect(text).not.toContain(sb.apiKey);
      expect(text).not.toContain(sb.webhookSecret);
    }
  });
});
