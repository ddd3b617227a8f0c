/**
 * The bad-input table for every Zapier operation: each case gets a clear error naming the field,
 * before any request is sent (a catch-all interceptor counts requests to the API host).
 */
import { BASE, KEY, run, steps, useBaseUrl, zapierError, type Step, type AnyBundle } from './helpers';
import { requestCounter, useNock } from './mock-api';

useBaseUrl(() => BASE);
useNock();

interface Case {
  name: string;
  step: Step;
  bundle: AnyBundle;
  field: string;
  /** Part of the message that tells the user what to do. */
  says: RegExp;
}

const auth = { api_key: KEY };
const list = (inputData: Record<string, unknown>): AnyBundle => ({ authData: auth, inputData });
const tooMany = Array.from({ length: 50_001 }, (_, i) => `lead${i}@acme-corp.com`);
const listSteps = [
  ['Submit Bulk Verification', steps.bulk],
  ['Verify List and Wait for Results', steps.wait],
] as const;

const cases: Case[] = [
  {
    name: 'Get Credit Balance: Minimum Credits not a whole number',
    step: steps.credits,
    bundle: list({ minimum_credits: '-3' }),
    field: 'minimum_credits',
    says: /Minimum Credits must be a whole number/,
  },
  ...listSteps.flatMap(([label, step]) => [
    { name: `${label}: no addresses`, step, bundle: list({}), field: 'emails', says: /address/ },
    {
      name: `${label}: 0 items (empty list)`,
      step,
      bundle: list({ emails: [] }),
      field: 'emails',
      says: /address/,
    },
    {
      name: `${label}: only malformed addresses`,
      step,
      bundle: list({ emails: ['nope', 'a@'] }),
      field: 'emails',
      says: /malformed/,
    },
    {
      name: `${label}: name of 256 characters`,
      step,
      bundle: list({ emails: ['a@acme-corp.com'], name: 'x'.repeat(256) }),
      field: 'name',
      says: /255/,
    },
    {
      name: `${label}: unknown priority`,
      step,
      bundle: list({ emails: ['a@acme-corp.com'], priority: 'asap' }),
      field: 'priority',
      says: /normal/,
    },
  ]),
  {
    name: 'Verify List and Wait for Results: 50,001 unique addresses',
    step: steps.wait,
    bundle: list({ emails: tooMany }),
    field: 'emails',
    says: /Submit Bulk Verification/,
  },
  {
    name: 'Verify List and Wait for Results: unknown "If the Job Fails" choice',
    step: steps.wait,
    bundle: list({ emails: ['a@acme-corp.com'], on_failure: 'ignore' }),
    field: 'on_failure',
    says: /Continue with the rows verified so far/,
  },
  {
    name: 'Find Bulk Job: no job',
    step: steps.findJob,
    bundle: list({ job_id: '' }),
    field: 'job_id',
    says: /pick a job/,
  },
  {
    name: 'Find Bulk Job Results: no job',
    step: steps.results,
    bundle: list({ job_id: ' ' }),
    field: 'job_id',
    says: /pick a job/,
  },
  {
    name: 'Find Bulk Job Results: unknown group',
    step: steps.results,
    bundle: list({ job_id: 'job_1', group: 'green' }),
    field: 'group',
    says: /safe_to_send/,
  },
  {
    name: 'Revoke API Key: no key ID',
    step: steps.revoke,
    bundle: list({ key_id: '' }),
    field: 'key_id',
    says: /key ID/,
  },
  {
    name: 'Revoke API Key: a key pasted instead of its ID',
    step: steps.revoke,
    bundle: list({ key_id: 'evf_live_abcdef' }),
    field: 'key_id',
    says: /never paste a key/,
  },
];

// Every operation, and the connection test, refuses a missing key and a key without the evf_ prefix.
const everyStep: [string, Step, Record<string, unknown>][] = [
  ['connection test', steps.authTest, {}],
  ['Verify Email Address', steps.verify, { email: 'a@acme-corp.com' }],
  ['Submit Bulk Verification', steps.bulk, { emails: ['a@acme-corp.com'] }],
  ['Verify List and Wait for Results', steps.wait, { emails: ['a@acme-corp.com'] }],
  ['Revoke API Key', steps.revoke, { key_id: 'key_1' }],
  ['Find Bulk Job', steps.findJob, { job_id: 'job_1' }],
  ['Find Bulk Job Results', steps.results, { job_id: 'job_1' }],
  ['Get Credit Balance', steps.credits, {}],
  ['Bulk Job Finished', steps.finished, {}],
  ['Recent Bulk Jobs', steps.recent, {}],
];
for (const [label, step, inputData] of everyStep) {
  cases.push({
    name: `${label}: missing key`,
    step,
    bundle: { authData: {}, inputData },
    field: 'api_key',
    says: /Profile, then API/,
  });
  cases.push({
    name: `${label}: a key of only spaces and a line break (trimmed to nothing)`,
    step,
    bundle: { authData: { api_key: '  \n' }, inputData },
    field: 'api_key',
    says: /Profile, then API/,
  });
  cases.push({
    name: `${label}: key without the evf_ prefix`,
    step,
    bundle: { authData: { api_key: 'sk_live_123456' }, inputData },
    field: 'api_key',
    says: /evf_/,
  });
}

// The callback URL Zapier gives goes through the same webhook_url rules as any other.
const badCallbackUrls: [string, string][] = [
  ['http', 'http://hooks.zapier.com/hooks/catch/1/abc'],
  ['localhost', 'https://localhost/hooks/1'],
  ['127.0.0.1', 'https://127.0.0.1/hooks/1'],
  ['10.x', 'https://10.1.2.3/hooks/1'],
  ['172.16.x', 'https://172.16.5.4/hooks/1'],
  ['192.168.x', 'https://192.168.1.20/hooks/1'],
  ['169.254.x', 'https://169.254.169.254/latest'],
  ['[::1]', 'https://[::1]/hooks/1'],
  ['fc00::/7', 'https://[fd12:3456::1]/hooks/1'],
  ['port under 1024 other than 443', 'https://hooks.zapier.com:80/hooks/1'],
  ['user:pass@', 'https://user:pass@hooks.zapier.com/hooks/1'],
  ['2,049 characters', `https://hooks.zapier.com/${'a'.repeat(2049 - 'https://hooks.zapier.com/'.length)}`],
];
for (const [rule, url] of badCallbackUrls) {
  if (rule === '2,049 characters') expect(url).toHaveLength(2049);
  cases.push({
    name: `Verify List and Wait for Results: callback URL breaking "${rule}"`,
    step: (z, b) => steps.wait({ ...z, generateCallbackUrl: () => url }, b),
    bundle: list({ emails: ['a@acme-corp.com'] }),
    field: 'webhook_url',
    says: /./,
  });
}

it('has a row for every operation of the app', () => {
  expect(cases.length).toBeGreaterThanOrEqual(44);
});

it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
  const counter = requestCounter();
  const error = await zapierError(run(c.step, c.bundle));
  expect(counter.count()).toBe(0);
  expect(error.code).toBe(`invalid_${c.field}`);
  expect(error.status).toBe(400);
  expect(error.message).toMatch(c.says);
  expect(error.message).not.toContain(KEY);
});

// A per-row Zap (new lead, Verify Email Address, Paths by Group) must put a typo on the invalid path:
// an error would stop the run, and Zapier turns off Zaps that error often.
const badCells: [string, unknown][] = [
  ['malformed', 'ada@@acme'],
  ['not an address', 'n/a'],
  ['empty', ''],
  ['absent (Zapier drops empty values)', undefined],
  ['two addresses', 'a@b.co, c@d.co'],
  ['no domain', 'a@'],
  ['space in the domain', 'anna@acme corp.com'],
];

it.each(badCells)(
  'Verify Email Address: a %s cell is a free Invalid verdict, nothing sent',
  async (_name, email) => {
    const counter = requestCounter();
    const inputData = email === undefined ? {} : { email };
    const out = await run(steps.verify, list(inputData));
    expect(counter.count()).toBe(0);
    expect(out).toMatchObject({
      category: 'Invalid',
      group: 'invalid',
      safe_to_send: false,
      valid: false,
      credits_used: 0,
    });
    expect(out.reason).toMatch(/Nothing was sent or charged/);
    expect(out.details.label_reasons).toEqual([out.reason]);
    // The same keys as any verdict the service gives, so a Filter or Paths step reads it alike.
    const { verifyEmailSample } = await import('../src/samples');
    // Every key but the balance: nothing was sent, so there is none to give, and an integer field is never null.
    for (const key of Object.keys(verifyEmailSample))
      if (key !== 'credits_remaining') expect(out).toHaveProperty(key);
    expect(out).not.toHaveProperty('credits_remaining');
  },
);

it('Verify Email Address: josé@... is told what is wrong (the name before the @), not to fix its domain', async () => {
  const counter = requestCounter();
  const out = await run(steps.verify, list({ email: 'josé@acme-corp.com' }));
  expect(counter.count()).toBe(0);
  expect(out).toMatchObject({ group: 'invalid', credits_used: 0 });
  expect(out.reason).toMatch(/non-ASCII character .* before the @/);
  expect(out.reason).not.toMatch(/domain|xn--/);
});

it('Verify Email Address: a bad cell with no connection still errors (the connection is the problem)', async () => {
  const counter = requestCounter();
  const error = await zapierError(run(steps.verify, { authData: {}, inputData: { email: 'ada@@acme' } }));
  expect(counter.count()).toBe(0);
  expect(error.code).toBe('invalid_api_key');
});
