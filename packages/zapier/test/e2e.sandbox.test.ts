/**
 * The Zapier app against a running sandbox of the service, through Zapier's app tester: real HTTP,
 * real credit ledger, and a real signed callback delivered to a local receiver that stands in for
 * Zapier's callback URL.
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { assertMatches } from '@evf/contract';
import { App, expectNoSecrets, run, steps, zapierError } from './helpers';
import { useSandboxSession } from './sandbox-session';

const session = useSandboxSession();
const { auth, callbackFor } = session;
let sb: Sandbox;
beforeAll(() => {
  sb = session.sb;
});

/** The sandbox's outcome table (by local part), written out independently of the client's mapping. */
const EXPECTED: Record<string, { category: string; group: string }> = {
  'valid.ada@acme-corp.com': { category: 'Valid', group: 'safe_to_send' },
  'invalid.bob@acme-corp.com': { category: 'Invalid / Disabled / No Mail Server', group: 'invalid' },
  'disabled.dan@acme-corp.com': { category: 'Invalid / Disabled / No Mail Server', group: 'invalid' },
  'trap.tim@acme-corp.com': { category: 'Spam Trap', group: 'invalid' },
  'temp.tina@acme-corp.com': { category: 'Disposable', group: 'invalid' },
  'info@acme-corp.com': { category: 'Role', group: 'risky' },
  'catchall.cat@acme-corp.com': { category: 'Catch-All', group: 'risky' },
  'full.fay@acme-corp.com': { category: 'Inbox Full', group: 'risky' },
  'unknown.uma@acme-corp.com': { category: 'Unknown / Not Verified (refunded)', group: 'risky' },
  'notverified.ned@acme-corp.com': { category: 'Unknown / Not Verified (refunded)', group: 'risky' },
};
const REFUNDED = 2;
const LIST = [...Object.keys(EXPECTED), 'VALID.ADA@acme-corp.com', 'broken@'];

it('connects: the test request works and the label names the account (D003), even for a pasted key with a newline', async () => {
  const account = await run(steps.authTest, { authData: { ...auth(), api_key: `${sb.apiKey}\n` } });
  const label = await run(steps.connectionLabel, { authData: auth(), inputData: account });
  // GET /v1/account in the spec's shape shows plan, credits and credits_used_today only.
  expect(label).toBe(`Key ending ${sb.apiKey.slice(-4)} (${account.plan} plan)`);
  // Where the service shows further fields (the sandbox's accountExtras option), the label uses them.
  const extras = await startSandbox({ port: 0, accountExtras: true });
  const baseUrl = process.env.EVF_BASE_URL;
  process.env.EVF_BASE_URL = extras.baseUrl;
  try {
    const first = await run(steps.authTest, { authData: { api_key: extras.apiKey } });
    const firstLabel = await run(steps.connectionLabel, { authData: {}, inputData: first });
    expect(firstLabel).toBe(`${first.name} (${first.email})`);
    const other = extras.addAccount({
      id: 'acct_zapier_label',
      name: 'Second Co',
      email: 'ops@second.example',
      plan: 'pro',
      credits: 1_000,
    });
    const otherAccount = await run(steps.authTest, { authData: { api_key: other.apiKey } });
    const otherLabel = await run(steps.connectionLabel, { authData: {}, inputData: otherAccount });
    expect(otherLabel).toBe('Second Co (ops@second.example)');
    expect(otherLabel).not.toBe(firstLabel);
    expectNoSecrets([label, firstLabel, otherLabel], [sb.apiKey, extras.apiKey, other.apiKey]);
  } finally {
    process.env.EVF_BASE_URL = baseUrl;
    await extras.close();
  }
});

it('Verify Email Address: verdict, category fields, and 1 credit', async () => {
  const before = sb.ledger(sb.apiKey);
  const out = await run(steps.verify, {
    authData: auth(),
    inputData: { email: 'catchall.cat@acme-corp.com' },
  });
  assertMatches(
    'SingleResult',
    Object.fromEntries(
      Object.entries(out).filter(([k]) => !['category', 'group', 'safe_to_send'].includes(k)),
    ),
  );
  expect(out).toMatchObject({ category: 'Catch-All', group: 'risky', safe_to_send: false });
  expect(sb.ledger(sb.apiKey).charged - before.charged).toBe(1);
  expectNoSecrets(out, [sb.apiKey, sb.webhookSecret]);
});

it('Verify Email Address: a 408 from the service is an error in Zap history, its credit refunded', async () => {
  const before = sb.ledger(sb.apiKey);
  const error = await zapierError(
    run(steps.verify, { authData: auth(), inputData: { email: 'slow.sam@acme-corp.com' } }),
  );
  expect(error).toMatchObject({ code: 'verification_timeout', status: 408 });
  expect(error.message).toMatch(/refunded the credit/);
  expect(sb.ledger(sb.apiKey).credits).toBe(before.credits);
});

it('Verify List and Wait: signed callback accepted, every row categorized, credits = unique valid addresses minus refunds', async () => {
  const before = sb.ledger(sb.apiKey);
  const waiting = await run(session.wait, {
    authData: auth(),
    inputData: { emails: LIST, name: 'e2e list' },
  });
  expect(waiting).toMatchObject({
    waiting_for_callback: true,
    unique_count: 10,
    duplicates_removed: 1,
    malformed_removed: 1,
  });

  const callback = await callbackFor(waiting.job_id);
  expect(callback.headers['Http-X-Service-Signature']).toMatch(/^v1=[0-9a-f]{64}$/);
  const out = await run(steps.resume, {
    authData: auth(),
    inputData: { emails: LIST },
    outputData: waiting,
    rawRequest: callback,
  });

  expect(out).toMatchObject({
    job_id: waiting.job_id,
    status: 'completed',
    terminal: true,
    returned_rows: 10,
    truncated: false,
  });
  const byEmail = new Map(out.results.map((r: any) => [r.email.toLowerCase(), r]));
  for (const [email, want] of Object.entries(EXPECTED)) expect(byEmail.get(email)).toMatchObject(want);
  expect(out.counts).toEqual({ safe_to_send: 1, risky: 5, invalid: 4 });
  expect(out.malformed).toEqual([expect.objectContaining({ email: 'broken@', position: 12 })]);

  await sb.webhooksIdle();
  const after = sb.ledger(sb.apiKey);
  expect(after.charged - before.charged).toBe(10);
  expect(after.refunded - before.refunded).toBe(REFUNDED);
  expect(before.credits - after.credits).toBe(10 - REFUNDED);
  expectNoSecrets(out, [sb.apiKey, sb.webhookSecret]);
});

it('Verify Email Address: a gateway 502 after the service charged is an error that says a credit may be used', async () => {
  const before = sb.ledger(sb.apiKey);
  sb.faults.failNext({
    path: '/v1/verify/single',
    method: 'POST',
    status: 502,
    when: 'after',
    from: 'gateway',
  });
  const error = await zapierError(
    run(steps.verify, { authData: auth(), inputData: { email: 'valid.gate@acme-corp.com' } }),
  );
  expect(sb.ledger(sb.apiKey).charged - before.charged).toBe(1);
  expect(error).toMatchObject({ code: 'no_verdict', status: 502 });
  expect(error.message).toMatch(/answered HTTP 502\. The service may have verified it and used 1 credit\./);
  expect(error.message).not.toMatch(/refunded/);
});

it('Verify Email Address verifies user@bücher.de: sent in its xn-- form, answered as given, 1 credit', async () => {
  const before = sb.ledger(sb.apiKey);
  const sent = sb.requests.length;
  const out = await run(steps.verify, { authData: auth(), inputData: { email: 'user@bücher.de' } });
  const post = sb.requests.slice(sent).find((r) => r.path === '/v1/verify/single');
  expect(post).toBeDefined();
  expect(out).toMatchObject({ email: 'user@bücher.de', credits_used: 1 });
  expect(out.group).toMatch(/^(safe_to_send|risky|invalid)$/);
  expect(out.reason).not.toMatch(/Nothing was sent/);
  expect(sb.ledger(sb.apiKey).charged - before.charged).toBe(1);
});

it('Verify Email Address accepts a pasted "Name <address>" as a list step does, and verifies the address inside', async () => {
  const out = await run(steps.verify, {
    authData: auth(),
    inputData: { email: 'Ada Lovelace <valid.ada.pasted@acme-corp.com>' },
  });
  expect(out).toMatchObject({ email: 'valid.ada.pasted@acme-corp.com', category: 'Valid' });
});

it('job dropdown labels tell apart two jobs of one size submitted in the same minute', async () => {
  const a = await run(steps.bulk, { authData: auth(), inputData: { emails: ['valid.same1@acme-corp.com'] } });
  const b = await run(steps.bulk, { authData: auth(), inputData: { emails: ['valid.same2@acme-corp.com'] } });
  const dropdown = await run(steps.recent, { authData: auth(), inputData: {}, meta: { page: 0 } });
  const labels = dropdown.filter((j: any) => [a.job_id, b.job_id].includes(j.id)).map((j: any) => j.label);
  expect(labels).toHaveLength(2);
  expect(labels[0]).not.toBe(labels[1]);
});

describe('Verify List and Wait: a message that cannot be verified never loses the paid rows', () => {
  const emails = ['valid.one@acme-corp.com', 'valid.two@acme-corp.com', 'invalid.three@acme-corp.com'];
  async function submitted() {
    const before = sb.ledger(sb.apiKey).charged;
    const waiting = await run(session.wait, { authData: auth(), inputData: { emails } });
    const callback = await callbackFor(waiting.job_id);
    expect(sb.ledger(sb.apiKey).charged - before).toBe(3);
    return { waiting, callback };
  }

  it('handed to the step 310 s after delivery (past the 300 s signature window): rows read with the key, and the note says so', async () => {
    const { waiting, callback } = await submitted();
    const realNow = Date.now.bind(Date);
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() + 310_000);
    try {
      const out = await run(steps.resume, {
        authData: auth(),
        inputData: {},
        outputData: waiting,
        rawRequest: callback,
      });
      expect(out).toMatchObject({
        job_id: waiting.job_id,
        status: 'completed',
        returned_rows: 3,
        message_verified: false,
      });
      expect(out.note).toMatch(
        /too old.*later than the 5 minutes.*read from the service with the connection's API key/,
      );
    } finally {
      jest.restoreAllMocks();
    }
  });

  it('with a wrong but well-formed signing secret in the connection: rows read with the key, and the note says how to fix the secret', async () => {
    const { waiting, callback } = await submitted();
    const wrong = { ...auth(), webhook_secret: 'whsec_typed_wrong_by_hand_0000' };
    const out = await run(steps.resume, {
      authData: wrong,
      inputData: {},
      outputData: waiting,
      rawRequest: callback,
    });
    expect(out).toMatchObject({ returned_rows: 3, message_verified: false });
    expect(out.note).toMatch(
      /signature does not match.*Webhook Signing Secret in the connection is not the one under Profile, API, Webhooks/,
    );
    expectNoSecrets(out, [sb.apiKey, sb.webhookSecret, wrong.webhook_secret]);
  });

  it('a tampered message is not used: the job this step submitted is read with the key', async () => {
    const { waiting, callback } = await submitted();
    const tampered = { ...callback, content: callback.content.replace('"completed"', '"completed" ') };
    const out = await run(steps.resume, {
      authData: auth(),
      inputData: {},
      outputData: waiting,
      rawRequest: tampered,
    });
    expect(out).toMatchObject({ returned_rows: 3, message_verified: false });
    const good = await run(steps.resume, {
      authData: auth(),
      inputData: {},
      outputData: waiting,
      rawRequest: callback,
    });
    expect(good).toMatchObject({ returned_rows: 3, message_verified: true, note: '' });
  });
});

describe('Verify List and Wait: a job that fails midway', () => {
  const emails = Array.from({ length: 8 }, (_, i) => `valid.row${i}@acme-corp.com`);
  async function failedJob(inputData: Record<string, unknown>) {
    sb.faults.failJob(undefined, { afterRows: 3, error: 'Verification stopped midway (injected).' });
    const waiting = await run(session.wait, {
      authData: auth(),
      inputData: { emails, ...inputData },
    });
    const callback = await callbackFor(waiting.job_id);
    return { waiting, callback };
  }

  it('halts the step by default, saying what happened, how many rows were verified and how to get them', async () => {
    const { waiting, callback } = await failedJob({});
    const error = await zapierError(
      run(steps.resume, {
        authData: auth(),
        inputData: { emails },
        outputData: waiting,
        rawRequest: callback,
      }),
    );
    expect(error.name).toBe('HaltedError');
    expect(error.message).toMatch(
      new RegExp(
        `^Job ${waiting.job_id} failed after verifying 3 of 8 addresses: Verification stopped midway \\(injected\\)\\. The 3 verified rows are kept; read them with "Find Bulk Job Results"`,
      ),
    );
    expect(error.message).toMatch(/"If the Job Fails" to "Continue with the rows verified so far"/);
    // The rows really are there for the search the message names.
    const [rows] = await run(steps.results, { authData: auth(), inputData: { job_id: waiting.job_id } });
    expect(rows).toMatchObject({ status: 'failed', job_failed: true, returned_rows: 3, processed: 3 });
  });

  it('with "Continue with the rows verified so far", returns them, marked failed', async () => {
    const { waiting, callback } = await failedJob({ on_failure: 'continue' });
    const out = await run(steps.resume, {
      authData: auth(),
      inputData: { emails, on_failure: 'continue' },
      outputData: waiting,
      rawRequest: callback,
    });
    expect(out).toMatchObject({ status: 'failed', job_failed: true, returned_rows: 3, truncated: false });
    expect(out.failure_note).toMatch(/failed after verifying 3 of 8 addresses/);
    expect(out.note).toBe(out.failure_note);
    expect(out.error).toMatch(/midway/);
  });
});

it('Submit Bulk, then Find Bulk Job, Find Bulk Job Results, the dropdown and the Bulk Job Finished trigger', async () => {
  const submitted = await run(steps.bulk, {
    authData: auth(),
    inputData: { emails_text: Object.keys(EXPECTED).join('\n'), priority: 'high' },
  });
  expect(submitted).toMatchObject({ job_count: 1, total_emails: 10, credits_used: 10 });
  const jobId = submitted.job_id as string;

  let found: any[] = [];
  for (let i = 0; i < 100; i++) {
    found = await run(steps.findJob, { authData: auth(), inputData: { job_id: jobId } });
    if (found[0]?.terminal) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(found[0]).toMatchObject({ job_id: jobId, status: 'completed', processed: 10 });
  assertMatches('Job', found[0]);

  const [results] = await run(steps.results, {
    authData: auth(),
    inputData: { job_id: jobId, group: 'risky' },
  });
  expect(results.results.map((r: any) => r.email).sort()).toEqual(
    Object.entries(EXPECTED)
      .filter(([, v]) => v.group === 'risky')
      .map(([e]) => e)
      .sort(),
  );

  const dropdown = await run(steps.recent, { authData: auth(), inputData: {}, meta: { page: 0 } });
  expect(dropdown[0]).toMatchObject({ id: jobId });

  const finished = await run(steps.finished, { authData: auth(), inputData: {} });
  expect(finished.map((j: any) => j.id)).toContain(jobId);
  expect(finished.every((j: any) => j.id === j.job_id && ['completed', 'failed'].includes(j.status))).toBe(
    true,
  );
});

it('Get Credit Balance matches the ledger', async () => {
  const credits = await run(steps.credits, { authData: auth(), inputData: {} });
  expect(credits.credits).toBe(sb.ledger(sb.apiKey).credits);
  assertMatches('CreditBalance', credits);
});

it('Revoke API Key: a real second key is revoked (then refused); an unknown one gives not_found', async () => {
  const other = sb.addAccount({
    id: 'acct_zapier_revoke',
    plan: 'pro',
    credits: 100,
    keys: [{ id: 'key_main' }, { id: 'key_old' }],
  });
  const keys = sb.apiKeys(other.accountId);
  const main = keys.find((k) => k.keyId === 'key_main')!;
  const old = keys.find((k) => k.keyId === 'key_old')!;
  const out = await run(steps.revoke, {
    authData: { api_key: main.apiKey },
    inputData: { key_id: 'key_old' },
  });
  expect(out).toMatchObject({ key_id: 'key_old', revoked: true });
  const refused = await zapierError(run(steps.authTest, { authData: { api_key: old.apiKey } }));
  expect(refused.name).toBe('ExpiredAuthError');
  const missing = await run(steps.revoke, {
    authData: { api_key: main.apiKey },
    inputData: { key_id: 'key_does_not_exist' },
  });
  expect(missing).toMatchObject({ revoked: false, result: 'not_found' });
});

it('429 with a long X-RateLimit-Reset: Submit Bulk returns the address unsent and when to continue; nothing charged', async () => {
  const before = sb.ledger(sb.apiKey);
  sb.faults.failNext({ path: '/v1/verify/bulk', status: 429, retryAfterSeconds: 50_000 });
  const out = await run(steps.bulk, {
    authData: auth(),
    inputData: { emails: ['valid.x429@acme-corp.com'] },
  });
  expect(out).toMatchObject({
    job_count: 0,
    all_sent: false,
    stopped_by: 'allowance',
    unsent: ['valid.x429@acme-corp.com'],
  });
  // 50,000 spec seconds at time scale 0.01 = 500 real seconds.
  const waitS = (Date.parse(out.continue_after) - Date.now()) / 1000;
  expect(waitS).toBeGreaterThanOrEqual(490);
  expect(waitS).toBeLessThanOrEqual(501);
  expect(sb.ledger(sb.apiKey)).toEqual(before);
});

it('503 (new jobs paused): Submit Bulk returns the address unsent and when to continue; nothing charged', async () => {
  const before = sb.ledger(sb.apiKey);
  sb.faults.pauseNewJobs({ retryAfterSeconds: 60_000 });
  try {
    const out = await run(steps.bulk, {
      authData: auth(),
      inputData: { emails: ['valid.x503@acme-corp.com'] },
    });
    expect(out).toMatchObject({ job_count: 0, all_sent: false, stopped_by: 'paused' });
    const waitS = (Date.parse(out.continue_after) - Date.now()) / 1000;
    expect(waitS).toBeGreaterThanOrEqual(590);
    expect(waitS).toBeLessThanOrEqual(601);
  } finally {
    sb.faults.resumeNewJobs();
  }
  expect(sb.ledger(sb.apiKey)).toEqual(before);
});

it("402 (out of credits) halts with the service's reason, the Zap stays on; 401 asks to reconnect", async () => {
  const poor = sb.addAccount({ id: 'acct_zapier_poor', plan: 'pro', credits: 0 });
  const halted = await zapierError(
    run(steps.verify, { authData: { api_key: poor.apiKey }, inputData: { email: 'valid.x@acme-corp.com' } }),
  );
  expect(halted.name).toBe('HaltedError');
  expect(halted.message).toMatch(
    /too few credits for this step \(HTTP 402\)\. The service said: "This call needs 1 credits/,
  );
  expect(halted.message).toMatch(/Replay this run/);
  // The service's reason already says to buy credits: the advice is not said a second time.
  expect(halted.message.match(/\bbuy\b/gi)).toHaveLength(1);
  const expired = await zapierError(
    run(steps.findJob, { authData: { api_key: 'evf_not_a_real_key_000' }, inputData: { job_id: 'job_1' } }),
  );
  expect(expired.name).toBe('ExpiredAuthError');
  expect(expired.message).toMatch(/\(HTTP 401\).*reconnect the account in Zapier/);
});

it("403 (an account without API access) halts with the service's reason instead of asking to reconnect", async () => {
  const unpaid = sb.addAccount({ id: 'acct_zapier_unpaid', plan: null, credits: 0 });
  for (const [step, inputData] of [
    [steps.authTest, {}],
    [steps.verify, { email: 'valid.x@acme-corp.com' }],
    [steps.findJob, { job_id: 'job_1' }],
  ] as const) {
    const error = await zapierError(run(step, { authData: { api_key: unpaid.apiKey }, inputData }));
    expect(error.name).toBe('HaltedError');
    expect(error.message).toMatch(/\(HTTP 403\)\. The service said: "API access needs a paid account/);
    expect(error.message).toMatch(/A new key will not help/);
    expectNoSecrets(error, [unpaid.apiKey]);
  }
});

it('bad input against the sandbox: nothing sent, the ledger unchanged', async () => {
  const before = sb.ledger(sb.apiKey);
  const requestsBefore = sb.requests.length;
  for (const inputData of [
    { emails: ['broken@', 'also broken'] },
    { emails: ['valid.a@acme-corp.com'], name: 'n'.repeat(256) },
  ]) {
    const error = await zapierError(run(steps.bulk, { authData: auth(), inputData }));
    expect(error.code).toMatch(/^invalid_/);
  }
  expect(sb.requests.length).toBe(requestsBefore);
  expect(sb.ledger(sb.apiKey)).toEqual(before);
});

it('the connection test tells the signing-secret slips it can apart, before reading the account, and its help says how to check a secret', async () => {
  const requestsBefore = sb.requests.length;
  for (const [secret, says] of [
    [sb.apiKey, /That is an API key .*not the webhook signing secret/],
    [`${sb.webhookSecret}${sb.webhookSecret}`, /as if pasted twice/],
    ['sb_secret_123', /must start with "whsec_"/],
  ] as const) {
    const error = await zapierError(
      run(steps.authTest, { authData: { api_key: sb.apiKey, webhook_secret: secret } }),
    );
    expect(error.message).toMatch(/^Webhook Signing Secret \(in the connection\): /);
    expect(error.message).toMatch(says);
    expectNoSecrets(error, [sb.apiKey, sb.webhookSecret]);
  }
  expect(sb.requests.length).toBe(requestsBefore);
  // A well-formed secret that is not the account's passes: the service has nothing that checks one,
  // so the help says what a failed check at the first completion message does and how to copy it again.
  await run(steps.authTest, { authData: { api_key: sb.apiKey, webhook_secret: 'whsec_not_this_accounts' } });
  const help = App.authentication!.fields!.find((f) => f.key === 'webhook_secret')!.helpText!;
  expect(help).toMatch(/cannot check a secret/);
  expect(help).toMatch(/reads the job with the API key/);
  expect(help).toMatch(/Profile, API, Webhooks, copy the secret again/);
});

it("Zapier's own request logs (printed with LOG_TO_STDOUT/DETAILED_LOG_TO_STDOUT) never show the key or the secret", async () => {
  const printed: string[] = [];
  const spy = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    printed.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  });
  process.env.LOG_TO_STDOUT = '1';
  process.env.DETAILED_LOG_TO_STDOUT = '1';
  try {
    await run(steps.authTest, { authData: auth() });
    await run(steps.verify, { authData: auth(), inputData: { email: 'valid.log@acme-corp.com' } });
    // A pasted key with a trailing newline is sent trimmed: the logs must hide the trimmed form too.
    await run(steps.credits, { authData: { ...auth(), api_key: `${sb.apiKey}\n` }, inputData: {} });
    await zapierError(
      run(steps.findJob, {
        authData: { ...auth(), api_key: 'evf_wrong_key_for_log_test' },
        inputData: { job_id: 'job_1' },
      }),
    );
  } finally {
    delete process.env.LOG_TO_STDOUT;
    delete process.env.DETAILED_LOG_TO_STDOUT;
    spy.mockRestore();
  }
  const text = printed.join('\n');
  // The logs are really there (requests, responses, errors), so the check below means something.
  expect(text).toMatch(/v1\/account/);
  expect(text).toMatch(/ExpiredAuthError/);
  for (const secret of [sb.apiKey, sb.webhookSecret, 'evf_wrong_key_for_log_test'])
    expect(text).not.toContain(secret);
});

async function finishedJob(emails: string[]): Promise<string> {
  const submitted = await run(steps.bulk, { authData: auth(), inputData: { emails } });
  for (let i = 0; i < 200; i++) {
    const [job] = await run(steps.findJob, { authData: auth(), inputData: { job_id: submitted.job_id } });
    if (job.terminal) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return submitted.job_id;
}

it('connections dropped between pages are retried: every row comes back exactly once', async () => {
  const jobId = await finishedJob(Array.from({ length: 2_500 }, (_, i) => `valid.page${i}@acme-corp.com`));
  sb.faults.failNext({ path: /\/results$/, drop: 'before-response', count: 2 });
  const [out] = await run(steps.results, { authData: auth(), inputData: { job_id: jobId } });
  expect(out).toMatchObject({ truncated: false, returned_rows: 2_500 });
  expect(new Set(out.results.map((r: any) => r.email)).size).toBe(2_500);
});

// z.request's node-fetch 2 does not notice a body cut short (Content-Length unmet): it waits for the
// request timeout (10 s) before the client retries. Slow, but no row is lost or repeated.
it('a page cut mid-body is retried after the request timeout: still every row exactly once', async () => {
  const jobId = await finishedJob(Array.from({ length: 1_500 }, (_, i) => `valid.cut${i}@acme-corp.com`));
  sb.faults.failNext({ path: /\/results$/, drop: 'mid-body', count: 1 });
  const before = sb.requests.length;
  const [out] = await run(steps.results, { authData: auth(), inputData: { job_id: jobId } });
  expect(out).toMatchObject({ truncated: false, returned_rows: 1_500 });
  expect(new Set(out.results.map((r: any) => r.email)).size).toBe(1_500);
  // One cut page costs one request timeout and one resend, not a chain of them.
  const pageReads = sb.requests.slice(before).filter((r) => /\/results$/.test(r.path));
  expect(pageReads.length).toBe(new Set(pageReads.map((r) => r.query.page)).size + 1);
}, 60_000);
