/**
 * Every module, the connection test and the RPC, rendered from sample parameters, sent to a running
 * sandbox, and their iterate / output / pagination / repeat mappings applied to its answers. Every
 * request is checked against the contract's operations and every answer against its schema; every
 * bundle's fields must be fields the module's interface declares.
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { categorize } from '@evf/client';
import { findOperation, validateResponse } from '@evf/contract';
import { components, readJsonc } from './harness/app-files';
import {
  loadModule,
  MakeModuleError,
  runModule,
  runModuleDef,
  type ModuleDef,
  runRpc,
  testConnection,
  type MakeConnection,
  type SentRequest,
} from './harness/make-runtime';
import { ParamValidationError } from './harness/make-params';

interface InterfaceField {
  name: string;
  type: string;
  spec?: InterfaceField[] | InterfaceField;
}

let sb: Sandbox;
let conn: MakeConnection;
const allRequests: SentRequest[] = [];
/** Every bundle any module produced, to prove no output carries the key or the signing secret. */
const allOutputs: string[] = [];

beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.01, rowsPerSecond: 2000, allowInsecureWebhooks: true });
  conn = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
});
/** A run of the whole file (not a -t selection), where checks over every test's traffic mean something. */
const wholeFile = !process.argv.some((a) => a === '-t' || a.startsWith('--testNamePattern'));

afterAll(async () => {
  try {
    // Checks over every test's requests and outputs: here, so they hold in whatever order the tests ran
    // (jest --randomize); a failure here fails the file.
    if (wholeFile) {
      expectNoSecretIn(allOutputs);
      expectEveryEndpointReached(allRequests);
    }
  } finally {
    await sb?.close();
  }
});

function expectNoSecretIn(outputs: string[]): void {
  expect(outputs.length).toBeGreaterThan(10);
  for (const out of outputs) {
    expect(out).not.toContain(sb.apiKey);
    expect(out).not.toContain(sb.webhookSecret);
  }
}

/** Every endpoint of the contract was reached by some module, RPC or the connection. */
function expectEveryEndpointReached(requests: SentRequest[]): void {
  const reached = new Set(requests.map((r) => `${r.method} ${findOperation(r.method, r.path)!.path}`));
  const expected = [
    'POST /v1/verify/single',
    'POST /v1/verify/bulk',
    'GET /v1/jobs',
    'GET /v1/jobs/{job_id}',
    'GET /v1/jobs/{job_id}/results',
    'GET /v1/account/credits',
    'GET /v1/account',
    'GET /v1/subscription',
    'DELETE /v1/keys/{key_id}',
  ];
  for (const e of expected) expect(reached).toContain(e);
}

/** Checks each request against the contract and records it for the coverage check. */
function checkRequests(requests: SentRequest[]): void {
  for (const r of requests) {
    const op = findOperation(r.method, r.path);
    expect(op).toBeDefined();
    const allowedQuery = op!.queryParams.map((q) => q.name);
    for (const q of Object.keys(r.query)) expect(allowedQuery).toContain(q);
    if (r.body !== undefined) {
      const allowedBody = op!.bodyFields.map((f) => f.name);
      for (const f of Object.keys(r.body as object)) expect(allowedBody).toContain(f);
    }
    expect(Object.keys(r.headers).map((h) => h.toLowerCase())).toContain('x-api-key');
    allRequests.push(r);
  }
}

/**
 * A bundle may only carry fields its interface declares, recursively through collections. The
 * details object is the one exception: the spec says it may carry further informational fields.
 */
function expectFieldsDeclared(bundle: unknown, fields: InterfaceField[], where: string): void {
  if (!bundle || typeof bundle !== 'object' || Array.isArray(bundle)) return;
  for (const [key, value] of Object.entries(bundle)) {
    const field = fields.find((f) => f.name === key);
    if (!field && where.endsWith('.details')) continue;
    if (!field) throw new Error(`${where}: output field "${key}" is not in the interface`);
    if (field.type === 'collection' && Array.isArray(field.spec))
      expectFieldsDeclared(value, field.spec, `${where}.${key}`);
    if (field.type === 'array' && Array.isArray(field.spec) && Array.isArray(value)) {
      for (const item of value) expectFieldsDeclared(item, field.spec, `${where}.${key}[]`);
    }
  }
}

function interfaceOf(moduleId: string): InterfaceField[] {
  const meta = components('module').find(([id]) => id === moduleId)![1];
  return readJsonc(meta.codeFiles.interface!) as unknown as InterfaceField[];
}

async function run(moduleId: string, params: Record<string, unknown>, options = {}) {
  const result = await runModule(moduleId, params, conn, { repeatDelayMs: 50, ...options });
  allOutputs.push(JSON.stringify(result.bundles));
  checkRequests(result.requests);
  for (const b of result.bundles) expectFieldsDeclared(b, interfaceOf(moduleId), moduleId);
  return result;
}

async function submit(emails: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const r = await run('submitBulk', { input_as: 'array', emails, name: 'make test', ...extra });
  const out = r.bundles[0] as { job_id: string };
  expect(validateResponse('POST', '/v1/verify/bulk', 202, out).errors).toEqual([]);
  return out.job_id;
}

/** Runs Check a bulk job again while it says the job is still running, as a scenario would on its next run. */
async function waitTerminal(jobId: string) {
  let job: { terminal: boolean; status: string; job_id: string } | undefined;
  for (let i = 0; i < 20 && !job?.terminal; i++) {
    const r = await run('waitForJob', { job_id: jobId });
    job = r.bundles[0] as typeof job;
  }
  return job!;
}

describe('Make modules against the sandbox', () => {
  it('connection test reads the account and shows the plan as metadata', async () => {
    const r = await testConnection(conn);
    expect(r.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/v1/account']);
    expect(r.metadata).toMatch(/ plan$/);
    expect(r.metadata).not.toMatch(/undefined/);
    checkRequests(r.requests);
  });

  it('connection test fails with InvalidAccessTokenError for a wrong key, and the key is not in the message', async () => {
    const wrong = 'evf_' + 'x'.repeat(32);
    await expect(testConnection({ ...conn, apiKey: wrong })).rejects.toMatchObject({
      name: 'InvalidAccessTokenError',
      statusCode: 401,
    });
    const err = await testConnection({ ...conn, apiKey: wrong }).catch((e: Error) => e);
    expect(String((err as Error).message)).not.toContain(wrong);
  });

  it('Verify an email address returns the result with category fields computed like the client', async () => {
    for (const email of [
      'valid.ada@example.com',
      'catchall.bo@example.com',
      'trap.x@example.com',
      'info@example.com',
      'unknown.z@example.com',
    ]) {
      const r = await run('verifyEmail', { email });
      expect(r.requests).toHaveLength(1);
      expect(r.requests[0]!.body).toEqual({ email, check_smtp: true });
      const out = r.bundles[0] as Record<string, unknown> & { details: never };
      const { category, group, safe_to_send, ...wire } = out;
      expect(validateResponse('POST', '/v1/verify/single', 200, wire).errors).toEqual([]);
      const expected = categorize(out.details, { source: 'single' });
      expect({ category, group, safe_to_send }).toEqual({
        category: expected.category,
        group: expected.group,
        safe_to_send: expected.safeToSend,
      });
    }
  });

  it('Submit, Check, Get and List bulk job results: one bundle per row over several pages, filtered by group', async () => {
    const emails = Array.from(
      { length: 23 },
      (_, i) => ['valid', 'catchall', 'trap', 'info', 'invalid', 'full'][i % 6] + `.${i}@example.com`,
    );
    const jobId = await submit(emails, { priority: 'high', check_smtp: true });
    const done = await waitTerminal(jobId);
    expect(done.terminal).toBe(true);
    expect(validateResponse('GET', `/v1/jobs/${jobId}`, 200, done).errors).toEqual([]);

    const got = await run('getJob', { job_id: jobId });
    expect((got.bundles[0] as { job_id: string }).job_id).toBe(jobId);

    const all = await run('listResults', { job_id: jobId, start_page: 1, per_page: 5 });
    // 23 rows at 5 per page: pages 1..5, read until has_more is false.
    expect(all.requests.map((q) => q.query.page)).toEqual(['1', '2', '3', '4', '5']);
    expect(all.requests.every((q) => q.query.per_page === '5')).toBe(true);
    expect(all.bundles).toHaveLength(23);
    expect(new Set(all.bundles.map((b) => (b as { email: string }).email))).toEqual(new Set(emails));
    for (const b of all.bundles as { details: never; category: string; group: string }[]) {
      expect(b.category).toBe(categorize(b.details).category);
    }

    const safe = await run('listResults', {
      job_id: jobId,
      start_page: 1,
      group: 'safe_to_send',
      per_page: 1000,
    });
    const expectedSafe = (all.bundles as { group: string }[]).filter(
      (b) => b.group === 'safe_to_send',
    ).length;
    expect(expectedSafe).toBeGreaterThan(0);
    // With the filter, the run ends with one bundle that is not a row (it carries the paging fields only).
    expect(safe.bundles.filter((b) => (b as { is_row: boolean }).is_row)).toHaveLength(expectedSafe);
    expect(safe.bundles.at(-1)).toMatchObject({ is_row: false, next_start_page: 0 });

    // A limit of 7 at 5 rows per page reads one whole page, never 2 rows of the next, and says where to go on.
    const limited = await run('listResults', { job_id: jobId, start_page: 1, per_page: 5, limit: 7 });
    expect(limited.bundles).toHaveLength(5);
    expect(limited.requests).toHaveLength(1);
    expect(limited.bundles.at(-1)).toMatchObject({ next_start_page: 2, rows_after_this_run: 18 });

    const later = await run('listResults', { job_id: jobId, per_page: 5, start_page: 3 });
    expect(later.requests.map((q) => q.query.page)).toEqual(['3', '4', '5']);
    expect(later.bundles).toHaveLength(13);
  });

  describe('List bulk job results never cuts or repeats a row, at any page size, group filter or continuation', () => {
    type Row = {
      email: string;
      group: string;
      page: number;
      rows_in_job: number;
      rows_after_this_run: number;
      job_finished: boolean;
      is_row: boolean;
      next_start_page?: number;
    };
    const emails = Array.from(
      { length: 4100 },
      (_, i) => ['valid', 'catchall', 'trap', 'info', 'invalid'][i % 5] + `.big${i}@example.com`,
    );
    let jobId: string;
    beforeAll(async () => {
      jobId = await submit(emails);
      expect((await waitTerminal(jobId)).terminal).toBe(true);
    }, 60_000);

    /** Runs the module round after round, each starting where the last bundle of the one before says. */
    async function readAll(params: Record<string, unknown>) {
      const rounds: { bundles: Row[]; pages: string[] }[] = [];
      let start: number | undefined = 1;
      while (start !== undefined) {
        const r = await run('listResults', { job_id: jobId, ...params, start_page: start });
        const bundles = r.bundles as Row[];
        rounds.push({ bundles, pages: r.requests.map((q) => q.query.page!) });
        const last = bundles[bundles.length - 1];
        if (!last) break;
        // Each bundle of a round agrees on what is left and where the next round starts.
        for (const b of bundles) {
          expect(b.next_start_page).toBe(last.next_start_page);
          expect(b.rows_after_this_run).toBe(last.rows_after_this_run);
          expect(b.rows_in_job).toBe(emails.length);
        }
        const next = last.next_start_page;
        if (next === 0) {
          expect(last.rows_after_this_run).toBe(0);
          start = undefined;
        } else {
          expect(last.rows_after_this_run).toBeGreaterThan(0);
          expect(next).toBeGreaterThan(start);
          start = next;
        }
        if (rounds.length > 100) throw new Error('no end');
      }
      return rounds;
    }

    it('Next start page is 0 once no rows remain, and a run from page 0 sends nothing and emits nothing', async () => {
      const rounds = await readAll({});
      expect(rounds.at(-1)!.bundles.at(-1)!.next_start_page).toBe(0);
      // A scheduled loop maps it into the next run: that run ends the loop instead of reading page 1.
      const after = await run('listResults', { job_id: jobId, start_page: 0 });
      expect(after.requests).toHaveLength(0);
      expect(after.bundles).toHaveLength(0);
    }, 60_000);

    it('1,000 rows per page (the default): three whole pages a run, the next round at page 4, nothing after the last', async () => {
      const rounds = await readAll({});
      expect(rounds.map((r) => r.pages)).toEqual([
        ['1', '2', '3'],
        ['4', '5'],
      ]);
      expect(rounds.map((r) => r.bundles.length)).toEqual([3000, 1100]);
      expect(rounds[0]!.bundles.at(-1)).toMatchObject({ next_start_page: 4, rows_after_this_run: 1100 });
      const all = rounds.flatMap((r) => r.bundles.map((b) => b.email));
      expect(all).toHaveLength(emails.length);
      expect(new Set(all)).toEqual(new Set(emails));
    }, 60_000);

    it('a limit of 3,200 with 1,000 rows per page still reads whole pages (3,000), so no row is cut and none comes again', async () => {
      const rounds = await readAll({ limit: 3200, per_page: 1000 });
      const all = rounds.flatMap((r) => r.bundles.map((b) => b.email));
      expect(rounds[0]!.bundles).toHaveLength(3000);
      expect(all).toHaveLength(emails.length);
      expect(new Set(all)).toEqual(new Set(emails));
    }, 60_000);

    it('10 rows per page: 50 pages a run (what Make allows), and the output says so and where to go on', async () => {
      const r = await run('listResults', { job_id: jobId, start_page: 1, per_page: 10, limit: 3200 });
      expect(r.requests).toHaveLength(50);
      expect(r.bundles).toHaveLength(500);
      expect(r.bundles.at(-1)).toMatchObject({ next_start_page: 51, rows_after_this_run: 3600 });
    }, 60_000);

    it('a limit smaller than a page reads one page of that size; odd sizes still cover every row once', async () => {
      const small = await run('listResults', { job_id: jobId, start_page: 1, limit: 7 });
      expect(small.requests.map((q) => q.query)).toEqual([{ page: '1', per_page: '7' }]);
      expect(small.bundles).toHaveLength(7);
      const rounds = await readAll({ per_page: 333, limit: 1000 });
      const all = rounds.flatMap((r) => r.bundles.map((b) => b.email));
      expect(all).toHaveLength(emails.length);
      expect(new Set(all)).toEqual(new Set(emails));
    }, 60_000);

    it('Only this group: the rounds together hold every row of that group exactly once', async () => {
      const rounds = await readAll({ group: 'invalid', per_page: 1000 });
      const rows = rounds.flatMap((r) => r.bundles.filter((b) => b.is_row));
      const all = rows.map((b) => b.email);
      const expected = emails.filter((e) => e.startsWith('trap.') || e.startsWith('invalid.'));
      expect(rows.every((b) => b.group === 'invalid')).toBe(true);
      expect(all).toHaveLength(expected.length);
      expect(new Set(all)).toEqual(new Set(expected));
    }, 60_000);
  });

  describe('a scheduled loop that maps Next start page never starts over and never loses its place', () => {
    // 10 safe rows, then 20 invalid ones: at 5 rows a page and 2 pages a round, rounds 2 and 3 hold no
    // safe row, so without a bundle of their own they would leave the loop nothing to map.
    const emails = [
      ...Array.from({ length: 10 }, (_, i) => `valid.head${i}@example.com`),
      ...Array.from({ length: 20 }, (_, i) => `invalid.tail${i}@example.com`),
    ];
    let jobId: string;
    beforeAll(async () => {
      jobId = await submit(emails);
      expect((await waitTerminal(jobId)).terminal).toBe(true);
    }, 60_000);

    it('Start at page is required: an empty mapped value fails before any request instead of reading page 1', async () => {
      for (const start_page of ['', null, undefined]) {
        const err = await runModule('listResults', { job_id: jobId, start_page }, conn).catch(
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ParamValidationError);
        expect((err as ParamValidationError).parameter).toBe('Start at page');
      }
    });

    it('Only this group: a round with no row of the group still emits one bundle (Result row = No) with Next start page', async () => {
      const rounds: { bundles: Record<string, unknown>[]; pages: string[] }[] = [];
      let start = 1;
      while (start !== 0) {
        const r = await run('listResults', {
          job_id: jobId,
          group: 'safe_to_send',
          per_page: 5,
          limit: 10,
          start_page: start,
        });
        const bundles = r.bundles as Record<string, unknown>[];
        rounds.push({ bundles, pages: r.requests.map((q) => q.query.page!) });
        expect(bundles.length).toBeGreaterThan(0);
        const next = bundles.at(-1)!.next_start_page as number;
        expect(next === 0 || next > start).toBe(true);
        start = next;
        if (rounds.length > 10) throw new Error('no end');
      }
      expect(rounds.map((r) => r.pages)).toEqual([
        ['1', '2'],
        ['3', '4'],
        ['5', '6'],
      ]);
      const rows = rounds.flatMap((r) => r.bundles.filter((b) => b.is_row === true));
      expect(rows.map((b) => b.email)).toEqual(emails.slice(0, 10));
      expect(rows.every((b) => b.group === 'safe_to_send')).toBe(true);
      // The bundles that are not rows carry nothing a router could take for a verdict.
      // Round 1 is full (10 rows, its limit), so its rows carry Next start page; rounds 2 and 3 have
      // no safe row and each ends with one bundle that is not a row.
      const markers = rounds.flatMap((r) => r.bundles.filter((b) => b.is_row !== true));
      expect(rounds.map((r) => r.bundles.filter((b) => b.is_row !== true).length)).toEqual([0, 1, 1]);
      for (const m of markers) {
        expect(m.is_row).toBe(false);
        for (const key of ['email', 'category', 'group', 'safe_to_send', 'status', 'valid'])
          expect(m[key]).toBeUndefined();
      }
      expect(rounds.map((r) => r.bundles.at(-1)!.next_start_page)).toEqual([3, 5, 0]);
    }, 60_000);
  });

  it('Check a bulk job reads again while the job runs, stops when it has stopped, and always returns inside 40 s', async () => {
    // A sandbox whose job stays queued for a real second: on the shared fast one a job can be finished
    // before the first read, and a single GET would prove nothing about repeating.
    const slow = await startSandbox({ port: 0, timeScale: 1, queueDelayMs: 1000, rowsPerSecond: 100_000 });
    try {
      const slowConn: MakeConnection = { apiKey: slow.apiKey, baseUrl: slow.baseUrl };
      const submit = async () => {
        const submitted = await runModule(
          'submitBulk',
          { input_as: 'array', emails: Array.from({ length: 400 }, (_, i) => `valid.w${i}@example.com`) },
          slowConn,
        );
        checkRequests(submitted.requests);
        return (submitted.bundles[0] as { job_id: string }).job_id;
      };
      // Still queued after three quick reads: the module returns it with Finished = No, having spent
      // (as Make counts it) the two declared 10 s waits, inside the 40 s module timeout.
      const queued = await submit();
      const early = await runModule('waitForJob', { job_id: queued }, slowConn, { repeatDelayMs: 20 });
      checkRequests(early.requests);
      // Three repeated reads that emit nothing, then the one read that emits: one bundle per run.
      expect(early.requests).toHaveLength(4);
      expect(early.bundles).toHaveLength(1);
      expect((early.bundles[0] as { terminal: boolean; status: string }).terminal).toBe(false);
      expect(early.makeTimeMs).toBeGreaterThanOrEqual(20_000);
      expect(early.makeTimeMs).toBeLessThan(40_000);

      // Reads 0.8 s apart: the job finishes between them and the module stops at the first finished read.
      const jobId = await submit();
      const r = await runModule('waitForJob', { job_id: jobId }, slowConn, { repeatDelayMs: 800 });
      checkRequests(r.requests);
      allOutputs.push(JSON.stringify(r.bundles));
      for (const b of r.bundles) expectFieldsDeclared(b, interfaceOf('waitForJob'), 'waitForJob');
      expect(r.bundles).toHaveLength(1);
      expect((r.bundles[0] as { terminal: boolean }).terminal).toBe(true);
      expect(r.requests.length).toBeGreaterThan(2);
      expect(r.requests.length).toBeLessThanOrEqual(4);
      expect(new Set(r.requests.map((q) => q.path))).toEqual(new Set([`/api/v1/jobs/${jobId}`]));
    } finally {
      await slow.close();
    }
  }, 60_000);

  it('List bulk jobs and the job RPC read GET /v1/jobs newest first', async () => {
    await submit(['valid.listed@example.com']);
    const r = await run('listJobs', { limit: 3 });
    expect(r.requests[0]!.query).toEqual({ limit: '100', offset: '0' });
    expect(r.requests).toHaveLength(1);
    expect(r.bundles.length).toBeLessThanOrEqual(3);
    expect(r.bundles.length).toBeGreaterThan(0);
    const rpc = await runRpc('listJobs', conn);
    checkRequests(rpc.requests);
    const first = rpc.bundles[0] as { label: string; value: string };
    expect(first.value).toBe((r.bundles[0] as { job_id: string }).job_id);
    expect(first.label).toContain(first.value);
  });

  describe('Watch new bulk jobs: every job once, whatever order jobs finish in, bursts larger than a page', () => {
    let own: Sandbox;
    let c: MakeConnection;
    beforeAll(async () => {
      // Jobs wait a real second in the queue, so the first ones are still running when they are emitted.
      own = await startSandbox({ port: 0, timeScale: 1, queueDelayMs: 1000, rowsPerSecond: 100_000 });
      c = { apiKey: own.apiKey, baseUrl: own.baseUrl };
    });
    afterAll(async () => {
      await own?.close();
    });
    const submitTo = async (n: number, tag: string) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) {
        const r = await runModule(
          'submitBulk',
          { input_as: 'array', emails: [`valid.${tag}${i}@example.com`] },
          c,
        );
        ids.push((r.bundles[0] as { job_id: string }).job_id);
      }
      return ids;
    };
    const watch = async (params: Record<string, unknown>, triggerState?: { id: string; date?: string }) => {
      // A run 2 minutes on: the trigger emits a job once its second is 60 s old (same-second jobs).
      const now = new Date(Date.now() + 120_000);
      const r = await runModule('watchNewJobs', params, c, { triggerState, now });
      checkRequests(r.requests);
      for (const b of r.bundles) expectFieldsDeclared(b, interfaceOf('watchNewJobs'), 'watchNewJobs');
      return r;
    };

    it('a job still running is emitted once, and never again when it finishes later than a newer one', async () => {
      const [older, newer] = await submitTo(2, 'order');
      const first = await watch({});
      expect((first.bundles as { job_id: string }[]).map((b) => b.job_id)).toEqual([older, newer]);
      expect((first.bundles as { status: string }[]).every((b) => b.status === 'queued')).toBe(true);
      // Both finish (in whatever order the service picks); nothing is emitted twice or lost.
      await new Promise((r) => setTimeout(r, 1500));
      const again = await watch({}, first.triggerState);
      expect(again.bundles).toEqual([]);
      expect(again.triggerState).toEqual(first.triggerState);
    }, 60_000);

    it('why there is no polling trigger for finished jobs: the earlier design (finished only, by created_at) skips a job that finishes after a newer one', async () => {
      const slow = await startSandbox({ port: 0, timeScale: 1, queueDelayMs: 100, rowsPerSecond: 500 });
      try {
        const sc: MakeConnection = { apiKey: slow.apiKey, baseUrl: slow.baseUrl };
        const finishedOnly: ModuleDef = {
          ...loadModule('watchNewJobs'),
          communication: {
            url: '/v1/jobs',
            method: 'GET',
            qs: { limit: 100 },
            response: {
              limit: 100,
              iterate: {
                container: '{{body.jobs}}',
                condition: "{{contains(split('completed,failed,interrupted,cancelled', ','), item.status)}}",
              },
              output: '{{item}}',
              trigger: { type: 'date', order: 'desc', id: '{{item.job_id}}', date: '{{item.created_at}}' },
            },
          },
        };
        const submitOne = async (n: number) => {
          const emails = Array.from({ length: n }, (_, i) => `valid.s${n}x${i}@example.com`);
          const r = await runModule('submitBulk', { input_as: 'array', emails }, sc);
          await new Promise((r) => setTimeout(r, 5));
          return (r.bundles[0] as { job_id: string }).job_id;
        };
        const older = await submitOne(1500); // about 3 s of work
        const newer = await submitOne(1); // done after the queue delay
        const newJobs = await runModule('watchNewJobs', {}, sc, { now: new Date(Date.now() + 120_000) });
        await new Promise((r) => setTimeout(r, 600));
        const first = await runModuleDef(finishedOnly, {}, sc);
        expect((first.bundles as { job_id: string }[]).map((b) => b.job_id)).toEqual([newer]);
        for (let i = 0; i < 100; i++) {
          const job = await runModule('getJob', { job_id: older }, sc);
          if ((job.bundles[0] as { terminal: boolean }).terminal) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        const later = await runModuleDef(finishedOnly, {}, sc, { triggerState: first.triggerState });
        // The older job finished, but lies behind the remembered one: never emitted.
        expect(later.bundles).toEqual([]);
        // Watch new bulk jobs had both, once each, at creation.
        expect((newJobs.bundles as { job_id: string }[]).map((b) => b.job_id)).toEqual([older, newer]);
      } finally {
        await slow.close();
      }
    }, 60_000);

    it('250 new jobs between two runs (2.5 pages): all emitted once, oldest first, read across pages by offset', async () => {
      const before = await watch({});
      const ids = await submitTo(250, 'burst');
      const r = await watch({}, before.triggerState);
      expect(r.requests.map((q) => q.query.offset)).toEqual(['0', '100', '200']);
      expect((r.bundles as { job_id: string }[]).map((b) => b.job_id)).toEqual(ids);
      const after = await watch({}, r.triggerState);
      expect(after.bundles).toEqual([]);
      // Reading stops at the page that reaches the remembered job: one request, not three.
      expect(after.requests).toHaveLength(1);
    }, 120_000);
  });

  it('List bulk jobs and the Job ID dropdown page by offset until a short page, and stop at their limit', async () => {
    const many = await startSandbox({ port: 0, timeScale: 0.01, rowsPerSecond: 2000 });
    try {
      const c: MakeConnection = { apiKey: many.apiKey, baseUrl: many.baseUrl };
      for (let i = 0; i < 205; i++)
        await runModule('submitBulk', { input_as: 'array', emails: [`valid.p${i}@example.com`] }, c);
      const all = await runModule('listJobs', { limit: 3200 }, c);
      checkRequests(all.requests);
      expect(all.requests.map((q) => q.query.offset)).toEqual(['0', '100', '200']);
      expect(all.bundles).toHaveLength(205);
      expect(new Set(all.bundles.map((b) => (b as { job_id: string }).job_id)).size).toBe(205);
      const some = await runModule('listJobs', { limit: 150 }, c);
      expect(some.requests).toHaveLength(2);
      expect(some.bundles).toHaveLength(150);
      // The Job ID dropdown lists past the newest 100 too.
      const rpc = await runRpc('listJobs', c);
      checkRequests(rpc.requests);
      expect(rpc.requests.map((q) => q.query.offset)).toEqual(['0', '100', '200']);
      expect(rpc.bundles.map((b) => (b as { value: string }).value)).toEqual(
        all.bundles.map((b) => (b as { job_id: string }).job_id),
      );
    } finally {
      await many.close();
    }
  }, 60_000);

  it('Get credit balance reads credits and subscription', async () => {
    const r = await run('getCredits', {});
    expect(r.requests.map((q) => q.path)).toEqual(['/api/v1/account/credits', '/api/v1/subscription']);
    const out = r.bundles[0] as { credits: number; subscription: unknown };
    expect(out.credits).toBe(sb.ledger().credits);
    expect(validateResponse('GET', '/v1/subscription', 200, out.subscription).errors).toEqual([]);
  });

  it('Revoke an API Key revokes a key (204), then that key gets InvalidAccessTokenError; 404 for no such key', async () => {
    const other = sb.addAccount({ plan: 'pro', credits: 10 });
    const otherConn = { ...conn, apiKey: other.apiKey };
    const r = await runModule('revokeKey', { key_id: other.keyId }, otherConn);
    checkRequests(r.requests);
    expect(r.bundles[0]).toEqual({ key_id: other.keyId, revoked: true });
    await expect(runModule('getCredits', {}, otherConn)).rejects.toMatchObject({
      name: 'InvalidAccessTokenError',
    });
    await expect(runModule('revokeKey', { key_id: 'key_does_not_exist' }, conn)).rejects.toMatchObject({
      name: 'DataError',
      statusCode: 404,
    });
  });

  it('Make an API call sends an authorised request to a /v1/ path', async () => {
    const r = await run('makeApiCall', { url: '/v1/account', method: 'GET' });
    const out = r.bundles[0] as { statusCode: number; body: unknown };
    expect(out.statusCode).toBe(200);
    expect(validateResponse('GET', '/v1/account', 200, out.body).errors).toEqual([]);
    await expect(
      runModule('makeApiCall', { url: 'https://elsewhere.example/v1/account', method: 'GET' }, conn),
    ).rejects.toBeInstanceOf(ParamValidationError);
  });

  it('Make an API call sends a JSON text body as it is, and the Headers and Query String fields', async () => {
    // JSON > Create JSON outputs text: it reaches the service once encoded (before: encoded twice, 400).
    const text = await runModule(
      'makeApiCall',
      { url: '/v1/verify/bulk', method: 'POST', body: '{"emails": ["no-at-sign"]}' },
      conn,
    ).catch((e: unknown) => e);
    expect(text).toBeInstanceOf(MakeModuleError);
    expect((text as MakeModuleError).statusCode).toBe(422);
    expect((text as MakeModuleError).message).toContain('no-at-sign');
    const r = await run('makeApiCall', {
      url: '/v1/jobs',
      method: 'GET',
      qs: [{ key: 'limit', value: '1' }],
      headers: [{ key: 'Accept', value: 'application/json' }],
    });
    expect(r.requests[0]!.query).toEqual({ limit: '1' });
    expect(r.requests[0]!.headers.Accept).toBe('application/json');
    expect((r.bundles[0] as { statusCode: number }).statusCode).toBe(200);
  });

  it('maps error statuses to Make error types with a clear message (422 DataError names the address)', async () => {
    const err = await runModule(
      'submitBulk',
      { input_as: 'array', emails: ['valid.ok@example.com', 'no-at-sign'] },
      conn,
    ).catch((e: unknown) => e);
    // Make's own parameter check stops it first...
    expect(err).toBeInstanceOf(ParamValidationError);
    // ...and the service's 422, reached through the universal module, reads as a DataError.
    const r = await runModule(
      'makeApiCall',
      { url: '/v1/verify/bulk', method: 'POST', body_type: 'collection', body: { emails: ['no-at-sign'] } },
      conn,
    ).catch((e: unknown) => e);
    expect(r).toBeInstanceOf(MakeModuleError);
    expect((r as MakeModuleError).type).toBe('DataError');
    expect((r as MakeModuleError).message).toContain('no-at-sign');
  });
});
