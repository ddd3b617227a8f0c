import nock from 'nock';
import {
  AuthenticationError,
  ConnectionError,
  InputError,
  InsufficientCreditsError,
  JobWaitTimeoutError,
  NotFoundError,
  PartialSubmissionError,
  RateLimitError,
  RequestTimeoutError,
  ServerError,
  ServiceUnavailableError,
  SubmissionUncertainError,
  UnprocessableError,
  VerificationTimeoutError,
  VerificationUncertainError,
  EmailVerificationClient,
} from '@evf/client';
import { fetchTransport } from '@evf/client/node';
import { loadFixture } from '@evf/contract/fixtures';
import { useNock } from '../../../test/support/nock';
import { api, BASE, fakeRuntime, KEY, makeClient, replyWithFixture } from './helpers';

const JOB = 'job_7f3c2a9e41b84d05';

useNock();

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('endpoints', () => {
  test('verifySingle posts the address and check_smtp with the key header', async () => {
    const { client } = makeClient();
    replyWithFixture(
      api().post('/v1/verify/single', { email: 'valid.anna@acme-corp.com', check_smtp: false }),
      'verify-single.200',
    );
    const r = await client.verifySingle({ email: ' valid.anna@acme-corp.com ', check_smtp: false });
    expect(r.email).toBe(loadFixture<any>('verify-single.200').body.email);
  });

  test('submitBulk sends every field given, and only those', async () => {
    const { client } = makeClient();
    const body = {
      emails: ['a@acme.com', 'b@acme.com'],
      name: 'Leads',
      webhook_url: 'https://hooks.example.com/x',
      priority: 'high',
      check_smtp: true,
    };
    replyWithFixture(api().post('/v1/verify/bulk', body), 'verify-bulk.202');
    const r = await client.submitBulk(body as never);
    expect(r.job_id).toBe(JOB);
  });

  test('getJob, listJobs, getResultsPage, credits, account, subscription, revokeKey', async () => {
    const { client } = makeClient();
    replyWithFixture(api().get(`/v1/jobs/${JOB}`), 'job.processing.200');
    replyWithFixture(
      api().get('/v1/jobs').query({ status: 'completed', limit: 5, offset: 10 }),
      'jobs-list.200',
    );
    replyWithFixture(
      api().get(`/v1/jobs/${JOB}/results`).query({ page: 2, per_page: 5 }),
      'results.page2.200',
    );
    replyWithFixture(api().get('/v1/account/credits'), 'credits.200');
    replyWithFixture(api().get('/v1/account'), 'account.200');
    replyWithFixture(api().get('/v1/subscription'), 'subscription.200');
    api().delete('/v1/keys/key_123').reply(204);
    expect((await client.getJob(JOB)).status).toBe('processing');
    expect(
      (await client.listJobs({ status: 'completed', limit: 5, offset: 10 })).jobs.length,
    ).toBeGreaterThan(0);
    expect((await client.getResultsPage(JOB, { page: 2, per_page: 5 })).has_more).toBe(false);
    expect(typeof (await client.getCredits()).credits).toBe('number');
    expect((await client.getAccount()).plan).toBeDefined();
    expect((await client.getSubscription()).status).toBeDefined();
    await expect(client.revokeKey('key_123')).resolves.toEqual({
      key_id: 'key_123',
      revoked: true,
      confirmedBy: 'response',
    });
  });
});

describe('errors: one class per status, readable, with body and headers', () => {
  test.each([
    [
      'error.401',
      AuthenticationError,
      /^The API key was refused: it is missing, wrong or revoked\. The service answered HTTP 401: .+/,
    ],
    [
      'error.402',
      InsufficientCreditsError,
      /^The account has too few credits for this request\..* The service answered HTTP 402: .+/,
    ],
  ])('%s', async (fixture, cls, message) => {
    const { client } = makeClient();
    const fx = loadFixture(fixture);
    replyWithFixture(api().intercept(fx.request.path, fx.request.method), fixture);
    const call =
      fx.request.method === 'POST' ? client.submitBulk({ emails: ['a@acme.com'] }) : client.getAccount();
    const error = await call.catch((e) => e);
    expect(error).toBeInstanceOf(cls);
    expect(error.status).toBe(fx.status);
    expect(error.body).toEqual(fx.body);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain(KEY);
  });

  test('404 on revoke is NotFoundError naming the key id', async () => {
    const { client } = makeClient();
    replyWithFixture(api().delete('/v1/keys/key_missing'), 'revoke-key.404');
    const error = await client.revokeKey('key_missing').catch((e) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.message).toMatch(/key_missing/);
  });

  test('408 on single verification is not retried and says the credit was refunded', async () => {
    const { client, requests } = makeClient();
    replyWithFixture(api().post('/v1/verify/single'), 'verify-single.408');
    const error = await client.verifySingle({ email: 'slow@acme.com' }).catch((e) => e);
    expect(error).toBeInstanceOf(VerificationTimeoutError);
    expect(error.message).toMatch(/refunded/);
    expect(requests).toHaveLength(1);
  });

  test('422 exposes the addresses the server named', async () => {
    const { client } = makeClient();
    replyWithFixture(api().post('/v1/verify/bulk'), 'verify-bulk.422');
    const error = await client.submitBulk({ emails: ['a@acme.com'] }).catch((e) => e);
    expect(error).toBeInstanceOf(UnprocessableError);
    expect(error.invalidEmails.map((e: { email: string }) => e.email)).toEqual([
      'anna@@acme-corp.com',
      'bob.bigcorp.io',
    ]);
    expect(error.message).toMatch(/Nothing was charged/);
  });

  test('request ids are kept when the server sends one', async () => {
    const { client } = makeClient(fakeRuntime(), { retry: { maxRetries: 0 } });
    api().get('/v1/account').reply(500, 'oops', { 'x-request-id': 'req_42' });
    const error = await client.getAccount().catch((e) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(error.requestId).toBe('req_42');
    expect(error.body).toBe('oops');
  });

  test('a 2xx that is not JSON says to check the base URL', async () => {
    const { client } = makeClient();
    api().get('/v1/account').reply(200, '<html>login</html>');
    await expect(client.getAccount()).rejects.toThrow(/base URL/);
  });
});

describe('retries', () => {
  test('GET retries 5xx and network errors with backoff, then succeeds', async () => {
    const runtime = fakeRuntime();
    const { client, requests } = makeClient(runtime);
    api().get('/v1/account').reply(502, 'bad gateway');
    api().get('/v1/account').replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    replyWithFixture(api().get('/v1/account'), 'account.200');
    await client.getAccount();
    expect(requests).toHaveLength(3);
    expect(runtime.sleeps).toHaveLength(2);
    expect(runtime.sleeps[1]!).toBeGreaterThan(runtime.sleeps[0]!);
  });

  test('GET gives up after maxRetries', async () => {
    const { client, requests } = makeClient(fakeRuntime(), { retry: { maxRetries: 2 } });
    api().get('/v1/account').times(3).reply(500, '{}');
    await expect(client.getAccount()).rejects.toBeInstanceOf(ServerError);
    expect(requests).toHaveLength(3);
  });

  test.each([
    ['epoch seconds', (now: number) => String(Math.floor(now / 1000) + 7), 7000],
    ['delta seconds', () => '7', 7000],
    ['HTTP date', (now: number) => new Date(now + 7000).toUTCString(), 7000],
  ])(
    '429 waits for X-RateLimit-Reset as %s, then retries (POST too: the server refused it)',
    async (_n, header, wait) => {
      const runtime = fakeRuntime();
      const { client, requests } = makeClient(runtime);
      api()
        .post('/v1/verify/bulk')
        .reply(429, { error: { message: 'slow down' } }, { 'X-RateLimit-Reset': header(runtime.now()) });
      replyWithFixture(api().post('/v1/verify/bulk'), 'verify-bulk.202');
      await client.submitBulk({ emails: ['a@acme.com'] });
      expect(runtime.sleeps[0]).toBeGreaterThanOrEqual(wait - 1000);
      expect(runtime.sleeps[0]).toBeLessThanOrEqual(wait);
      expect(requests).toEqual(['POST /v1/verify/bulk', 'POST /v1/verify/bulk']);
    },
  );

  test('503 waits for Retry-After, then retries', async () => {
    const runtime = fakeRuntime();
    const { client } = makeClient(runtime);
    api().post('/v1/verify/bulk').reply(503, {}, { 'Retry-After': '20' });
    replyWithFixture(api().post('/v1/verify/bulk'), 'verify-bulk.202');
    await client.submitBulk({ emails: ['a@acme.com'] });
    expect(runtime.sleeps).toEqual([20_000]);
  });

  test('a server wait beyond maxServerWaitMs is thrown with its delay, for the platform to reschedule', async () => {
    const runtime = fakeRuntime();
    const { client, requests } = makeClient(runtime);
    replyWithFixture(api().post('/v1/verify/bulk'), 'error.503');
    replyWithFixture(api().get('/v1/account'), 'error.401');
    const error = await client.submitBulk({ emails: ['a@acme.com'] }).catch((e) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error.retryAfterMs).toBe(120_000);
    expect(runtime.sleeps).toEqual([]);
    expect(requests).toHaveLength(1);
    await client.getAccount().catch(() => undefined);
  });

  test('a 429 with an epoch reset far away is a RateLimitError with retryAt', async () => {
    const runtime = fakeRuntime();
    const { client } = makeClient(runtime);
    api()
      .post('/v1/verify/single')
      .reply(429, {}, { 'X-RateLimit-Reset': String(Math.floor(runtime.now() / 1000) + 3600) });
    const error = await client.verifySingle({ email: 'a@acme.com' }).catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAt).toBe(runtime.now() + 3_600_000);
    expect(error.message).toMatch(/60 minutes/);
  });

  test('a bulk POST whose connection dropped after sending is NOT resent', async () => {
    const { client, requests } = makeClient();
    api().post('/v1/verify/bulk').replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });
    const error = await client.submitBulk({ emails: ['a@acme.com'] }).catch((e) => e);
    expect(error).toBeInstanceOf(SubmissionUncertainError);
    expect(error.message).toMatch(
      /may have accepted it and charged up to 1 credit\. Look for a job created at about that time in the job list/,
    );
    expect(error.addressCount).toBe(1);
    expect(requests).toHaveLength(1);
  });

  test('a bulk POST that timed out after sending is NOT resent', async () => {
    const { client, requests } = makeClient();
    api().post('/v1/verify/bulk').delay(300).reply(202, {});
    const error = await client.submitBulk({ emails: ['a@acme.com'] }, { timeoutMs: 50 }).catch((e) => e);
    expect(error).toBeInstanceOf(SubmissionUncertainError);
    expect(requests).toHaveLength(1);
  });

  test('a bulk POST answered 500 is not resent either (it may have been accepted)', async () => {
    const { client, requests } = makeClient();
    api().post('/v1/verify/bulk').reply(500, {});
    await expect(client.submitBulk({ emails: ['a@acme.com'] })).rejects.toBeInstanceOf(
      SubmissionUncertainError,
    );
    expect(requests).toHaveLength(1);
  });

  test('a POST refused at connect (never sent) is retried', async () => {
    const runtime = fakeRuntime();
    const calls: string[] = [];
    let n = 0;
    const client = new EmailVerificationClient({
      apiKey: KEY,
      baseUrl: 'http://127.0.0.1:9/api',
      runtime,
      transport: async (req) => {
        calls.push(req.method);
        if (n++ === 0) return fetchTransport(req); // port 9 (discard) is closed: ECONNREFUSED
        return { status: 202, headers: {}, body: JSON.stringify(loadFixture<any>('verify-bulk.202').body) };
      },
    });
    await client.submitBulk({ emails: ['a@acme.com'] });
    expect(calls).toEqual(['POST', 'POST']);
  });

  test('single verification: a client timeout is not resent and says it may have been charged', async () => {
    const { client, requests } = makeClient();
    api().post('/v1/verify/single').delay(300).reply(200, {});
    const error = await client.verifySingle({ email: 'a@acme.com' }, { timeoutMs: 50 }).catch((e) => e);
    expect(error).toBeInstanceOf(VerificationUncertainError);
    expect(error.cause).toBeInstanceOf(RequestTimeoutError);
    expect(error.message).toMatch(/may have been verified and charged 1 credit/);
    expect(requests).toHaveLength(1);
  });

  test('an aborted call stops at once', async () => {
    const { client } = makeClient();
    const ac = new AbortController();
    ac.abort();
    await expect(client.getAccount({ signal: ac.signal })).rejects.toThrow(/cancelled/);
  });
});

describe('input is checked before any request', () => {
  const { client, requests } = makeClient();
  test.each([
    ['malformed single', () => client.verifySingle({ email: 'nope' }), 'email'],
    ['empty list', () => client.submitBulk({ emails: [] }), 'emails'],
    [
      '50,001 items',
      () => client.submitBulk({ emails: Array.from({ length: 50_001 }, (_, i) => `u${i}@acme.com`) }),
      'emails',
    ],
    ['malformed in list', () => client.submitBulk({ emails: ['a@acme.com', 'bad@'] }), 'emails'],
    ['name of 256', () => client.submitBulk({ emails: ['a@acme.com'], name: 'x'.repeat(256) }), 'name'],
    [
      'bad priority',
      () => client.submitBulk({ emails: ['a@acme.com'], priority: 'asap' as never }),
      'priority',
    ],
    [
      'http webhook',
      () => client.submitBulk({ emails: ['a@acme.com'], webhook_url: 'http://hooks.example.com' }),
      'webhook_url',
    ],
    ['per_page 0', () => client.getResultsPage(JOB, { per_page: 0 }), 'per_page'],
    ['per_page 1001', () => client.getResultsPage(JOB, { per_page: 1001 }), 'per_page'],
    ['page 0', () => client.getResultsPage(JOB, { page: 0 }), 'page'],
    ['limit 101', () => client.listJobs({ limit: 101 }), 'limit'],
    ['limit 0', () => client.listJobs({ limit: 0 }), 'limit'],
    ['offset -1', () => client.listJobs({ offset: -1 }), 'offset'],
    ['empty job id', () => client.getJob(''), 'job_id'],
    ['key id that is a key', () => client.revokeKey('evf_secret'), 'key_id'],
    ['empty submitList', () => client.submitList({ emails: 'bad\nworse@' }), 'emails'],
  ])('%s', async (_n, call, field) => {
    const error = await call().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).field).toBe(field);
    expect(requests).toEqual([]);
  });

  test('a missing key or one without evf_ is refused at construction', () => {
    const base = { baseUrl: BASE, transport: fetchTransport, runtime: fakeRuntime() };
    expect(() => new EmailVerificationClient({ ...base, apiKey: '' })).toThrow(/required/);
    expect(() => new EmailVerificationClient({ ...base, apiKey: 'sk_live_123' })).toThrow(/evf_/);
  });
});

describe('pagination', () => {
  test('reads pages until has_more is false', async () => {
    const { client, requests } = makeClient();
    replyWithFixture(
      api().get(`/v1/jobs/${JOB}/results`).query({ page: 1, per_page: 5 }),
      'results.page1.200',
    );
    replyWithFixture(
      api().get(`/v1/jobs/${JOB}/results`).query({ page: 2, per_page: 5 }),
      'results.page2.200',
    );
    const rows = await collect(client.results(JOB, { pageSize: 5 }));
    expect(rows).toHaveLength(8);
    expect(requests).toHaveLength(2);
  });

  test('stops on has_more false even when a page is full, and on an empty page', async () => {
    const { client } = makeClient();
    replyWithFixture(
      api().get(`/v1/jobs/${JOB}/results`).query({ page: 1, per_page: 5 }),
      'results.page1.200',
      (b) => ({ ...b, has_more: false }),
    );
    expect(await collect(client.results(JOB, { pageSize: 5 }))).toHaveLength(5);
    replyWithFixture(
      api().get(`/v1/jobs/${JOB}/results`).query({ page: 1, per_page: 5 }),
      'results.page1.200',
      (b) => ({ ...b, results: [], total: 0, has_more: false }),
    );
    expect(await collect(client.results(JOB, { pageSize: 5 }))).toEqual([]);
  });

  test('keeps reading while a job is processing (has_more decides, not total)', async () => {
    const { client } = makeClient();
    const fx = loadFixture<any>('results.page1.200').body;
    replyWithFixture(
      api().get(`/v1/jobs/${JOB}/results`).query({ page: 1, per_page: 5 }),
      'results.page1.200',
      (b) => ({ ...b, status: 'processing', total: 5, has_more: true }),
    );
    replyWithFixture(
      api().get(`/v1/jobs/${JOB}/results`).query({ page: 2, per_page: 5 }),
      'results.page2.200',
      (b) => ({ ...b, status: 'processing', results: fx.results.slice(0, 2), total: 7, has_more: false }),
    );
    expect(await collect(client.results(JOB, { pageSize: 5, concurrency: 4, follow: false }))).toHaveLength(
      7,
    );
  });

  test('maxRows stops early without reading further pages', async () => {
    const { client, requests } = makeClient();
    replyWithFixture(
      api().get(`/v1/jobs/${JOB}/results`).query({ page: 1, per_page: 5 }),
      'results.page1.200',
    );
    expect(await collect(client.results(JOB, { pageSize: 5, maxRows: 3 }))).toHaveLength(3);
    expect(requests).toHaveLength(1);
  });

  test('concurrent reading of a stopped job keeps the order', async () => {
    const { client } = makeClient();
    const row = loadFixture<any>('results.page1.200').body.results[0];
    for (let p = 1; p <= 5; p++) {
      api()
        .get(`/v1/jobs/${JOB}/results`)
        .query({ page: p, per_page: 2 })
        .delay(p === 2 ? 60 : 0)
        .reply(200, {
          job_id: JOB,
          status: 'completed',
          total: 10,
          page: p,
          per_page: 2,
          has_more: p < 5,
          results: [0, 1].map((i) => ({ ...row, email: `r${(p - 1) * 2 + i}@acme.com` })),
        });
    }
    const rows = await collect(client.results(JOB, { pageSize: 2, concurrency: 3 }));
    expect(rows.map((r) => r.email)).toEqual(Array.from({ length: 10 }, (_, i) => `r${i}@acme.com`));
  });

  test('jobs() pages with offset until a short page', async () => {
    const { client } = makeClient();
    const item = loadFixture<any>('jobs-list.200').body.jobs[0];
    api()
      .get('/v1/jobs')
      .query({ limit: 2, offset: 0 })
      .reply(200, {
        jobs: [
          { ...item, job_id: 'j1' },
          { ...item, job_id: 'j2' },
        ],
        limit: 2,
        offset: 0,
      });
    api()
      .get('/v1/jobs')
      .query({ limit: 2, offset: 2 })
      .reply(200, {
        jobs: [
          { ...item, job_id: 'j2' },
          { ...item, job_id: 'j3' },
        ],
        limit: 2,
        offset: 2,
      });
    api().get('/v1/jobs').query({ limit: 2, offset: 4 }).reply(200, { jobs: [], limit: 2, offset: 4 });
    const ids = (await collect(client.jobs({ pageSize: 2 }))).map((j) => j.job_id);
    expect(ids).toEqual(['j1', 'j2', 'j3']);
  });
});

describe('waitForJob', () => {
  test('polls every 10-30 s until terminal, reporting progress', async () => {
    const runtime = fakeRuntime();
    const { client } = makeClient(runtime);
    replyWithFixture(api().get(`/v1/jobs/${JOB}`), 'job.queued.200');
    replyWithFixture(api().get(`/v1/jobs/${JOB}`), 'job.processing.200');
    replyWithFixture(api().get(`/v1/jobs/${JOB}`), 'job.completed.200');
    const seen: string[] = [];
    const job = await client.waitForJob(JOB, { intervalMs: 1, onProgress: (j) => seen.push(j.status) });
    expect(job.status).toBe('completed');
    expect(seen).toEqual(['queued', 'processing', 'completed']);
    expect(runtime.sleeps).toEqual([10_000, 10_000]);
  });

  test('stops on a status it does not know when terminal says so; failed is terminal', async () => {
    const { client } = makeClient();
    replyWithFixture(api().get(`/v1/jobs/${JOB}`), 'job.failed.200');
    expect((await client.waitForJob(JOB)).error).toBeTruthy();
    replyWithFixture(api().get(`/v1/jobs/${JOB}`), 'job.processing.200', (b) => ({
      ...b,
      status: 'archived_by_admin',
      terminal: true,
    }));
    expect((await client.waitForJob(JOB)).status).toBe('archived_by_admin');
  });

  test('gives up at the deadline with JobWaitTimeoutError', async () => {
    const runtime = fakeRuntime();
    const { client } = makeClient(runtime);
    replyWithFixture(api().get(`/v1/jobs/${JOB}`).times(4), 'job.processing.200');
    const error = await client.waitForJob(JOB, { intervalMs: 30_000, timeoutMs: 75_000 }).catch((e) => e);
    expect(error).toBeInstanceOf(JobWaitTimeoutError);
    expect(runtime.sleeps).toEqual([30_000, 30_000, 15_000]);
  });

  test('a poll that gets no answer is retried at the next tick', async () => {
    const { client } = makeClient(fakeRuntime(), { retry: { maxRetries: 0 } });
    api().get(`/v1/jobs/${JOB}`).replyWithError({ code: 'ECONNRESET', message: 'reset' });
    replyWithFixture(api().get(`/v1/jobs/${JOB}`), 'job.completed.200');
    expect((await client.waitForJob(JOB)).status).toBe('completed');
  });
});

describe('submitList', () => {
  const accepted = (emails: string[], id = 'job_x') => ({
    ...loadFixture<any>('verify-bulk.202').body,
    job_id: id,
    total_emails: emails.length,
    credits_used: emails.length,
  });

  test('removes duplicates and malformed addresses, reports them, charges only the rest', async () => {
    const { client } = makeClient();
    api()
      .post('/v1/verify/bulk', { emails: ['Anna@acme.com', 'bob@acme.com'], name: 'Leads' })
      .reply(202, accepted(['a', 'b']));
    const r = await client.submitList({
      emails: 'Anna@acme.com\nanna@ACME.com\nbob@acme.com\nnot-an-email',
      name: 'Leads',
    });
    expect(r.jobs).toHaveLength(1);
    expect(r.creditsUsed).toBe(2);
    expect(r.preflight.duplicates).toHaveLength(1);
    expect(r.preflight.malformed[0]!.email).toBe('not-an-email');
  });

  test('splits over 50,000 into several jobs named part i of n', async () => {
    const { client } = makeClient();
    const emails = Array.from({ length: 50_003 }, (_, i) => `u${i}@acme.com`);
    const names: string[] = [];
    api()
      .post('/v1/verify/bulk')
      .times(2)
      .reply(202, (_uri, body: any) => {
        names.push(body.name);
        return accepted(body.emails, `job_${names.length}`);
      });
    const r = await client.submitList({ emails, name: 'Big' });
    expect(r.jobs.map((j) => j.total_emails)).toEqual([50_000, 3]);
    expect(names).toEqual(['Big (part 1 of 2)', 'Big (part 2 of 2)']);
  });

  test('a 422 naming addresses drops them and resubmits the rest (422 charges nothing)', async () => {
    const { client, requests } = makeClient();
    api()
      .post('/v1/verify/bulk')
      .reply(422, {
        error: {
          message: 'invalid',
          invalid_emails: [{ email: 'weird@acme.com', reason: 'blocked syntax' }],
        },
      });
    api()
      .post('/v1/verify/bulk', { emails: ['a@acme.com', 'b@acme.com'] })
      .reply(202, accepted(['a', 'b']));
    const r = await client.submitList({ emails: ['a@acme.com', 'weird@acme.com', 'b@acme.com'] });
    expect(r.rejectedByService).toEqual([{ email: 'weird@acme.com', index: 1, reason: 'blocked syntax' }]);
    expect(requests).toHaveLength(2);
  });

  test('a 422 naming nothing is resolved by halving until the offender is alone', async () => {
    const { client } = makeClient();
    const bad = 'b3@acme.com';
    const submitted: string[][] = [];
    api()
      .post('/v1/verify/bulk')
      .times(20)
      .reply((_uri, body: any) => {
        if (body.emails.includes(bad)) return [422, { error: { message: 'invalid address in list' } }];
        submitted.push(body.emails);
        return [202, accepted(body.emails, `job_${submitted.length}`)];
      });
    const emails = Array.from({ length: 8 }, (_, i) => `b${i}@acme.com`);
    const r = await client.submitList({ emails });
    expect(r.rejectedByService.map((x) => x.email)).toEqual([bad]);
    expect(submitted.flat().sort()).toEqual(emails.filter((e) => e !== bad).sort());
    nock.cleanAll();
  });

  test('a 422 about the webhook is reported as it is, not bisected', async () => {
    const { client, requests } = makeClient();
    replyWithFixture(api().post('/v1/verify/bulk'), 'verify-bulk.422-webhook-url');
    await expect(
      client.submitList({ emails: ['a@acme.com', 'b@acme.com'], webhook_url: 'https://hooks.example.com/x' }),
    ).rejects.toBeInstanceOf(UnprocessableError);
    expect(requests).toHaveLength(1);
  });

  test('an error after some jobs were created says which were submitted', async () => {
    const { client } = makeClient();
    api().post('/v1/verify/bulk').reply(202, accepted([], 'job_first'));
    replyWithFixture(api().post('/v1/verify/bulk'), 'error.402');
    const error = await client
      .submitList({ emails: ['a@acme.com', 'b@acme.com'] }, { maxPerJob: 1 })
      .catch((e) => e);
    expect(error).toBeInstanceOf(PartialSubmissionError);
    expect(error.submittedJobIds).toEqual(['job_first']);
    expect(error.unsent).toEqual(['b@acme.com']);
    expect(error.uncertain).toBeUndefined();
    expect(error.cause).toBeInstanceOf(InsufficientCreditsError);
  });

  test('connection errors surface as ConnectionError on reads', async () => {
    const { client } = makeClient(fakeRuntime(), { retry: { maxRetries: 0 } });
    api().get('/v1/account').replyWithError({ code: 'ECONNRESET', message: 'reset' });
    await expect(client.getAccount()).rejects.toBeInstanceOf(ConnectionError);
  });
});

describe('construction', () => {
  const base = { baseUrl: BASE, transport: fetchTransport, runtime: fakeRuntime() };
  test('an absent key is refused unless the transport authenticates by itself', () => {
    expect(() => new EmailVerificationClient({ ...base })).toThrow(InputError);
    expect(() => new EmailVerificationClient({ ...base, authenticatedByTransport: true })).not.toThrow();
    expect(
      () => new EmailVerificationClient({ ...base, authenticatedByTransport: true, apiKey: 'nope' }),
    ).toThrow(/evf_/);
  });

  test('loopback http webhooks only when the base URL is itself on loopback (the sandbox)', async () => {
    const hook = 'http://127.0.0.1:5678/webhook/done';
    const remote = new EmailVerificationClient({ ...base, apiKey: KEY });
    await expect(remote.assertWebhookUrl(hook)).rejects.toThrow(/https/);
    const local = new EmailVerificationClient({ ...base, apiKey: KEY, baseUrl: 'http://127.0.0.1:8787/api' });
    await expect(local.assertWebhookUrl(hook)).resolves.toBeUndefined();
    const forced = new EmailVerificationClient({
      ...base,
      apiKey: KEY,
      baseUrl: 'http://127.0.0.1:8787/api',
      webhookUrl: { allowLoopbackHttp: false },
    });
    await expect(forced.assertWebhookUrl(hook)).rejects.toThrow(/https/);
  });
});

describe('results with follow', () => {
  test('reads rows as they are stored until the job stops, each row once', async () => {
    const runtime = fakeRuntime();
    const { client } = makeClient(runtime);
    const row = loadFixture<any>('results.page1.200').body.results[0];
    const rows = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => ({ ...row, email: `r${from + i}@acme.com` }));
    const page = (p: number, status: string, results: unknown[], has_more: boolean, total: number) => ({
      job_id: JOB,
      status,
      total,
      page: p,
      per_page: 3,
      has_more,
      results,
    });
    const q = (p: number) => api().get(`/v1/jobs/${JOB}/results`).query({ page: p, per_page: 3 });
    q(1).reply(200, page(1, 'processing', rows(0, 2), false, 2));
    q(1).reply(200, page(1, 'processing', rows(0, 3), true, 4));
    q(2).reply(200, page(2, 'processing', rows(3, 4), false, 4));
    q(2).reply(200, page(2, 'completed', rows(3, 5), false, 5));
    const got: string[] = [];
    for await (const r of client.results(JOB, { pageSize: 3, follow: true, pollIntervalMs: 1 }))
      got.push(r.email);
    expect(got).toEqual(['r0@acme.com', 'r1@acme.com', 'r2@acme.com', 'r3@acme.com', 'r4@acme.com']);
    expect(runtime.sleeps).toEqual([10_000, 10_000]);
  });
});

describe('results with a group filter', () => {
  test('yields only rows of the chosen groups, decided by details; maxRows counts matching rows', async () => {
    const { client } = makeClient();
    replyWithFixture(
      api().get(`/v1/jobs/${JOB}/results`).query({ page: 1, per_page: 5 }),
      'results.page1.200',
    );
    replyWithFixture(
      api().get(`/v1/jobs/${JOB}/results`).query({ page: 2, per_page: 5 }),
      'results.page2.200',
    );
    const all = [
      ...loadFixture<any>('results.page1.200').body.results,
      ...loadFixture<any>('results.page2.200').body.results,
    ];
    const { categorize } = await import('@evf/client');
    const expected = all
      .filter((r: any) => categorize(r.details).group !== 'safe_to_send')
      .map((r: any) => r.email);
    const got: string[] = [];
    for await (const r of client.results(JOB, { pageSize: 5, groups: ['risky', 'invalid'] }))
      got.push(r.email);
    expect(got).toEqual(expected);
    expect(got.length).toBeGreaterThan(1);

    replyWithFixture(
      api().get(`/v1/jobs/${JOB}/results`).query({ page: 1, per_page: 5 }),
      'results.page1.200',
    );
    replyWithFixture(
      api().get(`/v1/jobs/${JOB}/results`).query({ page: 2, per_page: 5 }),
      'results.page2.200',
    );
    const firstTwo: string[] = [];
    for await (const r of client.results(JOB, { pageSize: 5, groups: ['risky', 'invalid'], maxRows: 2 }))
      firstTwo.push(r.email);
    expect(firstTwo).toEqual(expected.slice(0, 2));
    nock.cleanAll();
  });

  test('an unknown group is refused before any request', async () => {
    const { client, requests } = makeClient();
    const it = client.results(JOB, { groups: ['safe'] as never });
    await expect(it.next()).rejects.toThrow(/Unknown group/);
    expect(requests).toEqual([]);
  });
});
