/**
 * Submit a bulk verification against accounts in the spec's shape (GET /v1/account shows plan,
 * credits and credits_used_today, nothing about allowances): a list larger than a known plan's daily
 * allowance can never be accepted at once, so it is refused before anything is sent with an error
 * Make does not rerun; any other 429 is a RateLimitError whose time reads as a date.
 */
import { startSandbox, type AccountSeed, type Sandbox } from '@evf/sandbox';
import { MakeModuleError, runModule, type MakeConnection } from './harness/make-runtime';
import { RETRIED_BY_MAKE } from './harness/make-rules';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.01, rowsPerSecond: 100_000 });
});
afterAll(async () => {
  await sb?.close();
});

const list = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `lead${i}.${tag}@example.com`);
const connFor = (seed: Pick<AccountSeed, 'plan' | 'topUpTotal'>): MakeConnection => {
  const acct = sb.addAccount({ credits: 1_000_000, ...seed });
  return { apiKey: acct.apiKey, baseUrl: sb.baseUrl };
};
const submit = (conn: MakeConnection, emails: string[]) =>
  runModule('submitBulk', { input_as: 'array', emails, name: 'allowance test' }, conn).then(
    (r) => ({ r, err: undefined as unknown }),
    (err: unknown) => ({ r: undefined, err }),
  );

test('Starter, 10,001 addresses: refused before sending, not a retry-later type, words name the allowance and the way forward', async () => {
  const conn = connFor({ plan: 'starter' });
  const posts = () => sb.requests.filter((q) => q.method === 'POST').length;
  const before = posts();
  const { err } = await submit(conn, list(10_001, 'starter'));
  expect(err).toBeInstanceOf(MakeModuleError);
  const e = err as MakeModuleError;
  expect(RETRIED_BY_MAKE).not.toContain(e.type);
  expect(e.type).toBe('DataError');
  expect(e.message).toMatch(/10,?000 addresses a day/);
  expect(e.message).toMatch(/starter plan/i);
  expect(e.message).toMatch(/2,000,000/);
  expect(e.message).toMatch(/Nothing was sent or charged/);
  expect(posts()).toBe(before);
  // Nothing was charged: the whole allowance is still there for a list that fits.
  const ok = await submit(conn, list(10_000, 'starter-fits'));
  expect(ok.err).toBeUndefined();
});

test('Growth, 50,000 addresses: one request more (the plan), then the job', async () => {
  const conn = connFor({ plan: 'growth' });
  const { r, err } = await submit(conn, list(50_000, 'growth'));
  expect(err).toBeUndefined();
  expect(r!.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
    'GET /api/v1/account',
    'POST /api/v1/verify/bulk',
  ]);
});

test('10,000 addresses or fewer: the plan is not read (every account takes 10,000 a day)', async () => {
  const { r, err } = await submit(connFor({ plan: 'starter' }), list(3, 'small'));
  expect(err).toBeUndefined();
  expect(r!.requests.map((q) => q.method)).toEqual(['POST']);
});

test('a top-up account (no plan shown) over its day: RateLimitError, the time as a date, never raw seconds', async () => {
  const conn = connFor({ plan: null, topUpTotal: 20_000 });
  expect((await submit(conn, list(10_000, 'topup-1'))).err).toBeUndefined();
  const { err } = await submit(conn, list(10, 'topup-2'));
  expect(err).toBeInstanceOf(MakeModuleError);
  const e = err as MakeModuleError;
  expect(e.type).toBe('RateLimitError');
  expect(e.message).toMatch(/fits again after \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC/);
  expect(e.message).not.toMatch(/\d{10}/);
});

test('a top-up account (no plan shown), 50,000 addresses it can never take: DataError with the way forward, nothing charged', async () => {
  const conn = connFor({ plan: null, topUpTotal: 20_000 });
  const credits = () => sb.requests.filter((q) => q.method === 'POST').length;
  const before = credits();
  const { err } = await submit(conn, list(50_000, 'topup-never'));
  expect(err).toBeInstanceOf(MakeModuleError);
  const e = err as MakeModuleError;
  // Not a rerun type: Make would send it again and again, each refused, then switch the schedule off.
  expect(RETRIED_BY_MAKE).not.toContain(e.type);
  expect(e.type).toBe('DataError');
  expect(e.message).toMatch(/^The service refused the list for now/);
  expect(e.message).toMatch(/it may never fit at once; send 10,000 a run, or use the dashboard/);
  // One POST was sent and refused: the whole allowance is still there for a list that fits.
  expect(credits()).toBe(before + 1);
  expect((await submit(conn, list(10_000, 'topup-fits'))).err).toBeUndefined();
});

test('a top-up account over its day with a list of 10,000 or fewer: still the rerun type (it fits later)', async () => {
  const conn = connFor({ plan: null, topUpTotal: 20_000 });
  expect((await submit(conn, list(10_000, 'topup-a'))).err).toBeUndefined();
  const { err } = await submit(conn, list(5, 'topup-b'));
  expect((err as MakeModuleError).type).toBe('RateLimitError');
  expect((err as MakeModuleError).message).toMatch(/; safe to run again then\.$/);
});
