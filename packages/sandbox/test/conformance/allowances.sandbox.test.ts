import { parseRetryHeader } from '@evf/client';
import type { Sandbox } from '@evf/sandbox';
import { client, start } from './helpers';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const emails = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `valid${tag}${i}@example.com`);

describe('sandbox conformance: API allowances per plan and top-up, counted in addresses and shared by keys', () => {
  let sb: Sandbox;
  let call: ReturnType<typeof client>;
  beforeAll(async () => {
    sb = await start({
      accounts: [
        { id: 'starter', plan: 'starter', credits: 1_000_000 },
        { id: 'growth', plan: 'growth', credits: 1_000_000, keys: [{}, {}, {}] },
        { id: 'topup', plan: null, topUpTotal: 20_000, credits: 1_000_000 },
        { id: 'topup500k', plan: null, topUpTotal: 500_000, credits: 1_000_000 },
        {
          id: 'starter_topup100k',
          plan: 'starter',
          topUpTotal: 100_000,
          credits: 1_000_000,
          keys: [{}, {}, {}],
        },
      ],
    });
    call = client(sb);
  });
  afterAll(() => sb.close());

  test('starter: 10,000 addresses per hour; the 10,001st is 429 with X-RateLimit-Reset; reads never count', async () => {
    const key = sb.credentials('starter').apiKey;
    const before = sb.ledger('starter');
    expect(
      (await call('POST', '/v1/verify/bulk', { key, body: { emails: emails(9_999, 's') } })).status,
    ).toBe(202);
    for (let i = 0; i < 20; i++) expect((await call('GET', '/v1/jobs', { key })).status).toBe(200);
    expect(
      (await call('POST', '/v1/verify/single', { key, body: { email: 'valid.single@example.com' } })).status,
    ).toBe(200);
    const over = await call('POST', '/v1/verify/single', { key, body: { email: 'valid.other@example.com' } });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limited');
    const reset = Number(over.headers['x-ratelimit-reset']);
    // Epoch seconds: when the request fits, the latest of the refusing windows. The hour and the day
    // both refuse; the day's window frees last, so the reset is a day after the first submission.
    expect(over.body.error.window).toBe('day');
    expect(reset * 1000).toBeGreaterThan(Date.now() + DAY - 60_000);
    expect(reset * 1000).toBeLessThan(Date.now() + DAY + 60_000);
    expect(sb.ledger('starter').charged - before.charged).toBe(10_000);
    // Duplicates are not counted: 1 unique address in 3 spellings would still be over.
    const dup = await call('POST', '/v1/verify/bulk', {
      key,
      body: { emails: ['valid.x@example.com', 'VALID.X@example.com'] },
    });
    expect(dup.status).toBe(429);
    sb.advanceTime(HOUR + 1000);
    // Starter's day limit is 10,000 too: still over a day window.
    const stillOver = await call('POST', '/v1/verify/single', {
      key,
      body: { email: 'valid.later@example.com' },
    });
    expect(stillOver.status).toBe(429);
    expect(stillOver.body.error.window).toBe('day');
    sb.advanceTime(23 * HOUR);
    expect(
      (await call('POST', '/v1/verify/single', { key, body: { email: 'valid.nextday@example.com' } })).status,
    ).toBe(200);
  });

  test("a request larger than a window's whole limit says in its 429 body that it never fits", async () => {
    const acct = sb.addAccount({ plan: 'starter', credits: 100_000 });
    const r = await call('POST', '/v1/verify/bulk', {
      key: acct.apiKey,
      body: { emails: emails(12_000, 'n') },
    });
    expect(r.status).toBe(429);
    expect(r.body.error).toMatchObject({ never_fits: true, limit: 10_000, requested: 12_000 });
    expect(r.body.error.message).toMatch(/larger than the whole allowance and can never be accepted at once/);
    const fits = await call('POST', '/v1/verify/bulk', {
      key: acct.apiKey,
      body: { emails: emails(10_000, 'n') },
    });
    expect(fits.status).toBe(202);
    const later = await call('POST', '/v1/verify/bulk', {
      key: acct.apiKey,
      body: { emails: emails(1, 'm') },
    });
    expect(later.body.error.never_fits).toBeUndefined();
  });

  test('growth: 50,000 per day shared by all three keys, no hourly limit', async () => {
    const keys = sb.apiKeys('growth').map((k) => k.apiKey);
    expect(keys).toHaveLength(3);
    expect(
      (await call('POST', '/v1/verify/bulk', { key: keys[0], body: { emails: emails(20_000, 'a') } })).status,
    ).toBe(202);
    expect(
      (await call('POST', '/v1/verify/bulk', { key: keys[1], body: { emails: emails(20_000, 'b') } })).status,
    ).toBe(202);
    const third = await call('POST', '/v1/verify/bulk', {
      key: keys[2],
      body: { emails: emails(10_001, 'c') },
    });
    expect(third.status).toBe(429);
    expect(
      (await call('POST', '/v1/verify/bulk', { key: keys[2], body: { emails: emails(10_000, 'c') } })).status,
    ).toBe(202);
  });

  test('top-ups: any top-up gives 10,000 per day; 500,000 or more is unlimited', async () => {
    const k1 = sb.credentials('topup').apiKey;
    expect(
      (await call('POST', '/v1/verify/bulk', { key: k1, body: { emails: emails(10_000, 't') } })).status,
    ).toBe(202);
    expect(
      (await call('POST', '/v1/verify/single', { key: k1, body: { email: 'valid.t@example.com' } })).status,
    ).toBe(429);
    const k2 = sb.credentials('topup500k').apiKey;
    for (let i = 0; i < 3; i++)
      expect(
        (await call('POST', '/v1/verify/bulk', { key: k2, body: { emails: emails(50_000, `u${i}`) } }))
          .status,
      ).toBe(202);
  });

  test('plan plus top-ups: the more generous limit applies (starter + 100,000 bought -> 50,000 per day, no hourly cap)', async () => {
    const key = sb.credentials('starter_topup100k').apiKey;
    expect(
      (await call('POST', '/v1/verify/bulk', { key, body: { emails: emails(30_000, 'g') } })).status,
    ).toBe(202);
    expect(
      (await call('POST', '/v1/verify/bulk', { key, body: { emails: emails(20_000, 'h') } })).status,
    ).toBe(202);
    expect(
      (await call('POST', '/v1/verify/single', { key, body: { email: 'valid.z@example.com' } })).status,
    ).toBe(429);
  });

  test('seeding more keys than the plan allows is refused with a clear message', async () => {
    await expect(start({ accounts: [{ id: 'x', plan: 'starter', keys: [{}, {}] }] })).rejects.toThrow(
      /allow 1/,
    );
  });

  test.each(['epoch-seconds', 'delta-seconds', 'http-date'] as const)(
    'X-RateLimit-Reset in %s form is understood by the client',
    async (format) => {
      const sb2 = await start({
        rateLimitResetFormat: format,
        accounts: [{ id: 's', plan: 'starter', credits: 100_000 }],
      });
      try {
        const c = client(sb2);
        await c('POST', '/v1/verify/bulk', { body: { emails: emails(10_000, 'r') } });
        const r = await c('POST', '/v1/verify/single', { body: { email: 'valid.r@example.com' } });
        expect(r.status).toBe(429);
        const raw = r.headers['x-ratelimit-reset']!;
        if (format === 'http-date') expect(raw).toMatch(/GMT$/);
        else expect(raw).toMatch(/^\d+$/);
        const waitMs = parseRetryHeader(raw, Date.now());
        expect(waitMs).toBeGreaterThan(DAY - 60_000);
        expect(waitMs).toBeLessThan(DAY + 60_000);
      } finally {
        await sb2.close();
      }
    },
  );
});
