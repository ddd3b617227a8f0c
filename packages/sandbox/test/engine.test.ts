import { categorize } from '@evf/client';
import { SandboxClock } from '../src/clock';
import { AccountStore } from '../src/engine/accounts';
import { CreditLedger } from '../src/engine/ledger';
import { addressHash, isRefundable, outcomeKind, resultRow, verdictOf } from '../src/engine/outcomes';
import { allowanceFor } from '../src/engine/plans';
import { UsageWindow } from '../src/engine/usage-window';
import { formatWaitHeader } from '../src/http/reply';
import { validateBulkBody } from '../src/routes/validate-bulk';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('plans and top-ups', () => {
  test.each([
    ['starter', 0, { keys: 1, perHour: 10_000, perDay: 10_000 }],
    ['growth', 0, { keys: 3, perHour: null, perDay: 50_000 }],
    ['plus', 0, { keys: 3, perHour: null, perDay: 100_000 }],
    ['pro', 0, { keys: 10, perHour: null, perDay: null }],
    ['scale', 0, { keys: 10, perHour: null, perDay: null }],
    ['scale_max', 0, { keys: 10, perHour: null, perDay: null }],
    [null, 1, { keys: 1, perHour: null, perDay: 10_000 }],
    [null, 100_000, { keys: 3, perHour: null, perDay: 50_000 }],
    [null, 500_000, { keys: null, perHour: null, perDay: null }],
    ['starter', 100_000, { keys: 3, perHour: null, perDay: 50_000 }],
    ['plus', 100_000, { keys: 3, perHour: null, perDay: 100_000 }],
    ['pro', 500_000, { keys: null, perHour: null, perDay: null }],
  ] as const)('%s with %d bought', (plan, topUp, expected) => {
    expect(allowanceFor(plan, topUp)).toEqual(expected);
  });

  test('no plan and no top-up: no API access', () => {
    expect(allowanceFor(null, 0)).toBeNull();
  });
});

describe('credit ledger', () => {
  test('charges, refunds and rolling windows net of refunds', () => {
    const ledger = new CreditLedger(100);
    ledger.charge(10, 0, 'job_a');
    ledger.refund(3, 1000, 'job_a');
    expect(ledger.summary()).toEqual({ credits: 93, charged: 10, refunded: 3 });
    expect(ledger.usedToday(2000)).toBe(7);
    ledger.charge(5, DAY + 500, 'single');
    expect(ledger.usedToday(DAY + 1500)).toBe(5);
    expect(ledger.usedThisMonth(DAY + 1500)).toBe(12);
    expect(ledger.usedThisMonth(31 * DAY)).toBe(5);
    expect(ledger.usedThisMonth(31 * DAY + 1000)).toBe(0);
    expect(() => ledger.charge(1000, 0, 'x')).toThrow();
    expect(ledger.canAfford(88)).toBe(true);
    expect(ledger.canAfford(89)).toBe(false);
  });
});

describe('usage window', () => {
  test('counts addresses in the rolling hour and day; reset is when enough old usage leaves', () => {
    const w = new UsageWindow();
    const allowance = { keys: 1, perHour: 100, perDay: 150 };
    w.record(60, 0);
    w.record(30, 10 * 60_000);
    expect(w.check(allowance, 10, 20 * 60_000)).toEqual({ ok: true });
    const over = w.check(allowance, 20, 20 * 60_000);
    expect(over).toMatchObject({ ok: false, window: 'hour', limit: 100, used: 90, resetAt: HOUR });
    expect(w.check(allowance, 20, HOUR + 1).ok).toBe(true);
    w.record(50, HOUR + 1);
    const day = w.check(allowance, 20, HOUR + 2);
    expect(day).toMatchObject({ ok: false, window: 'day', resetAt: DAY });
  });

  test('a request larger than the limit itself is refused with the time the window empties', () => {
    const w = new UsageWindow();
    const d = w.check({ keys: 1, perHour: 10, perDay: null }, 11, 5000);
    expect(d.ok).toBe(false);
    expect(d.resetAt).toBe(5000 + HOUR);
  });
});

describe('wait headers', () => {
  test('the three forms', () => {
    const now = Date.UTC(2025, 0, 1, 12, 0, 0);
    expect(formatWaitHeader(now + 30_000, now, 'epoch-seconds')).toBe(String(now / 1000 + 30));
    expect(formatWaitHeader(now + 29_001, now, 'delta-seconds')).toBe('30');
    expect(formatWaitHeader(now + 30_000, now, 'http-date')).toBe('Wed, 01 Jan 2025 12:00:30 GMT');
  });
});

describe('outcomes', () => {
  test.each([
    ['trap@x.com', 'spam_trap'],
    ['TEMP.x@x.com', 'disposable'],
    ['support.team@x.com', 'role'],
    ['valid@x.com', 'valid'],
    ['invalid@x.com', 'invalid'],
    ['disabled@x.com', 'disabled'],
    ['CatchAll@x.com', 'catch_all'],
    ['full@x.com', 'inbox_full'],
    ['unknown@x.com', 'unknown'],
    ['notverified@x.com', 'not_verified'],
    ['slow@x.com', 'slow'],
  ])('%s -> %s', (email, kind) => {
    expect(outcomeKind(email)).toBe(kind);
  });

  test('the local part decides, not the domain', () => {
    expect(outcomeKind('someone@valid.example.com')).not.toBe('slow');
    expect(outcomeKind('valid@trap.example.com')).toBe('valid');
  });

  test('other addresses: deterministic, mostly valid, and each kind of hash outcome occurs', () => {
    const kinds = new Map<string, number>();
    for (let i = 0; i < 5000; i++) {
      const k = outcomeKind(`person${i}@example.com`);
      kinds.set(k, (kinds.get(k) ?? 0) + 1);
    }
    expect([...kinds.keys()].sort()).toEqual(['catch_all', 'invalid', 'unknown', 'valid']);
    expect(kinds.get('valid')! / 5000).toBeGreaterThan(0.6);
    expect(addressHash('A@B.com')).toBe(addressHash('a@b.COM'));
  });

  test('rows are realistic and their verdict, bucket and refund flags follow details', () => {
    for (let i = 0; i < 300; i++) {
      const email = `x${i}@example.com`;
      const row = resultRow(email);
      expect(row.score).toBeGreaterThanOrEqual(0);
      expect(row.score).toBeLessThanOrEqual(1);
      expect(row.reason.length).toBeGreaterThan(0);
      const verdict = verdictOf(row.details);
      const { group } = categorize(row.details);
      if (row.details.primary_label === 'valid' && row.details.tags.length === 0)
        expect([verdict, group]).toEqual(['valid', 'safe_to_send']);
      if (row.details.primary_label === 'unknown') expect(isRefundable(outcomeKind(email))).toBe(true);
      expect(row.valid).toBe(row.status === 'valid');
    }
    expect(verdictOf(resultRow('trap@x.com').details)).toBe('invalid');
    expect(verdictOf(resultRow('temp@x.com').details)).toBe('disposable');
    expect(verdictOf(resultRow('info@x.com').details)).toBe('role_based');
    expect(verdictOf(resultRow('full@x.com').details)).toBe('risky');
    expect(verdictOf(resultRow('notverified@x.com').details)).toBe('unknown');
  });
});

describe('bulk body rules', () => {
  test('dedupe ignores case and keeps the first spelling, in order', () => {
    const r = validateBulkBody({ emails: ['B@x.com', 'a@x.com', 'b@X.com', 'A@x.com', 'c@x.com'] }, false);
    expect(r.unique).toEqual(['B@x.com', 'a@x.com', 'c@x.com']);
    expect(r.priority).toBe('normal');
    expect(r.checkSmtp).toBe(true);
  });

  test('the 422 lists at most 1000 offending items and counts them all', () => {
    try {
      validateBulkBody({ emails: Array.from({ length: 1500 }, (_, i) => `bad${i}`) }, false);
      throw new Error('expected a 422');
    } catch (err) {
      const e = err as { status: number; extra: { invalid_emails: unknown[]; invalid_count: number } };
      expect(e.status).toBe(422);
      expect(e.extra.invalid_emails).toHaveLength(1000);
      expect(e.extra.invalid_count).toBe(1500);
    }
  });
});

describe('accounts and keys', () => {
  test('seeding checks plans, keys and secrets; revocation is per account', () => {
    const store = new AccountStore(() => 0);
    expect(() => store.add({ plan: 'gold' as never })).toThrow(/plan must be one of/);
    expect(() => store.add({ keys: [{ key: 'sk_live_123456789' }], plan: 'pro' })).toThrow(/evf_/);
    expect(() => store.add({ webhookSecret: 'secret', plan: 'pro' })).toThrow(/whsec_/);
    const a = store.add({ id: 'a', plan: 'pro', keys: [{ id: 'k1' }] });
    const b = store.add({ id: 'b', plan: 'pro', keys: [{ id: 'k2' }] });
    expect(store.revoke(a, 'k2')).toBe(false);
    expect(store.revoke(b, 'k2')).toBe(true);
    expect(store.revoke(b, 'k2')).toBe(true);
    expect(() => store.authenticate(store.credentials(b).apiKey)).toThrow(/revoked/);
    expect(store.authenticate(store.credentials(a).apiKey)).toBe(a);
    expect(store.credentials(a).apiKey).toMatch(/^evf_[0-9a-f]{40}$/);
    expect(store.credentials(a).webhookSecret).toMatch(/^whsec_[0-9a-f]{48}$/);
  });
});

describe('clock', () => {
  test('scales waits, advances wall time, refuses a bad scale', async () => {
    expect(() => new SandboxClock(0)).toThrow(/timeScale/);
    const clock = new SandboxClock(0.01, () => 1000);
    expect(clock.scaled(30_000)).toBe(300);
    clock.advance(DAY);
    expect(clock.now()).toBe(1000 + DAY);
    // A 2 s spec wait is 20 ms at 0.01, counted on jest's fake timers: no wall clock in a unit test.
    jest.useFakeTimers();
    try {
      let done = false;
      const slept = clock.sleep(2000).then(() => (done = true));
      await jest.advanceTimersByTimeAsync(19);
      expect(done).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await slept;
      expect(done).toBe(true);
    } finally {
      jest.useRealTimers();
    }
    clock.close();
  });
});
