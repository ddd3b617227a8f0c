import type { Sandbox } from '@evf/sandbox';
import { client, start, waitTerminal } from './helpers';

describe('sandbox conformance: authentication, keys and account isolation', () => {
  let sb: Sandbox;
  let call: ReturnType<typeof client>;
  let other: { apiKey: string; keyId: string; accountId: string };
  beforeAll(async () => {
    sb = await start({
      accounts: [
        { id: 'acct_a', plan: 'pro', credits: 1000, keys: [{ id: 'key_a1' }, { id: 'key_a2' }] },
        { id: 'acct_b', plan: 'growth', credits: 1000, keys: [{ id: 'key_b1' }] },
        { id: 'acct_free', plan: null, credits: 100 },
      ],
    });
    call = client(sb);
    other = sb.credentials('acct_b');
  });
  afterAll(() => sb.close());

  // Three items per row always: jest hands a shorter row's next argument over as `done`.
  const ENDPOINTS: Array<[string, string, unknown]> = [
    ['POST', '/v1/verify/single', { email: 'valid@example.com' }],
    ['POST', '/v1/verify/bulk', { emails: ['valid@example.com'] }],
    ['GET', '/v1/jobs', undefined],
    ['GET', '/v1/jobs/job_x', undefined],
    ['GET', '/v1/jobs/job_x/results', undefined],
    ['GET', '/v1/account/credits', undefined],
    ['GET', '/v1/account', undefined],
    ['GET', '/v1/subscription', undefined],
    ['DELETE', '/v1/keys/key_x', undefined],
  ];

  test.each(ENDPOINTS)(
    '%s %s: 401 with a JSON error for a missing, malformed or unknown key, nothing charged',
    async (method, path, body) => {
      const before = sb.ledger('acct_a');
      for (const [key, code] of [
        [null, 'missing_api_key'],
        ['not-a-key', 'malformed_api_key'],
        ['evf_unknownkey0000000000', 'invalid_api_key'],
      ] as const) {
        const r = await call(method, path, { key, body });
        expect(r.status).toBe(401);
        expect(r.body.error.code).toBe(code);
        expect(typeof r.body.error.message).toBe('string');
        // A key sent in error is never echoed back.
        if (key) expect(r.text).not.toContain(key);
      }
      expect(sb.ledger('acct_a')).toEqual(before);
      expect(JSON.stringify(sb.requests)).not.toContain('evf_');
    },
  );

  test('an account without a plan or top-up has no API access (403)', async () => {
    const r = await call('GET', '/v1/account/credits', { key: sb.credentials('acct_free').apiKey });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('no_api_access');
  });

  test('unknown routes are 404 with the same error shape; a wrong method is 405', async () => {
    const r = await call('GET', '/v1/nothing-here');
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
    const r2 = await call('GET', '/v1/verify/bulk');
    expect(r2.status).toBe(405);
    const r3 = await fetch(`${sb.origin}/v2/jobs`);
    expect(r3.status).toBe(404);
  });

  test("another account's job is 404, and it is absent from the other account's list", async () => {
    const sub = await call('POST', '/v1/verify/bulk', {
      key: other.apiKey,
      body: { emails: ['valid1@example.com', 'valid2@example.com'] },
    });
    expect(sub.status).toBe(202);
    const jobId = sub.body.job_id;
    await waitTerminal(call, jobId, other.apiKey);
    const mine = sb.credentials('acct_a').apiKey;
    expect((await call('GET', `/v1/jobs/${jobId}`, { key: mine })).status).toBe(404);
    expect((await call('GET', `/v1/jobs/${jobId}/results`, { key: mine })).status).toBe(404);
    const list = await call('GET', '/v1/jobs', { key: mine, query: { limit: 100 } });
    expect(list.body.jobs.map((j: { job_id: string }) => j.job_id)).not.toContain(jobId);
    expect((await call('GET', `/v1/jobs/${jobId}`, { key: other.apiKey })).status).toBe(200);
  });

  test('DELETE /v1/keys/{key_id}: 204, the key stops working at once, other keys of the account keep working', async () => {
    const [a1, a2] = sb.apiKeys('acct_a');
    expect(a1!.keyId).toBe('key_a1');
    expect((await call('GET', '/v1/account/credits', { key: a1!.apiKey })).status).toBe(200);
    const r = await call('DELETE', '/v1/keys/key_a1', { key: a1!.apiKey });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    const after = await call('GET', '/v1/account/credits', { key: a1!.apiKey });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('revoked_api_key');
    expect((await call('GET', '/v1/account/credits', { key: a2!.apiKey })).status).toBe(200);
    expect(sb.apiKeys('acct_a').map((k) => k.revoked)).toEqual([true, false]);
  });

  test("DELETE /v1/keys/{key_id}: 404 for an unknown key and for another account's key", async () => {
    const key = sb.credentials('acct_b').apiKey;
    expect((await call('DELETE', '/v1/keys/key_nope', { key })).status).toBe(404);
    expect((await call('DELETE', '/v1/keys/key_a2', { key })).status).toBe(404);
  });
});
