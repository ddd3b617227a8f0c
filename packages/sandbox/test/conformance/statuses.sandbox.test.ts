/**
 * The contract states every status the sandbox answers. The sandbox's route table declares each
 * endpoint's statuses (and the sandbox answers 500 rather than an undeclared one), so:
 * 1. every declared (endpoint, status) is listed in openapi.yaml by its own code, not left to `default`;
 * 2. each one is provoked here over HTTP and comes back with that status and a body the contract
 *    accepts (the helpers validate every answer);
 * 3. what was provoked is exactly what is declared, so the table can neither hide a status nor list one
 *    nothing produces.
 * Injected faults (any status a test asks for) and the sandbox's own 500 stay under `default`.
 */
import { operations } from '@evf/contract';
import type { Sandbox } from '@evf/sandbox';
import { ROUTE_STATUSES } from '../../src/routes/api';
import { client, start, waitTerminal, type CallOptions } from './helpers';

const declared = ROUTE_STATUSES.flatMap((r) => r.statuses.map((s) => `${r.method} ${r.path} ${s}`)).sort();

test('every status a sandbox route declares is listed in the contract for that operation', () => {
  const listed = operations.flatMap((o) =>
    Object.keys(o.responseSchemaByStatus)
      .filter((code) => /^\d{3}$/.test(code))
      .map((code) => `${o.method} ${o.path} ${code}`),
  );
  expect(declared.filter((pair) => !listed.includes(pair))).toEqual([]);
  expect(ROUTE_STATUSES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
    operations.map((o) => `${o.method} ${o.path}`).sort(),
  );
});

describe('every declared status, provoked over HTTP', () => {
  let sb: Sandbox;
  let small: Sandbox;
  let jobId: string;
  const provoked = new Set<string>();

  beforeAll(async () => {
    sb = await start();
    small = await start({ maxBodyBytes: 1024 });
    const sub = await client(sb)('POST', '/v1/verify/bulk', { body: { emails: ['valid@example.com'] } });
    jobId = sub.body.job_id;
    await waitTerminal(client(sb), jobId);
  });
  /** The tests that provoke statuses; point 3 is checked once all of them have run, in any order. */
  const provokers = 5;
  let provokersDone = 0;
  afterEach(() => {
    provokersDone += 1;
  });
  afterAll(async () => {
    await sb?.close();
    await small?.close();
    // Point 3: only meaningful when every provoking test ran (jest --randomize may run them in any order).
    if (provokersDone === provokers) expect([...provoked].sort()).toEqual(declared);
  });

  async function expectStatus(
    target: Sandbox,
    method: string,
    template: string,
    params: Record<string, string>,
    opts: CallOptions,
    status: number,
  ): Promise<void> {
    const path = template.replace(/\{([a-z_]+)\}/g, (_m, name: string) => params[name]!);
    const r = await client(target)(method, path, opts);
    expect([method, path, r.status]).toEqual([method, path, status]);
    provoked.add(`${method} ${template} ${status}`);
  }

  test('401 and 403 on every endpoint', async () => {
    const noAccess = sb.addAccount({ id: 'acct_statuses_free', plan: null, topUpTotal: 0, credits: 5 });
    for (const { method, path } of ROUTE_STATUSES) {
      const params = { job_id: jobId, key_id: 'key_whatever' };
      const body =
        method === 'POST' ? { email: 'valid@example.com', emails: ['valid@example.com'] } : undefined;
      await expectStatus(sb, method, path, params, { key: null, body }, 401);
      await expectStatus(sb, method, path, params, { key: noAccess.apiKey, body }, 403);
    }
  });

  test('POST /v1/verify/single: 200, 400, 413, 422, 402, 408, 429', async () => {
    const p = '/v1/verify/single';
    await expectStatus(sb, 'POST', p, {}, { body: { email: 'valid@example.com' } }, 200);
    await expectStatus(sb, 'POST', p, {}, { rawBody: 'not json' }, 400);
    await expectStatus(small, 'POST', p, {}, { body: { email: `valid@${'a'.repeat(2000)}.com` } }, 413);
    await expectStatus(sb, 'POST', p, {}, { body: { email: 'not an address' } }, 422);
    const broke = sb.addAccount({ id: 'acct_statuses_broke', plan: 'pro', credits: 0 });
    await expectStatus(sb, 'POST', p, {}, { key: broke.apiKey, body: { email: 'valid@example.com' } }, 402);
    await expectStatus(sb, 'POST', p, {}, { body: { email: 'slow@example.com' } }, 408);
    const starter = sb.addAccount({ id: 'acct_statuses_starter', plan: 'starter', credits: 20_000 });
    const tenThousand = Array.from({ length: 10_000 }, (_, i) => `valid.${i}@example.com`);
    expect(
      (await client(sb)('POST', '/v1/verify/bulk', { key: starter.apiKey, body: { emails: tenThousand } }))
        .status,
    ).toBe(202);
    await expectStatus(sb, 'POST', p, {}, { key: starter.apiKey, body: { email: 'valid@example.com' } }, 429);
  });

  test('POST /v1/verify/bulk: 202, 400, 413, 422, 402, 429, 503', async () => {
    const p = '/v1/verify/bulk';
    await expectStatus(sb, 'POST', p, {}, { body: { emails: ['valid@example.com'] } }, 202);
    await expectStatus(sb, 'POST', p, {}, { rawBody: '[]' }, 400);
    await expectStatus(small, 'POST', p, {}, { body: { emails: Array(100).fill('valid@example.com') } }, 413);
    await expectStatus(sb, 'POST', p, {}, { body: { emails: ['valid@example.com', 'nope'] } }, 422);
    const broke = sb.addAccount({ id: 'acct_statuses_broke_bulk', plan: 'pro', credits: 0 });
    await expectStatus(
      sb,
      'POST',
      p,
      {},
      { key: broke.apiKey, body: { emails: ['valid@example.com'] } },
      402,
    );
    const starter = sb.addAccount({ id: 'acct_statuses_starter2', plan: 'starter', credits: 20_000 });
    const over = Array.from({ length: 10_001 }, (_, i) => `valid.${i}@example.com`);
    await expectStatus(sb, 'POST', p, {}, { key: starter.apiKey, body: { emails: over } }, 429);
    sb.faults.pauseNewJobs({ retryAfterSeconds: 5 });
    try {
      await expectStatus(sb, 'POST', p, {}, { body: { emails: ['valid@example.com'] } }, 503);
    } finally {
      sb.faults.resumeNewJobs();
    }
  });

  test('job reads: 200, 404 for an unknown id, 422 for a query out of range', async () => {
    await expectStatus(sb, 'GET', '/v1/jobs', {}, {}, 200);
    await expectStatus(sb, 'GET', '/v1/jobs', {}, { query: { limit: 0 } }, 422);
    await expectStatus(sb, 'GET', '/v1/jobs/{job_id}', { job_id: jobId }, {}, 200);
    await expectStatus(sb, 'GET', '/v1/jobs/{job_id}', { job_id: 'job_nope' }, {}, 404);
    const results = '/v1/jobs/{job_id}/results';
    await expectStatus(sb, 'GET', results, { job_id: jobId }, {}, 200);
    await expectStatus(sb, 'GET', results, { job_id: 'job_nope' }, {}, 404);
    await expectStatus(sb, 'GET', results, { job_id: jobId }, { query: { per_page: 1001 } }, 422);
  });

  test('account reads: 200; revoking a key: 204, 404', async () => {
    for (const p of ['/v1/account/credits', '/v1/account', '/v1/subscription'])
      await expectStatus(sb, 'GET', p, {}, {}, 200);
    const acct = sb.addAccount({
      id: 'acct_statuses_keys',
      plan: 'pro',
      credits: 1,
      keys: [{ id: 'key_st_a' }, { id: 'key_st_b' }],
    });
    await expectStatus(sb, 'DELETE', '/v1/keys/{key_id}', { key_id: 'key_st_b' }, { key: acct.apiKey }, 204);
    await expectStatus(
      sb,
      'DELETE',
      '/v1/keys/{key_id}',
      { key_id: 'key_st_none' },
      { key: acct.apiKey },
      404,
    );
  });
});
