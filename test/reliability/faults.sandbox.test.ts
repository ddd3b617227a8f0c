/**
 * The client against the sandbox's fault injection: rate limits in each X-RateLimit-Reset form, paused
 * job intake, server errors and dropped connections while reading, slow pages, a job that fails midway,
 * a webhook receiver that is down, and the 30 s single-verification timeout. Every test checks the
 * outcome that matters to a user (rows, jobs, credits) and not only that no error escaped.
 */
import {
  RateLimitError,
  RequestTimeoutError,
  VerificationUncertainError,
  ServerError,
  ServiceUnavailableError,
  SubmissionUncertainError,
  VerificationTimeoutError,
  type ResultRow,
} from '@evf/client';
import type { Sandbox } from '@evf/sandbox';
import {
  clientFor,
  countBulkPosts,
  eventually,
  freshAccount,
  recordingRuntime,
  requestsSince,
  startFastSandbox,
} from '../support/sandbox';
import { assertNoSecrets, installSecretGuard } from '../support/secret-guard';
import { startWebhookReceiver } from '../support/webhook-receiver';

installSecretGuard();

const emailsOf = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `valid.${tag}.${i}@example.com`);

// The fault says "retry in 10 s". Absolute forms are rounded up to a whole second and read by the
// client after the answer arrives, so they give 10-11 s less the round trip: the 5 s floor leaves a
// wide margin for a loaded machine and is still far above the client's own backoff (at most 1 s here).
describe.each([
  ['epoch-seconds', 5000, 11000],
  ['delta-seconds', 10000, 10000],
  ['http-date', 5000, 11000],
] as const)('429 bursts with X-RateLimit-Reset as %s', (format, minWait, maxWait) => {
  // Real time (timeScale 1): the header then states the real wait, which the recording runtime checks
  // before shortening the sleep. (An accelerated client clock runs ahead of the sandbox's wall clock,
  // so absolute forms would read as "no wait".)
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startFastSandbox({ timeScale: 1, rateLimitResetFormat: format });
  });
  afterEach(() => sb.faults.clear());
  afterAll(() => sb.close());

  test('a bulk POST refused twice with 429 is sent again after the stated wait: one job, charged once', async () => {
    const acct = freshAccount(sb);
    const runtime = recordingRuntime(1000);
    const { client } = clientFor(sb, acct.apiKey, { runtime });
    sb.faults.failNext({
      path: '/v1/verify/bulk',
      method: 'POST',
      status: 429,
      count: 2,
      retryAfterSeconds: 10,
    });
    const from = sb.requests.length;
    const sub = await client.submitBulk({ emails: emailsOf(7, 'ratelimited') });
    expect(countBulkPosts(requestsSince(sb, from))).toBe(3);
    expect(runtime.sleeps).toHaveLength(2);
    for (const ms of runtime.sleeps) {
      expect(ms).toBeGreaterThanOrEqual(minWait);
      expect(ms).toBeLessThanOrEqual(maxWait);
    }
    expect(sub.credits_used).toBe(7);
    expect((await client.listJobs()).jobs.map((j) => j.job_id)).toEqual([sub.job_id]);
    expect(sb.ledger(acct.accountId)).toMatchObject({ charged: 7, refunded: 0 });
  });

  test('429 on reads is waited out the same way', async () => {
    const acct = freshAccount(sb);
    const runtime = recordingRuntime(1000);
    const { client } = clientFor(sb, acct.apiKey, { runtime });
    sb.faults.failNext({ path: '/v1/account/credits', status: 429, count: 3, retryAfterSeconds: 10 });
    const credits = await client.getCredits();
    expect(credits.credits).toBe(1_000_000);
    expect(runtime.sleeps).toHaveLength(3);
    for (const ms of runtime.sleeps) expect(ms).toBeGreaterThanOrEqual(minWait);
  });

  test('a wait longer than the client will sit through is thrown at once with its length: no resend, nothing charged', async () => {
    const acct = freshAccount(sb);
    const runtime = recordingRuntime(1000);
    const { client } = clientFor(sb, acct.apiKey, { runtime });
    sb.faults.failNext({
      path: '/v1/verify/bulk',
      method: 'POST',
      status: 429,
      count: 1,
      retryAfterSeconds: 600,
    });
    const from = sb.requests.length;
    const error = await client.submitBulk({ emails: emailsOf(3, 'longwait') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    const wait = (error as RateLimitError).retryAfterMs!;
    // 600 s, less however long the answer took to be read (a wide margin for a loaded machine).
    expect(wait).toBeGreaterThan(590_000);
    expect(wait).toBeLessThanOrEqual(601_000);
    expect(runtime.sleeps).toEqual([]);
    expect(countBulkPosts(requestsSince(sb, from))).toBe(1);
    expect(sb.ledger(acct.accountId)).toMatchObject({ charged: 0, credits: 1_000_000 });
    assertNoSecrets(error, 'RateLimitError');
  });

  test('a real allowance 429 (starter plan: 10,000 per hour and per day) names the reset in this form and charges nothing', async () => {
    const acct = sb.addAccount({ plan: 'starter', credits: 20_000 });
    const runtime = recordingRuntime(1000);
    const { client } = clientFor(sb, acct.apiKey, { runtime });
    await client.submitBulk({ emails: emailsOf(10_000, 'allowance') });
    const error = await client.submitBulk({ emails: emailsOf(1, 'over') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    const reset = (error as RateLimitError).headers['x-ratelimit-reset']!;
    if (format === 'epoch-seconds') expect(reset).toMatch(/^\d{10}$/);
    if (format === 'delta-seconds') expect(Number(reset)).toBeLessThanOrEqual(24 * 3600);
    if (format === 'http-date') expect(Number.isNaN(Date.parse(reset))).toBe(false);
    // About a day (the day window frees last): beyond what the client sleeps through, so it is handed on.
    expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(24 * 3_600_000 - 100_000);
    expect(runtime.sleeps).toEqual([]);
    expect(sb.ledger(acct.accountId)).toMatchObject({ charged: 10_000, credits: 10_000 });
  });
});

describe.each(['delta-seconds', 'http-date'] as const)(
  '503: new jobs paused, Retry-After as %s',
  (format) => {
    let sb: Sandbox;
    beforeAll(async () => {
      sb = await startFastSandbox({ timeScale: 1, retryAfterFormat: format });
    });
    afterEach(() => sb.faults.clear());
    afterAll(() => sb.close());

    test('the client waits the stated time and the resumed service takes the list once', async () => {
      const acct = freshAccount(sb);
      // The pause ends while the client sleeps, as a maintenance window would.
      const runtime = recordingRuntime(1000, () => sb.faults.resumeNewJobs());
      const { client } = clientFor(sb, acct.apiKey, { runtime });
      sb.faults.pauseNewJobs({ retryAfterSeconds: 10 });
      const from = sb.requests.length;
      const sub = await client.submitBulk({ emails: emailsOf(5, 'paused') });
      expect(countBulkPosts(requestsSince(sb, from))).toBe(2);
      expect(runtime.sleeps).toHaveLength(1);
      if (format === 'delta-seconds') expect(runtime.sleeps[0]).toBe(10_000);
      else {
        // An HTTP date: 10-11 s, less however long the answer took to be read.
        expect(runtime.sleeps[0]).toBeGreaterThanOrEqual(5_000);
        expect(runtime.sleeps[0]).toBeLessThanOrEqual(11_000);
      }
      expect((await client.listJobs()).jobs.map((j) => j.job_id)).toEqual([sub.job_id]);
      expect(sb.ledger(acct.accountId)).toMatchObject({ charged: 5 });
    });

    test('a pause that outlasts the retries ends in ServiceUnavailableError with nothing charged', async () => {
      const acct = freshAccount(sb);
      const runtime = recordingRuntime(1000);
      const { client } = clientFor(sb, acct.apiKey, { runtime });
      sb.faults.pauseNewJobs({ retryAfterSeconds: 1 });
      const from = sb.requests.length;
      const error = await client.submitBulk({ emails: emailsOf(5, 'stillpaused') }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect(countBulkPosts(requestsSince(sb, from))).toBe(4); // first try + 3 retries
      expect(sb.ledger(acct.accountId)).toMatchObject({ charged: 0, credits: 1_000_000 });
      expect((await client.listJobs()).jobs).toEqual([]);
    });

    test('a long pause is thrown at once with its wait, for the platform to reschedule', async () => {
      const acct = freshAccount(sb);
      const runtime = recordingRuntime(1000);
      const { client } = clientFor(sb, acct.apiKey, { runtime });
      sb.faults.pauseNewJobs({ retryAfterSeconds: 900 });
      const error = await client.submitBulk({ emails: emailsOf(2, 'longpause') }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).retryAfterMs).toBeGreaterThan(890_000);
      expect(runtime.sleeps).toEqual([]);
      expect(sb.ledger(acct.accountId).charged).toBe(0);
    });
  },
);

describe('reading a finished job of 2,500 rows through faults (5 pages of 500)', () => {
  let sb: Sandbox;
  let acct: { apiKey: string; accountId: string };
  let jobId: string;
  let expected: string[];
  beforeAll(async () => {
    sb = await startFastSandbox();
    acct = freshAccount(sb);
    const { client } = clientFor(sb, acct.apiKey);
    // A mix of outcomes, so the rows are not all alike.
    const kinds = [
      'valid',
      'invalid',
      'catchall',
      'unknown',
      'info',
      'temp',
      'trap',
      'full',
      'disabled',
      'notverified',
    ];
    expected = Array.from({ length: 2500 }, (_, i) => `${kinds[i % kinds.length]}.${i}@example.com`);
    jobId = (await client.submitList({ emails: expected })).jobs[0]!.job_id;
    await client.waitForJob(jobId);
  });
  afterEach(() => sb.faults.clear());
  afterAll(() => sb.close());

  /** Reads every row; `arm` runs before each results request the client makes (attempt 0 only). */
  async function readWith(arm: (pageRequest: number) => void, options: { timeoutMs?: number } = {}) {
    let pageRequests = 0;
    const { client, attempts } = clientFor(sb, acct.apiKey, {
      onRequest: ({ path, attempt }) => {
        if (path.endsWith('/results') && attempt === 0) arm(++pageRequests);
      },
    });
    const rows: ResultRow[] = [];
    for await (const row of client.results(jobId, { pageSize: 500, timeoutMs: options.timeoutMs }))
      rows.push(row);
    return { rows, attempts: attempts.filter((a) => a.endsWith('/results')) };
  }

  function expectEveryRowOnce(rows: ResultRow[]) {
    expect(rows.map((r) => r.email)).toEqual(expected);
  }

  test('control: no faults, 5 requests', async () => {
    const { rows, attempts } = await readWith(() => undefined);
    expectEveryRowOnce(rows);
    expect(attempts).toHaveLength(5);
  });

  test.each([500, 502, 503, 504, 429])(
    'HTTP %i on pages 2 and 4 (twice on page 4): retried, every row exactly once',
    async (status) => {
      const { rows, attempts } = await readWith((n) => {
        if (n === 2) sb.faults.failNext({ path: /\/results$/, status, retryAfterSeconds: 1 });
        if (n === 4) sb.faults.failNext({ path: /\/results$/, status, count: 2, retryAfterSeconds: 1 });
      });
      expectEveryRowOnce(rows);
      expect(attempts).toHaveLength(5 + 3);
    },
  );

  test.each(['before-response', 'mid-body'] as const)(
    'connection dropped %s on pages 3 and 5: retried, every row exactly once',
    async (drop) => {
      const { rows, attempts } = await readWith((n) => {
        if (n === 3 || n === 5) sb.faults.failNext({ path: /\/results$/, drop });
      });
      expectEveryRowOnce(rows);
      expect(attempts).toHaveLength(5 + 2);
    },
  );

  test('a page slower than the per-attempt timeout is asked again; every row exactly once', async () => {
    // The timeout applies to every page: 1 s leaves the ordinary pages a wide margin on a loaded machine.
    const { rows, attempts } = await readWith(
      (n) => {
        if (n === 2) sb.faults.slow({ path: /\/results$/, delayMs: 2_500, count: 1 });
      },
      { timeoutMs: 1_000 },
    );
    expectEveryRowOnce(rows);
    expect(attempts).toHaveLength(6);
  });

  test('slow pages within the timeout are simply waited for', async () => {
    sb.faults.slow({ path: /\/results$/, delayMs: 60, count: 5 });
    const { rows, attempts } = await readWith(() => undefined, { timeoutMs: 2000 });
    expectEveryRowOnce(rows);
    expect(attempts).toHaveLength(5);
  });

  test('a read that keeps failing ends in a clear error after the retries, not in a short list', async () => {
    sb.faults.failNext({ path: /\/results$/, status: 500, count: 10 });
    const { client } = clientFor(sb, acct.apiKey);
    const rows: ResultRow[] = [];
    const error = await (async () => {
      for await (const row of client.results(jobId, { pageSize: 500 })) rows.push(row);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect(rows).toEqual([]);
  });

  test('5xx and drops while polling the job are ridden out by waitForJob', async () => {
    const { client } = clientFor(sb, acct.apiKey);
    sb.faults.failNext({ path: `/v1/jobs/${jobId}`, method: 'GET', status: 502, count: 2 });
    sb.faults.failNext({ path: `/v1/jobs/${jobId}`, method: 'GET', drop: 'before-response', count: 1 });
    const job = await client.waitForJob(jobId);
    expect(job.status).toBe('completed');
  });
});

describe('bulk POSTs that may have reached the service are never sent again', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startFastSandbox();
  });
  afterEach(() => sb.faults.clear());
  afterAll(() => sb.close());

  test.each([
    ['500 after the job was created', { status: 500, when: 'after' as const }],
    ['500 before anything was done', { status: 500, when: 'before' as const }],
    [
      'connection dropped after the job was created',
      { drop: 'before-response' as const, when: 'after' as const },
    ],
    ['answer cut mid-body after the job was created', { drop: 'mid-body' as const, when: 'after' as const }],
  ])('%s: SubmissionUncertainError, one POST, at most one job', async (_name, fault) => {
    const acct = freshAccount(sb);
    const { client } = clientFor(sb, acct.apiKey);
    sb.faults.failNext({ path: '/v1/verify/bulk', method: 'POST', ...fault });
    const from = sb.requests.length;
    const error = await client.submitList({ emails: emailsOf(4, 'uncertain') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubmissionUncertainError);
    expect(countBulkPosts(requestsSince(sb, from))).toBe(1);
    const jobs = (await client.listJobs()).jobs;
    expect(jobs).toHaveLength(fault.when === 'after' ? 1 : 0);
    expect(sb.ledger(acct.accountId).charged).toBe(fault.when === 'after' ? 4 : 0);
  });

  test('a POST slower than the timeout: uncertain and not resent; whatever the service did is charged at most once', async () => {
    const acct = freshAccount(sb);
    const { client } = clientFor(sb, acct.apiKey);
    // The POST must reach the sandbox within the client's timeout (1 s: a wide margin on a loaded
    // machine), and it is then held 2 s.
    sb.faults.slow({ path: '/v1/verify/bulk', delayMs: 2_000, count: 1 });
    const from = sb.requests.length;
    const error = await client
      .submitBulk({ emails: emailsOf(3, 'slowpost') }, { timeoutMs: 1_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubmissionUncertainError);
    // Let the held request finish on the service side before counting. It arrived before the timeout,
    // so its hold ends at most 3 s after the send, and this timer expires no earlier: timers fire in order.
    await new Promise((r) => setTimeout(r, 2_000));
    const jobs = (await client.listJobs()).jobs;
    expect(jobs.length).toBeLessThanOrEqual(1);
    expect(countBulkPosts(requestsSince(sb, from))).toBe(1);
    expect(sb.ledger(acct.accountId).charged).toBe(3 * jobs.length);
  });
});

describe('a job that fails midway', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startFastSandbox();
  });
  afterAll(() => sb.close());

  test('status failed with error; the 300 rows stored are readable and returned; unanswered and unknown rows refunded; job.failed webhook', async () => {
    const acct = freshAccount(sb);
    const receiver = await startWebhookReceiver([acct.webhookSecret]);
    try {
      const { client } = clientFor(sb, acct.apiKey);
      const kinds = ['valid', 'unknown', 'invalid', 'notverified', 'catchall'];
      const emails = Array.from({ length: 1000 }, (_, i) => `${kinds[i % 5]}.midway.${i}@example.com`);
      sb.faults.failJob(undefined, { afterRows: 300, error: 'Verification stopped: cluster lost.' });
      const sub = await client.submitList({ emails, webhook_url: receiver.url });
      const jobId = sub.jobs[0]!.job_id;
      const job = await client.waitForJob(jobId);
      expect(job).toMatchObject({ status: 'failed', terminal: true, processed: 300, total_emails: 1000 });
      expect(job.error).toEqual(expect.any(String));
      expect(job.error!.length).toBeGreaterThan(0);

      const rows: ResultRow[] = [];
      for await (const row of client.results(jobId, { pageSize: 128 })) rows.push(row);
      expect(rows.map((r) => r.email)).toEqual(emails.slice(0, 300));

      const unknownRows = rows.filter((r) =>
        ['unknown', 'not_verified'].includes(r.details.primary_label),
      ).length;
      expect(unknownRows).toBe(120);
      expect(sb.ledger(acct.accountId)).toEqual({
        charged: 1000,
        refunded: 700 + unknownRows,
        credits: 1_000_000 - 1000 + 700 + unknownRows,
      });

      await eventually(() => receiver.events.length === 1);
      expect(receiver.events[0]!.body).toMatchObject({
        event: 'job.failed',
        status: 'failed',
        job_id: jobId,
        processed_emails: 300,
        error: job.error,
      });
    } finally {
      await receiver.close();
    }
  });
});

describe('a webhook receiver that is down', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startFastSandbox(); // spec waits 2, 10, 60, 300 s at 1/100 speed: about 3.7 s
  });
  afterAll(() => sb.close());

  test('down for the first four attempts: the fifth delivers, exactly one event; down for all five: none, and polling still finds the job', async () => {
    const { client } = clientFor(sb);
    const flaky = await startWebhookReceiver([sb.webhookSecret]);
    const dead = await startWebhookReceiver([sb.webhookSecret]);
    try {
      flaky.failNext(4);
      dead.failNext(1000);
      const a = (await client.submitList({ emails: ['valid.flaky@example.com'], webhook_url: flaky.url }))
        .jobs[0]!.job_id;
      const b = (await client.submitList({ emails: ['valid.dead@example.com'], webhook_url: dead.url }))
        .jobs[0]!.job_id;
      await eventually(
        () => sb.webhookAttempts.filter((x) => x.jobId === a || x.jobId === b).length >= 10,
        20_000,
      );
      await sb.webhooksIdle();

      const forA = sb.webhookAttempts.filter((x) => x.jobId === a);
      expect(forA.map((x) => [x.attempt, x.outcome, x.status])).toEqual([
        [1, 'rejected', 503],
        [2, 'rejected', 503],
        [3, 'rejected', 503],
        [4, 'rejected', 503],
        [5, 'acknowledged', 200],
      ]);
      expect(flaky.events.map((e) => e.jobId)).toEqual([a]);

      const forB = sb.webhookAttempts.filter((x) => x.jobId === b);
      expect(forB).toHaveLength(5);
      expect(dead.log.map((l) => l.status)).toEqual([503, 503, 503, 503, 503]);
      expect(dead.events).toEqual([]);
      expect((await client.getJob(b)).status).toBe('completed');
    } finally {
      await flaky.close();
      await dead.close();
    }
  });
});

describe('the 30 s single-verification timeout', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startFastSandbox();
  });
  afterAll(() => sb.close());

  test('408 becomes VerificationTimeoutError, is not retried, and the credit comes back', async () => {
    const acct = freshAccount(sb);
    const { client } = clientFor(sb, acct.apiKey);
    const from = sb.requests.length;
    const error = await client
      .verifySingle({ email: 'slow.mailserver@example.com' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VerificationTimeoutError);
    expect((error as VerificationTimeoutError).status).toBe(408);
    expect(requestsSince(sb, from)).toEqual(['POST /v1/verify/single']);
    expect(sb.ledger(acct.accountId)).toEqual({ charged: 1, refunded: 1, credits: 1_000_000 });
    // Control: an ordinary address right after is answered and charged.
    const ok = await client.verifySingle({ email: 'valid.after-timeout@example.com' });
    expect(ok.credits_used).toBe(1);
    expect(sb.ledger(acct.accountId)).toEqual({ charged: 2, refunded: 1, credits: 999_999 });
  });

  test('a client timeout shorter than the service wait: VerificationUncertainError (may be charged), not resent; the service still refunds', async () => {
    const acct = freshAccount(sb);
    const { client } = clientFor(sb, acct.apiKey);
    const from = sb.requests.length;
    const error = await client
      .verifySingle({ email: 'slow.again@example.com' }, { timeoutMs: 50 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VerificationUncertainError);
    expect((error as VerificationUncertainError).cause).toBeInstanceOf(RequestTimeoutError);
    expect(requestsSince(sb, from)).toEqual(['POST /v1/verify/single']);
    await eventually(() => sb.ledger(acct.accountId).refunded === 1);
    expect(sb.ledger(acct.accountId).credits).toBe(1_000_000);
  });
});
