/**
 * What the user sees when the service or something in front of it fails, module by module, against a
 * sandbox with injected faults. The type is what matters most: Make reruns RateLimitError and
 * ConnectionError by itself (RULES.retriedByMake), so a charged POST gets them only for the service's
 * own "not now"; every answer that may hide a charge is a RuntimeError that says to look at List Bulk
 * Jobs first. The harness also refuses on its own any rerun type after a charged POST that the
 * service did not refuse (RULES.chargeNotReplayed), so these tests cannot pass with a replaying app.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { DISABLES_SCENARIO, RETRIED_BY_MAKE } from './harness/make-rules';
import { MakeModuleError, runModule, testConnection, type MakeConnection } from './harness/make-runtime';

let sb: Sandbox;
let conn: MakeConnection;

beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    timeScale: 0.01,
    rowsPerSecond: 2000,
    // A webhook host on a private network is one the service refuses (422) by its own rule.
    resolver: async (host) => (host.startsWith('internal.') ? ['10.0.0.7'] : ['93.184.216.34']),
  });
  conn = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
});
afterAll(async () => {
  await sb?.close();
});
afterEach(() => sb.faults.clear());

async function failure(p: Promise<unknown>): Promise<MakeModuleError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MakeModuleError);
  const e = err as MakeModuleError;
  expect(e.message).not.toContain(sb.apiKey);
  expect(e.message).not.toContain(sb.webhookSecret);
  expect(e.message).not.toMatch(/undefined|\{\{/);
  return e;
}

/** The default account's jobs, newest first, as List bulk jobs shows them (the list carries no name). */
async function jobIds(): Promise<string[]> {
  const r = await runModule('listJobs', { limit: 100 }, conn);
  return (r.bundles as { job_id: string }[]).map((j) => j.job_id);
}

/** Runs Submit a bulk verification to its failure: the error, and how many jobs the run created. */
async function submitFails(
  input: Record<string, unknown>,
  c: MakeConnection = conn,
): Promise<{ e: MakeModuleError; added: number }> {
  const before = new Set(await jobIds());
  const e = await failure(runModule('submitBulk', input, c));
  return { e, added: (await jobIds()).filter((id) => !before.has(id)).length };
}

const MAY_BE_CHARGED = /may have been accepted and charged: look at List bulk jobs/;

describe('Submit a bulk verification never lets Make rerun a list that may have been charged', () => {
  it("a gateway's 503 page after the job was created: one job, charged once, RuntimeError saying to look at List bulk jobs", async () => {
    sb.faults.failNext({ path: '/v1/verify/bulk', status: 503, when: 'after' });
    const before = sb.ledger().credits;
    const emails = ['valid.g1@example.com', 'valid.g2@example.com', 'valid.g3@example.com'];
    const { e, added } = await submitFails({ input_as: 'array', emails, name: 'gateway-503' });
    expect(added).toBe(1);
    expect(e.statusCode).toBe(503);
    expect(e.type).toBe('RuntimeError');
    expect(RETRIED_BY_MAKE).not.toContain(e.type);
    expect(e.message).toMatch(/^Make could not tell whether the service took the list/);
    expect(e.message).toMatch(/HTTP 503: no reason given\)/);
    expect(e.message).toMatch(MAY_BE_CHARGED);
    expect(e.message).not.toMatch(/nothing was charged|safe to run again/i);
    // One job, charged once: List bulk jobs shows the user what happened.
    expect(sb.ledger().credits).toBe(before - 3);
  });

  it("the service's own 503 (its JSON error and Retry-After): ConnectionError, which Make may rerun; nothing was created", async () => {
    sb.faults.failNext({ path: '/v1/verify/bulk', status: 503, retryAfterSeconds: 5 });
    const before = sb.ledger();
    const { e, added } = await submitFails({
      input_as: 'array',
      emails: ['valid.s1@example.com'],
      name: 'svc-503',
    });
    expect(added).toBe(0);
    expect(e.type).toBe('ConnectionError');
    expect(e.message).toMatch(/^The service refused the list for now/);
    expect(e.message).toMatch(
      /HTTP 503: Injected fault: the sandbox was told to answer 503 here\.\)\. It is safe to run again after \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC/,
    );
    expect(e.message).toMatch(/safe to run again/);
    expect(sb.ledger()).toEqual(before);
  });

  it('new jobs paused (the service 503): ConnectionError with the service reason', async () => {
    sb.faults.pauseNewJobs({ retryAfterSeconds: 20 });
    const before = sb.ledger();
    const e = await failure(
      runModule('submitBulk', { input_as: 'array', emails: ['valid.p1@example.com'] }, conn),
    );
    expect(e.type).toBe('ConnectionError');
    expect(e.message).toMatch(/HTTP 503: .*paused/i);
    expect(sb.ledger()).toEqual(before);
  });

  it("the service's own 429 (its JSON error and X-RateLimit-Reset): RateLimitError naming the reset; nothing was created", async () => {
    sb.faults.failNext({ path: '/v1/verify/bulk', status: 429, retryAfterSeconds: 30 });
    const before = sb.ledger();
    const { e, added } = await submitFails({
      input_as: 'array',
      emails: ['valid.r1@example.com'],
      name: 'svc-429',
    });
    expect(added).toBe(0);
    expect(e.type).toBe('RateLimitError');
    expect(e.message).toMatch(/^The service refused the list for now: over the allowance/);
    expect(e.message).toMatch(/HTTP 429: Injected fault/);
    // The reset as a date, never raw epoch seconds.
    expect(e.message).toMatch(/fits again after \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC/);
    expect(e.message).not.toMatch(/\d{10}/);
    expect(sb.ledger()).toEqual(before);
  });

  it.each([
    [429, 'RateLimitError', /fits again after \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC/],
    [503, 'ConnectionError', /after \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC/],
  ] as const)(
    "the service's own %i with a body that is not JSON (the spec shows no error body): still the rerun type, read from the status and its wait header; nothing created",
    async (status, type, header) => {
      const proxy = await garblingProxy(sb.origin, 'plain-errors');
      try {
        sb.faults.failNext({ path: '/v1/verify/bulk', status, retryAfterSeconds: 30 });
        const before = sb.ledger();
        const { e, added } = await submitFails(
          { input_as: 'array', emails: ['valid.t1@example.com'], name: `plain-${status}` },
          { ...conn, baseUrl: `${proxy.origin}/api` },
        );
        expect(added).toBe(0);
        expect(e.type).toBe(type);
        expect(e.message).toMatch(header);
        expect(e.message).toMatch(/safe to run again/);
        expect(sb.ledger()).toEqual(before);
      } finally {
        await proxy.close();
      }
    },
  );

  it('a 429 from something in front of the service, after the job was created: RuntimeError, one job', async () => {
    sb.faults.failNext({ path: '/v1/verify/bulk', status: 429, when: 'after' });
    const { e, added } = await submitFails({
      input_as: 'array',
      emails: ['valid.q1@example.com'],
      name: 'gw-429',
    });
    expect(added).toBe(1);
    expect(e.type).toBe('RuntimeError');
    expect(e.message).toMatch(/HTTP 429: no reason given\)/);
    expect(e.message).toMatch(MAY_BE_CHARGED);
  });

  it.each([500, 502, 504])(
    'a %i (even with the service JSON body) proves nothing: RuntimeError, may be charged',
    async (status) => {
      sb.faults.failNext({ path: '/v1/verify/bulk', status, when: 'after', from: 'service' });
      const name = `after-${status}`;
      const { e, added } = await submitFails({ input_as: 'array', emails: ['valid.x1@example.com'], name });
      expect(added).toBe(1);
      expect(e.type).toBe('RuntimeError');
      expect(e.message).toContain(`HTTP ${status}`);
      expect(e.message).toMatch(MAY_BE_CHARGED);
    },
  );

  it('a 202 a gateway garbled: the valid directive stops it as a RuntimeError, not an empty success; one job', async () => {
    // A real proxy in front of the sandbox: the job is created and charged there, the answer comes
    // back as a page Make cannot read.
    const proxy = await garblingProxy(sb.origin);
    try {
      const before = sb.ledger().credits;
      const { e, added } = await submitFails(
        { input_as: 'array', emails: ['valid.v1@example.com', 'valid.v2@example.com'], name: 'garbled-202' },
        { ...conn, baseUrl: `${proxy.origin}/api` },
      );
      expect(added).toBe(1);
      expect(e.statusCode).toBe(202);
      expect(e.type).toBe('RuntimeError');
      expect(e.message).toMatch(/^Make could not read the service's answer \(HTTP 202\)/);
      expect(e.message).toMatch(MAY_BE_CHARGED);
      expect(sb.ledger().credits).toBe(before - 2);
    } finally {
      await proxy.close();
    }
  });

  it("a connection cut mid-answer: Make's own ConnectionError, which the app cannot type (a known limit in the README); one job", async () => {
    sb.faults.failNext({ path: '/v1/verify/bulk', drop: 'mid-body' });
    const { e, added } = await submitFails({
      input_as: 'array',
      emails: ['valid.d1@example.com'],
      name: 'cut-202',
    });
    expect(added).toBe(1);
    expect(e.type).toBe('ConnectionError');
    expect(e.typedByMake).toBe(true);
  });

  it('422 by the service own rule (a webhook host on a private network): DataError, nothing charged, its reason', async () => {
    const before = sb.ledger();
    const { e, added } = await submitFails({
      input_as: 'array',
      emails: ['valid.h1@example.com'],
      webhook_url: 'https://internal.example.com/hook',
    });
    expect(added).toBe(0);
    expect(e.type).toBe('DataError');
    expect(e.message).toMatch(/^The service refused the list and nothing was charged \(HTTP 422: .*webhook/i);
    expect(sb.ledger()).toEqual(before);
  });

  it('422: DataError, nothing charged (the spec says so), the refused reason and addresses named', async () => {
    sb.faults.failNext({ path: '/v1/verify/bulk', status: 422 });
    const before = sb.ledger();
    const e = await failure(
      runModule('submitBulk', { input_as: 'array', emails: ['valid.u1@example.com'] }, conn),
    );
    expect(e.type).toBe('DataError');
    expect(e.message).toMatch(
      /^The service refused the list and nothing was charged \(HTTP 422: Injected fault/,
    );
    expect(e.message).toMatch(/Addresses it refused: none named/);
    expect(sb.ledger()).toEqual(before);
  });
});

describe('Verify an email address', () => {
  it("the service's 408: RuntimeError saying the credit was refunded (not rerun by Make)", async () => {
    const before = sb.ledger().credits;
    const e = await failure(runModule('verifyEmail', { email: 'slow.one@example.com' }, conn));
    expect(e.statusCode).toBe(408);
    expect(e.type).toBe('RuntimeError');
    expect(e.message).toMatch(
      /^The address took longer than 30 seconds to verify and the service refunded its credit \(HTTP 408: .+\)/,
    );
    expect(sb.ledger().credits).toBe(before);
  });

  it("a proxy's 408 page after the address was verified: RuntimeError, may have been charged 1 credit", async () => {
    sb.faults.failNext({ path: '/v1/verify/single', status: 408, when: 'after' });
    const before = sb.ledger().credits;
    const e = await failure(runModule('verifyEmail', { email: 'valid.t1@example.com' }, conn));
    expect(e.type).toBe('RuntimeError');
    expect(e.message).toMatch(
      /did not come from the service, so it may have been verified and charged 1 credit/,
    );
    expect(sb.ledger().credits).toBe(before - 1);
  });

  it("a gateway's 503 after the address was verified: RuntimeError, charged once", async () => {
    sb.faults.failNext({ path: '/v1/verify/single', status: 503, when: 'after' });
    const before = sb.ledger().credits;
    const e = await failure(runModule('verifyEmail', { email: 'valid.t2@example.com' }, conn));
    expect(e.type).toBe('RuntimeError');
    expect(e.message).toMatch(
      /may have been verified and charged 1 credit; running this module again verifies it again/,
    );
    expect(sb.ledger().credits).toBe(before - 1);
  });

  // A 500 or 502 is a Make error, never a verdict. Its type is RuntimeError, not the ConnectionError
  // Make would rerun: the check may have been made and charged before the answer failed, and a rerun
  // would charge it again (harness rule chargeNotReplayed).
  it.each([
    [500, 'before'],
    [500, 'after'],
    [502, 'before'],
    [502, 'after'],
  ] as const)(
    'the service answering %i (%s the check): a Make error, never a verdict',
    async (status, when) => {
      sb.faults.failNext({ path: '/v1/verify/single', status, when });
      const before = sb.ledger().credits;
      const run = runModule('verifyEmail', { email: `valid.g${status}${when}@example.com` }, conn);
      const e = await failure(run);
      expect(e.statusCode).toBe(status);
      expect(e.type).toBe('RuntimeError');
      expect(RETRIED_BY_MAKE).not.toContain(e.type);
      expect(e.message).toMatch(/may have been verified and charged 1 credit/);
      expect(e.message).not.toMatch(/Valid|Invalid \/|safe_to_send|Catch-All/);
      expect(sb.ledger().credits).toBe(when === 'after' ? before - 1 : before);
    },
  );

  it("the service's own 429: RateLimitError", async () => {
    sb.faults.failNext({ path: '/v1/verify/single', status: 429, retryAfterSeconds: 10 });
    const before = sb.ledger().credits;
    const e = await failure(runModule('verifyEmail', { email: 'valid.t3@example.com' }, conn));
    expect(e.type).toBe('RateLimitError');
    expect(sb.ledger().credits).toBe(before);
  });
});

describe('the key, the account and the credits', () => {
  it('401 for a revoked key: InvalidAccessTokenError (paste a new key), on a read and on a submission', async () => {
    const other = sb.addAccount({ plan: 'pro', credits: 5, keys: [{ revoked: true }] });
    const c = { ...conn, apiKey: other.apiKey };
    for (const run of [
      () => runModule('getCredits', {}, c),
      () => runModule('submitBulk', { input_as: 'array', emails: ['valid.k1@example.com'] }, c),
    ]) {
      const e = await failure(run());
      expect(e.type).toBe('InvalidAccessTokenError');
      expect(e.message).toMatch(/^The service refused the API key \(HTTP 401: This API key has been revoked/);
      expect(e.message).toMatch(/paste a current key/);
    }
  });

  it('403 for an account without API access: not a reconnect type; the service reason and "a new key will not help"', async () => {
    const free = sb.addAccount({ plan: null, credits: 50 });
    const c = { ...conn, apiKey: free.apiKey };
    const runs: (() => Promise<unknown>)[] = [
      () => runModule('getCredits', {}, c),
      () => runModule('submitBulk', { input_as: 'array', emails: ['valid.n1@example.com'] }, c),
      () => runModule('verifyEmail', { email: 'valid.n2@example.com' }, c),
      () => testConnection(c),
    ];
    for (const run of runs) {
      const e = await failure(run());
      expect(e.statusCode).toBe(403);
      expect(e.type).toBe('RuntimeError');
      expect(DISABLES_SCENARIO).not.toContain(e.type);
      expect(e.message).toMatch(/HTTP 403: API access needs a paid account/);
      expect(e.message).toMatch(/new key for the same account will not help/);
    }
    expect(sb.ledger(free.accountId).credits).toBe(50);
  });

  it('402: RuntimeError with the service reason; the app itself claims nothing about charges', async () => {
    const poor = sb.addAccount({ plan: 'pro', credits: 0 });
    const e = await failure(
      runModule('verifyEmail', { email: 'valid.a@example.com' }, { ...conn, apiKey: poor.apiKey }),
    );
    expect(e.statusCode).toBe(402);
    expect(e.type).toBe('RuntimeError');
    expect(e.message).toMatch(
      /^The account has too few credits for this \(HTTP 402: This call needs 1 credits/,
    );
    expect(e.message.replace(/\(HTTP 402: [^)]*\)/, '')).not.toMatch(/charged/);
  });
});

describe('modules that only read may be rerun by Make', () => {
  it('503 and 429 on a read are ConnectionError and RateLimitError, whoever sent them', async () => {
    sb.faults.failNext({ path: '/v1/account/credits', status: 503, when: 'after' });
    expect((await failure(runModule('getCredits', {}, conn))).type).toBe('ConnectionError');
    sb.faults.failNext({ path: '/v1/jobs', status: 429, retryAfterSeconds: 30 });
    const e = await failure(runModule('listJobs', {}, conn));
    expect(e.type).toBe('RateLimitError');
    expect(e.message).toMatch(/safe to run again after \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC/);
  });

  it.each([500, 502, 504])(
    '%i on a read: ConnectionError (Make retries it; a read is safe to rerun)',
    async (status) => {
      sb.faults.failNext({ path: '/v1/account/credits', status });
      const e = await failure(runModule('getCredits', {}, conn));
      expect(e.type).toBe('ConnectionError');
      expect(e.message).toMatch(
        new RegExp(`^The service failed to answer for now \\(HTTP ${status}: Injected fault`),
      );
    },
  );

  it('Make an API call: a POST to the bulk endpoint after a gateway 503 is a RuntimeError; a GET is a ConnectionError', async () => {
    sb.faults.failNext({ path: '/v1/verify/bulk', status: 503, when: 'after' });
    const post = await failure(
      runModule(
        'makeApiCall',
        {
          url: '/v1/verify/bulk',
          method: 'POST',
          body_type: 'collection',
          body: { emails: ['valid.m1@example.com'] },
        },
        conn,
      ),
    );
    expect(post.type).toBe('RuntimeError');
    expect(post.message).toMatch(/A POST may have been acted on and charged: look at List bulk jobs/);
    sb.faults.failNext({ path: '/v1/verify/bulk', status: 500, when: 'after', from: 'service' });
    const post500 = await failure(
      runModule(
        'makeApiCall',
        {
          url: '/v1/verify/bulk',
          method: 'POST',
          body_type: 'collection',
          body: { emails: ['valid.m2@example.com'] },
        },
        conn,
      ),
    );
    expect(post500.type).toBe('RuntimeError');
    expect(post500.message).toMatch(/HTTP 500: .+ a POST may have been acted on and charged/);
    sb.faults.failNext({ path: '/v1/jobs', status: 503, when: 'after' });
    const get = await failure(runModule('makeApiCall', { url: '/v1/jobs', method: 'GET' }, conn));
    expect(get.type).toBe('ConnectionError');
  });
});

describe('a job that fails midway', () => {
  it('Wait returns it as finished with its error, and its stored rows are still listed', async () => {
    const emails = Array.from({ length: 200 }, (_, i) => `valid.f${i}@example.com`);
    // Armed for the next job before it is submitted: at this time scale a 200-row job can finish
    // before the submit module returns, and failJob by id would then find it already completed.
    sb.faults.failJob(undefined, { afterRows: 50, error: 'mail server farm unreachable' });
    const submitted = await runModule('submitBulk', { input_as: 'array', emails }, conn);
    const jobId = (submitted.bundles[0] as { job_id: string }).job_id;
    const waited = await runModule('waitForJob', { job_id: jobId }, conn, { repeatDelayMs: 20 });
    const job = waited.bundles[0] as { status: string; terminal: boolean; error: string; processed: number };
    expect(job.terminal).toBe(true);
    expect(job.status).toBe('failed');
    expect(job.error).toBe('mail server farm unreachable');
    expect(job.processed).toBe(50);
    const rows = await runModule('listResults', { job_id: jobId, start_page: 1, per_page: 20 }, conn);
    expect(rows.bundles.length).toBe(job.processed);
    expect(rows.bundles.length).toBeGreaterThan(0);
  });
});

describe('connections between Make and the service', () => {
  /**
   * In front of the sandbox: answers on a kept-alive connection, and closes that connection when a
   * second request comes on it, unanswered, as a server whose keep-alive timeout fires just as the
   * request arrives does.
   */
  async function closingIdleConnections(target: string) {
    const served = new WeakSet<object>();
    const server: Server = createServer((req, res) => {
      if (served.has(req.socket)) return req.socket.destroy();
      served.add(req.socket);
      const up = httpRequest(`${target}${req.url ?? '/'}`, {
        method: req.method,
        headers: { ...req.headers, host: new URL(target).host },
        agent: false,
      });
      up.on('response', (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, {
          'content-type': 'application/json',
          connection: 'keep-alive',
        });
        upRes.pipe(res);
      });
      req.pipe(up);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      baseUrl: `http://127.0.0.1:${port}/api`,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it('each request goes on a connection of its own, so a connection the other end closed is never reused', async () => {
    const front = await closingIdleConnections(sb.origin);
    try {
      // Get credit balance makes two requests a run; five runs, every one answered.
      for (let i = 0; i < 5; i++) {
        const r = await runModule('getCredits', {}, { ...conn, baseUrl: front.baseUrl });
        expect(r.requests).toHaveLength(2);
      }
    } finally {
      await front.close();
    }
  });

  it("a request sent and never answered is still Make's ConnectionError, typed by Make", async () => {
    sb.faults.failNext({ path: '/v1/account/credits', drop: true });
    const e = await failure(runModule('getCredits', {}, conn));
    expect(e.type).toBe('ConnectionError');
    expect(e.typedByMake).toBe(true);
    expect(e.message).toMatch(/^No answer: /);
  });
});

/**
 * A gateway in front of the sandbox that passes each request on and answers a bulk submission's 202
 * with an HTML page: the job exists and is charged, the answer is unreadable.
 */
async function garblingProxy(
  target: string,
  /** 'plain-errors': keeps every answer's status and headers but turns an error body into plain text. */
  mode: 'garble-202' | 'plain-errors' = 'garble-202',
): Promise<{ origin: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const up = httpRequest(
        `${target}${req.url ?? '/'}`,
        { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
        (upRes) => {
          const body: Buffer[] = [];
          upRes.on('data', (c: Buffer) => body.push(c));
          upRes.on('end', () => {
            if (mode === 'plain-errors' && (upRes.statusCode ?? 0) >= 400) {
              const headers = { ...upRes.headers, 'content-type': 'text/plain' };
              delete headers['content-length'];
              res.writeHead(upRes.statusCode!, headers);
              res.end('Too Many Requests');
              return;
            }
            if (mode === 'garble-202' && req.method === 'POST' && upRes.statusCode === 202) {
              res.writeHead(202, { 'Content-Type': 'text/html' });
              res.end('<html><body>Accepted</body></html>');
              return;
            }
            res.writeHead(upRes.statusCode ?? 502, upRes.headers);
            res.end(Buffer.concat(body));
          });
        },
      );
      up.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
