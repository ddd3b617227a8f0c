import { assertMatches } from '@evf/contract';
import { loadFixture } from '@evf/contract/fixtures';
import { BASE, run, steps, bundle, expectNoSecrets, KEY, useBaseUrl, zapierError } from './helpers';
import { api, replyWith, requestCounter, useNock } from './mock-api';
import { clientFor } from '../src/client';
import { collectRows } from '../src/rows';

useBaseUrl(() => BASE);
useNock();

describe('authentication', () => {
  it('tests the key with GET /v1/account and labels the connection with the account it names (D003)', async () => {
    replyWith(api().get('/v1/account'), 'account.200');
    const account = await run(steps.authTest, bundle());
    assertMatches('Account', account);
    const label = await run(steps.connectionLabel, {
      ...bundle(),
      inputData: account as Record<string, unknown>,
    });
    expect(label).toBe('Acme Corp (ops@acme-corp.com)');
  });

  it('labels by name and email, else account ID, else plan, whatever further fields the account has', async () => {
    const label = (inputData: Record<string, unknown>) =>
      run(steps.connectionLabel, { ...bundle(), inputData });
    expect(
      await label({ plan: 'pro', credits: 5, credits_used_today: 0, name: 'Ada', email: 'ada@x.example' }),
    ).toBe('Ada (ada@x.example)');
    expect(await label({ plan: 'pro', credits: 5, credits_used_today: 0, name: ' Ada ' })).toBe('Ada');
    expect(await label({ plan: 'pro', credits: 5, credits_used_today: 0, account_id: 'acct_9' })).toBe(
      'Account acct_9',
    );
    // The spec's own account: the key's last four characters tell connections of one plan apart.
    expect(await label({ plan: 'pro', credits: 5, credits_used_today: 0, name: 42 })).toBe(
      `Key ending ${KEY.slice(-4)} (pro plan)`,
    );
    expect(await run(steps.connectionLabel, { authData: {}, inputData: { plan: 'pro', credits: 5 } })).toBe(
      'Account on the pro plan',
    );
    // Nothing names the account: empty, so Zapier's own label (the app's name, "#2", ...) applies
    // instead of a constant that only repeats the app's name.
    expect(await label({ plan: { tier: 'x' }, credits: 5 })).toBe(`Key ending ${KEY.slice(-4)}`);
    expect(await run(steps.connectionLabel, { authData: {}, inputData: { plan: { tier: 'x' } } })).toBe('');
  });

  it('trims a pasted key (a trailing newline is never part of a key) and sends it that way', async () => {
    replyWith(api().get('/v1/account'), 'account.200');
    const account = await run(steps.authTest, { authData: { api_key: `  ${KEY}\n` } });
    assertMatches('Account', account);
  });

  it('asks the user to reconnect on 401', async () => {
    replyWith(api().get('/v1/account'), 'error.401');
    const error = await zapierError(run(steps.authTest, bundle()));
    expect(error.name).toBe('ExpiredAuthError');
    expect(error.message).toMatch(/Profile, then API/);
  });

  it('refuses a signing secret without the whsec_ prefix before any request', async () => {
    const error = await zapierError(
      run(steps.authTest, { authData: { api_key: KEY, webhook_secret: 'not-a-secret' } }),
    );
    expect(error.message).toMatch(/whsec_/);
  });
});

describe('Verify Email Address', () => {
  it('returns every field plus category, group and safe_to_send', async () => {
    const scope = replyWith(
      api().post('/v1/verify/single', { email: 'valid.anna@acme-corp.com', check_smtp: false }),
      'verify-single.200',
    );
    const out: any = await run(
      steps.verify,
      bundle({ email: ' valid.anna@acme-corp.com ', check_smtp: 'false' }),
    );
    expect(scope.isDone()).toBe(true);
    const fx = loadFixture<any>('verify-single.200').body;
    expect(out).toMatchObject({
      ...fx,
      category: 'Valid',
      group: 'safe_to_send',
      safe_to_send: true,
    });
    expect(out).not.toHaveProperty('timed_out');
    expectNoSecrets(out);
  });

  it('maps a catch-all answer by details, not by status', async () => {
    replyWith(api().post('/v1/verify/single'), 'verify-single.catch-all.200');
    const out: any = await run(steps.verify, bundle({ email: 'catchall.x@acme-corp.com' }));
    expect(out).toMatchObject({ category: 'Catch-All', group: 'risky', safe_to_send: false });
  });

  it("fails the step on the service's 408, saying the credit was refunded (the spec lists 408 among errors)", async () => {
    const scope = replyWith(api().post('/v1/verify/single'), 'verify-single.408');
    const error = await zapierError(run(steps.verify, bundle({ email: 'slow@acme-corp.com' })));
    expect(scope.isDone()).toBe(true);
    expect(error).toMatchObject({ name: 'AppError', code: 'verification_timeout', status: 408 });
    expect(error.message).toMatch(/^No verdict for this address: its mail server gave no answer within/);
    expect(error.message).toMatch(/refunded the credit .*Replay this run .*no credit was used/);
  });

  it.each([500, 502, 503])(
    'fails the step on a %i to the single check: an outage is never a verdict, and the POST is not resent',
    async (status) => {
      const scope = api()
        .post('/v1/verify/single')
        .reply(status, '<html><title>Bad gateway</title></html>', { 'Content-Type': 'text/html' });
      const error = await zapierError(run(steps.verify, bundle({ email: 'valid.ada@acme-corp.com' })));
      expect(scope.isDone()).toBe(true);
      expect(error).toMatchObject({ name: 'AppError', code: 'no_verdict', status });
      expect(error.message).toMatch(
        new RegExp(
          `^No verdict for this address: it was sent for verification at .*, and the service, or a gateway in front of it, answered HTTP ${status}\\. The service may have verified it and used 1 credit\\. Replay this run`,
        ),
      );
    },
  );

  it('halts (does not error) when out of credits', async () => {
    replyWith(api().post('/v1/verify/single'), 'error.402', undefined, {});
    const error = await zapierError(run(steps.verify, bundle({ email: 'a@acme-corp.com' })));
    expect(error.name).toBe('HaltedError');
    expect(error.message).toMatch(/credits/);
  });
});

describe('Submit Bulk Verification', () => {
  // The step reads the account (free) to send only what fits today; unanswered here, the client's
  // retries of that read slept through about a second of backoff per test.
  const accountRead = () => replyWith(api().get('/v1/account'), 'account.200');
  it('removes malformed and duplicate addresses before sending and reports them', async () => {
    accountRead();
    let sent: any;
    const scope = replyWith(
      api().post('/v1/verify/bulk', (body) => {
        sent = body;
        return true;
      }),
      'verify-bulk.202',
      (b) => ({ ...b, total_emails: 2, credits_used: 2 }),
    );
    const out: any = await run(
      steps.bulk,
      bundle({
        emails: ['a@acme-corp.com', 'not-an-email', 'A@acme-corp.com'],
        emails_text: 'b@acme-corp.com',
        name: 'Leads',
        priority: 'high',
        check_smtp: true,
      }),
    );
    expect(scope.isDone()).toBe(true);
    expect(sent).toEqual({
      emails: ['a@acme-corp.com', 'b@acme-corp.com'],
      name: 'Leads',
      priority: 'high',
      check_smtp: true,
    });
    expect(out).toMatchObject({
      job_id: loadFixture<any>('verify-bulk.202').body.job_id,
      job_count: 1,
      received: 4,
      unique_count: 2,
      duplicates_removed: 1,
      malformed_removed: 1,
      credits_used: 2,
    });
    expect(out.malformed[0]).toMatchObject({ email: 'not-an-email', position: 2 });
    expect(out.duplicates[0]).toMatchObject({ email: 'A@acme-corp.com', position: 3, first_position: 1 });
    for (const job of out.jobs) assertMatches('BulkSubmission', job);
  });

  it('accepts a pasted text blob alone', async () => {
    accountRead();
    let sent: any;
    replyWith(
      api().post('/v1/verify/bulk', (b) => ((sent = b), true)),
      'verify-bulk.202',
    );
    await run(
      steps.bulk,
      bundle({ emails_text: 'a@acme-corp.com, b@acme-corp.com\nc@acme-corp.com;d@acme-corp.com' }),
    );
    expect(sent.emails).toEqual(['a@acme-corp.com', 'b@acme-corp.com', 'c@acme-corp.com', 'd@acme-corp.com']);
  });

  // Splitting a list over 50,000 addresses into jobs: submit-bulk-split.e2e.test.ts (too slow for a unit test).

  // A list over 50,000 stopped after its first job (a 402): submit-bulk-split.e2e.test.ts.

  it('recovers from a 422 naming bad rows: drops them and submits the rest', async () => {
    accountRead();
    const fx = loadFixture<any>('verify-bulk.422');
    const bad = fx.body.error.invalid_emails.map((e: any) => e.email) as string[];
    // Addresses the local pre-flight accepts but the service refuses (its rules are not published in full).
    const emails = ['one@acme-corp.com', 'two@acme-corp.com', 'three@acme-corp.com'];
    const refused = emails[1]!;
    replyWith(api().post('/v1/verify/bulk'), 'verify-bulk.422', (b) => ({
      error: {
        ...b.error,
        invalid_emails: [{ email: refused, index: 1, reason: bad.length ? 'refused' : 'x' }],
      },
    }));
    let second: any;
    replyWith(
      api().post('/v1/verify/bulk', (b) => ((second = b), true)),
      'verify-bulk.202',
    );
    const out: any = await run(steps.bulk, bundle({ emails }));
    expect(second.emails).toEqual(['one@acme-corp.com', 'three@acme-corp.com']);
    expect(out.rejected_by_service).toEqual([{ email: refused, reason: 'refused' }]);
  });

  // A 429 or 503 is a stop to continue from, not a failure Zapier would retry: the output says
  // what was not sent and when it can go, in each header form the service may use.
  const stopAt = async (
    status: 'error.429' | 'error.503',
    headers: Record<string, string> | undefined,
    email: string,
  ) => {
    replyWith(api().post('/v1/verify/bulk'), status, undefined, headers);
    const out: any = await run(steps.bulk, bundle({ emails: [email] }));
    expect(out).toMatchObject({ job_count: 0, all_sent: false, unsent: [email], job_id: '' });
    expect(out.note).toMatch(
      /not sent and not charged\. Run this step again with the same list after \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
    return { out, waitS: (Date.parse(out.continue_after) - Date.now()) / 1000 };
  };

  it('a 429 returns the address not sent and when to continue (X-RateLimit-Reset in delta seconds)', async () => {
    accountRead();
    const { out, waitS } = await stopAt('error.429', { 'x-ratelimit-reset': '120' }, 'a.delta@acme-corp.com');
    expect(out.stopped_by).toBe('allowance');
    expect(waitS).toBeGreaterThan(115);
    expect(waitS).toBeLessThanOrEqual(121);
  });

  it('a 429 returns when to continue (X-RateLimit-Reset in epoch seconds and as an HTTP date)', async () => {
    accountRead();
    const epoch = String(Math.floor(Date.now() / 1000) + 600);
    const first = await stopAt('error.429', { 'x-ratelimit-reset': epoch }, 'a.epoch@acme-corp.com');
    expect(first.waitS).toBeGreaterThanOrEqual(595);
    expect(first.waitS).toBeLessThanOrEqual(601);
    const date = new Date(Date.now() + 300_000).toUTCString();
    accountRead();
    const second = await stopAt('error.429', { 'x-ratelimit-reset': date }, 'a.date@acme-corp.com');
    expect(second.waitS).toBeGreaterThanOrEqual(295);
    expect(second.waitS).toBeLessThanOrEqual(301);
  });

  it('a 503 (new jobs paused) returns when to continue from Retry-After', async () => {
    accountRead();
    const { out, waitS } = await stopAt('error.503', undefined, 'a.paused@acme-corp.com');
    expect(out.stopped_by).toBe('paused');
    expect(waitS).toBeGreaterThan(115);
    expect(waitS).toBeLessThanOrEqual(121);
  });

  it('a rerun of the same list before that time sends nothing and says when', async () => {
    accountRead();
    const { out } = await stopAt('error.429', { 'x-ratelimit-reset': '120' }, 'a.rerun@acme-corp.com');
    const counter = requestCounter();
    const again: any = await run(steps.bulk, bundle({ emails: ['a.rerun@acme-corp.com'] }));
    expect(counter.count()).toBe(0);
    expect(again).toMatchObject({ job_count: 0, all_sent: false, continue_after: out.continue_after });
  });

  it('gives the readable 422 reason when the service refuses the webhook or name', async () => {
    accountRead();
    replyWith(api().post('/v1/verify/bulk'), 'verify-bulk.422-webhook-url');
    const error = await zapierError(run(steps.bulk, bundle({ emails: ['a@acme-corp.com'] })));
    expect(error.name).toBe('AppError');
    expect(error.status).toBe(422);
    expect(error.code).toBe('invalid_webhook_url');
    expect(error.message).toMatch(
      /^Callback URL: The service refused the request \(HTTP 422\)\. The service said: "webhook_url must use https/,
    );
  });
});

describe('Verify List and Wait for Results (submission side)', () => {
  it('submits with the Zap step callback URL as webhook_url and hands the job to performResume', async () => {
    let sent: any;
    replyWith(
      api().post('/v1/verify/bulk', (b) => ((sent = b), true)),
      'verify-bulk.202',
    );
    const callbackUrl = 'https://hooks.zapier.com/hooks/standard/123/abc/';
    const out = await run(
      (z, b) => steps.wait({ ...z, generateCallbackUrl: () => callbackUrl }, b),
      bundle({ emails: ['a@acme-corp.com', 'A@acme-corp.com'] }),
    );
    expect(sent).toEqual({ emails: ['a@acme-corp.com'], webhook_url: callbackUrl });
    expect(out).toMatchObject({
      job_id: loadFixture<any>('verify-bulk.202').body.job_id,
      waiting_for_callback: true,
      duplicates_removed: 1,
    });
  });

  it('returns the sample while the Zap is being set up, submitting (and charging) nothing', async () => {
    const counter = requestCounter();
    const out = await run(
      steps.wait,
      bundle({ emails: ['a@acme-corp.com'] }, { meta: { isLoadingSample: true } }),
    );
    expect(counter.count()).toBe(0);
    expect(out.results.length).toBeGreaterThan(0);
    expect(out.note).toMatch(/nothing was submitted or charged/);
  });
});

describe('Find Bulk Job', () => {
  it('returns the job with progress, verdicts and buckets', async () => {
    replyWith(api().get('/v1/jobs/job_7f3c2a9e41b84d05'), 'job.completed.200');
    const out: any = await run(steps.findJob, bundle({ job_id: 'job_7f3c2a9e41b84d05' }));
    expect(out).toHaveLength(1);
    assertMatches('Job', out[0]);
    expect(out[0].buckets).toEqual(loadFixture<any>('job.completed.200').body.buckets);
  });

  it('returns nothing (not an error) for an unknown job', async () => {
    api()
      .get('/v1/jobs/job_nope')
      .reply(404, { error: { code: 'not_found', message: 'No such job.' } });
    const out = await run(steps.findJob, bundle({ job_id: 'job_nope' }));
    expect(out).toEqual([]);
  });
});

describe('Find Bulk Job Results', () => {
  function mockResults(): void {
    replyWith(api().get('/v1/jobs/job_7f3c2a9e41b84d05'), 'job.completed.200');
    replyWith(
      api()
        .get('/v1/jobs/job_7f3c2a9e41b84d05/results')
        .query((q) => q.page === '1'),
      'results.page1.200',
    );
    replyWith(
      api()
        .get('/v1/jobs/job_7f3c2a9e41b84d05/results')
        .query((q) => q.page === '2'),
      'results.page2.200',
    );
  }

  it('reads every page and returns categorized line items with group counts', async () => {
    mockResults();
    const [out]: any = await run(steps.results, bundle({ job_id: 'job_7f3c2a9e41b84d05' }));
    const rows = [
      ...loadFixture<any>('results.page1.200').body.results,
      ...loadFixture<any>('results.page2.200').body.results,
    ];
    expect(out.results.map((r: any) => r.email)).toEqual(rows.map((r) => r.email));
    expect(out.returned_rows).toBe(8);
    expect(out.truncated).toBe(false);
    const sum = out.counts.safe_to_send + out.counts.risky + out.counts.invalid;
    expect(sum).toBe(8);
    for (const row of out.results) {
      const { category, group, safe_to_send, ...wire } = row;
      assertMatches('ResultRow', wire);
      expect(typeof category).toBe('string');
      expect(['safe_to_send', 'risky', 'invalid']).toContain(group);
      expect(safe_to_send).toBe(group === 'safe_to_send');
    }
  });

  it('filters by group using the shared mapping', async () => {
    mockResults();
    const [out]: any = await run(steps.results, bundle({ job_id: 'job_7f3c2a9e41b84d05', group: 'invalid' }));
    expect(out.results.length).toBeGreaterThan(0);
    expect(out.results.every((r: any) => r.group === 'invalid')).toBe(true);
    expect(out.rows_read).toBe(8);
    expect(out.counts.safe_to_send).toBe(0);
  });
});

describe('other error mappings', () => {
  it('a job that does not exist finds nothing when reading its results (a search, so the Zap can branch)', async () => {
    api()
      .get('/v1/jobs/job_gone')
      .reply(404, { error: { code: 'not_found', message: 'No such job.' } });
    expect(await run(steps.results, bundle({ job_id: 'job_gone' }))).toEqual([]);
  });

  it('a server error on a read is retried, then reported with its status', async () => {
    api()
      .get('/v1/account/credits')
      .times(3)
      .reply(500, { error: { code: 'internal', message: 'boom' } });
    const error = await zapierError(run(steps.credits, bundle()));
    expect(error).toMatchObject({ name: 'AppError', code: 'server_error', status: 500 });
    expect(error.message).toMatch(/internal problem \(HTTP 500\)\. The service said: "boom" Replay this run/);
  });
});

describe('Get Credit Balance', () => {
  it('returns the balance', async () => {
    replyWith(api().get('/v1/account/credits'), 'credits.200');
    const out: any = await run(steps.credits, bundle());
    assertMatches('CreditBalance', out);
    // Empty Minimum Credits is what one check costs.
    expect(out).toMatchObject({ minimum_credits: 1, enough_credits: out.credits >= 1 });
  });

  it('says whether the balance covers Minimum Credits, and by how much it falls short (D022)', async () => {
    replyWith(api().get('/v1/account/credits'), 'credits.200');
    const { credits }: any = await run(steps.credits, bundle());
    replyWith(api().get('/v1/account/credits'), 'credits.200');
    const short: any = await run(steps.credits, bundle({ minimum_credits: String(credits + 250) }));
    expect(short).toMatchObject({
      minimum_credits: credits + 250,
      enough_credits: false,
      credits_short: 250,
    });
    replyWith(api().get('/v1/account/credits'), 'credits.200');
    const covered: any = await run(steps.credits, bundle({ minimum_credits: credits }));
    expect(covered).toMatchObject({ enough_credits: true, credits_short: 0 });
  });
});

describe('Revoke API Key', () => {
  it('revokes with DELETE /v1/keys/{key_id}', async () => {
    replyWith(api().delete('/v1/keys/key_5d1e8b'), 'revoke-key.204');
    const out = await run(steps.revoke, bundle({ key_id: 'key_5d1e8b' }));
    expect(out).toMatchObject({ key_id: 'key_5d1e8b', revoked: true, result: 'revoked' });
  });

  it('answers a 404 with a clear not-found result', async () => {
    replyWith(api().delete('/v1/keys/key_missing'), 'revoke-key.404');
    const out: any = await run(steps.revoke, bundle({ key_id: 'key_missing' }));
    expect(out).toMatchObject({ key_id: 'key_missing', revoked: false, result: 'not_found' });
    expect(out.message).toMatch(/not found/);
  });
});

describe('Bulk Job Finished trigger', () => {
  // The fixture's jobs were created on 2026-01-14/15: poll as if on the next day, inside the look-back.
  beforeEach(() => jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-01-16T08:00:00Z')));
  afterEach(() => jest.restoreAllMocks());
  /** The pages the trigger asks for at once past the list's end: empty. */
  const emptyPagesFrom = (from: number, count: number) =>
    api()
      .get('/v1/jobs')
      .query((q) => Number(q.offset) >= from)
      .times(count)
      .reply(200, (uri) => ({
        jobs: [],
        limit: 100,
        offset: Number(new URL(uri, 'http://x').searchParams.get('offset')),
      }));

  it('returns completed and failed jobs, newest first, with id = job_id', async () => {
    replyWith(
      api()
        .get('/v1/jobs')
        .query((q) => q.offset === '0'),
      'jobs-list.200',
    );
    emptyPagesFrom(100, 9);
    replyWith(api().get('/v1/jobs/job_c41d0b7e9a2f6318'), 'job.failed.200');
    replyWith(api().get('/v1/jobs/job_7f3c2a9e41b84d05'), 'job.completed.200');
    replyWith(api().get('/v1/jobs/job_0b8e5d2c7a194f60'), 'job.completed.200', (b) => ({
      ...b,
      job_id: 'job_0b8e5d2c7a194f60',
    }));
    const out: any = await run(steps.finished, bundle());
    expect(out.map((j: any) => j.id)).toEqual([
      'job_c41d0b7e9a2f6318',
      'job_7f3c2a9e41b84d05',
      'job_0b8e5d2c7a194f60',
    ]);
    for (const job of out) {
      expect(job.id).toBe(job.job_id);
      const { id: _id, ...wire } = job;
      assertMatches('Job', wire);
    }
    expect(out[0].error).toBeTruthy();
  });

  it('skips jobs that are still running', async () => {
    emptyPagesFrom(100, 9);
    replyWith(
      api()
        .get('/v1/jobs')
        .query((q) => q.offset === '0'),
      'jobs-list.200',
      (b) => ({
        ...b,
        jobs: b.jobs.map((j: any, i: number) =>
          i === 0 ? { ...j, status: 'processing' } : i === 2 ? { ...j, status: 'queued' } : j,
        ),
      }),
    );
    replyWith(api().get('/v1/jobs/job_7f3c2a9e41b84d05'), 'job.completed.200');
    const out: any = await run(steps.finished, bundle());
    expect(out.map((j: any) => j.id)).toEqual(['job_7f3c2a9e41b84d05']);
  });

  it('reads the job list back to the look-back point, several pages at once, not only the newest page', async () => {
    const [a, b, c] = loadFixture<any>('jobs-list.200').body.jobs;
    const page = (jobs: unknown[], offset: number) => (body: any) => ({ ...body, jobs, limit: 2, offset });
    replyWith(
      api()
        .get('/v1/jobs')
        .query((q) => q.offset === '0'),
      'jobs-list.200',
      page([a, b], 0),
    );
    // The last page ends with a job older than the look-back: the reading stops there.
    const old = { ...c, job_id: 'job_0ld000000000000', created_at: '2026-01-01T00:00:00Z' };
    replyWith(
      api()
        .get('/v1/jobs')
        .query((q) => q.offset === '2'),
      'jobs-list.200',
      page([c, old], 2),
    );
    emptyPagesFrom(4, 8);
    const list = await run(
      async (z, bnd) =>
        clientFor(z, bnd).finishedJobsSince({
          createdSince: Date.parse('2026-01-09T08:00:00Z'),
          pageSize: 2,
        }),
      bundle(),
    );
    expect(list).toEqual({ jobs: [a, b, c], complete: true });
  });
});

describe('Recent jobs (hidden dropdown trigger)', () => {
  it('pages with offset = page * page size and labels each job', async () => {
    let query: any;
    replyWith(
      api()
        .get('/v1/jobs')
        .query((q) => ((query = q), true)),
      'jobs-list.200',
    );
    const out: any = await run(steps.recent, bundle({}, { meta: { page: 2 } }));
    expect(query).toEqual({ limit: '50', offset: '100' });
    expect(out[0]).toMatchObject({ id: 'job_c41d0b7e9a2f6318' });
    expect(out[0].label).toMatch(/Jan 15, 2026.*8 addresses · failed/);
  });
});

describe('reading results within Zapier limits', () => {
  const JOB = 'job_7f3c2a9e41b84d05';
  const collect = (maxRows: number, budgetMs: number) =>
    run(
      async (z, b) => collectRows(clientFor(z, b), JOB, { maxRows, deadline: Date.now() + budgetMs }),
      bundle(),
    );

  it('stops at the row cap, says more rows follow and where to start next', async () => {
    replyWith(api().get(`/v1/jobs/${JOB}`), 'job.completed.200');
    replyWith(
      api()
        .get(`/v1/jobs/${JOB}/results`)
        .query((q) => q.page === '1'),
      'results.page1.200',
    );
    const out = await collect(3, 10_000);
    expect(out.rows).toHaveLength(3);
    expect(out.truncated).toBe(true);
    expect(out.nextStartRow).toBe(4);
    expect(out.note).toMatch(/Rows 1 to 3 were read.*Start at Row = 4/);
  });
});
