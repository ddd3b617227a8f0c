import { categorize } from '@evf/client';
import type { Sandbox } from '@evf/sandbox';
import { client, readAll, start, waitTerminal } from './helpers';

const DAY = 24 * 60 * 60 * 1000;

/** The README's outcome table: local part -> [primary_label, tag or null, status]. */
const TABLE: Array<[string, string, string | null, string]> = [
  ['trap1@example.com', 'invalid', 'spam_trap', 'invalid'],
  ['temp1@example.com', 'valid', 'disposable', 'risky'],
  ['info@example.com', 'valid', 'role', 'risky'],
  ['sales@example.com', 'valid', 'role', 'risky'],
  ['admin@example.com', 'valid', 'role', 'risky'],
  ['support@example.com', 'valid', 'role', 'risky'],
  ['contact@example.com', 'valid', 'role', 'risky'],
  ['hello@example.com', 'valid', 'role', 'risky'],
  ['valid.jane@example.com', 'valid', null, 'valid'],
  ['invalid.joe@example.com', 'invalid', null, 'invalid'],
  ['disabled1@example.com', 'disabled', null, 'invalid'],
  ['full1@example.com', 'inbox_full', null, 'risky'],
  ['unknown1@example.com', 'unknown', null, 'risky'],
  ['notverified1@example.com', 'not_verified', null, 'risky'],
  ['VALID.Upper@Example.com', 'valid', null, 'valid'],
];

describe('sandbox conformance: single verification, outcomes and the credit ledger', () => {
  let sb: Sandbox;
  let call: ReturnType<typeof client>;
  beforeAll(async () => {
    sb = await start({
      accounts: [
        { id: 'acct_main', plan: 'pro', credits: 10_000 },
        { id: 'acct_poor', plan: 'pro', credits: 2 },
      ],
    });
    call = client(sb);
  });
  afterAll(() => sb.close());

  test.each(TABLE)('single %s -> %s / %s / %s, one credit', async (email, label, tag, status) => {
    const before = sb.ledger().credits;
    const r = await call('POST', '/v1/verify/single', { body: { email } });
    expect(r.status).toBe(200);
    expect(r.body.email).toBe(email);
    expect(r.body.details.primary_label).toBe(label);
    expect(r.body.details.tags.map((t: { label: string }) => t.label)).toEqual(tag ? [tag] : []);
    expect(r.body.status).toBe(status);
    expect(r.body.valid).toBe(status === 'valid');
    expect(r.body.details.label_reasons.length).toBeGreaterThan(0);
    expect(r.body.credits_used).toBe(1);
    expect(r.body.credits_remaining).toBe(before - 1);
    expect(sb.ledger().credits).toBe(before - 1);
    expect(Number.isNaN(Date.parse(r.body.processed_at))).toBe(false);
  });

  test('catch-all answers carry safe_to_send fields, and some rows say invalid while details say catch_all', async () => {
    const statuses = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const r = await call('POST', '/v1/verify/single', { body: { email: `catchall${i}@example.com` } });
      expect(r.body.details.primary_label).toBe('catch_all');
      expect(typeof r.body.details.safe_to_send).toBe('string');
      expect(typeof r.body.details.safe_to_send_score).toBe('number');
      expect(Array.isArray(r.body.details.safe_to_send_reasons)).toBe(true);
      expect(categorize(r.body.details).category).toBe('Catch-All');
      statuses.add(r.body.status);
    }
    expect(statuses).toEqual(new Set(['risky', 'invalid']));
  });

  test('answers are deterministic: the same address gives the same row', async () => {
    const a = await call('POST', '/v1/verify/single', { body: { email: 'someone.random@example.org' } });
    const b = await call('POST', '/v1/verify/single', { body: { email: 'someone.random@example.org' } });
    const { processed_at: _a, credits_remaining: _ar, ...restA } = a.body;
    const { processed_at: _b, credits_remaining: _br, ...restB } = b.body;
    expect(restA).toEqual(restB);
  });

  test('slow... takes longer than 30 s: 408 and the credit is refunded; with check_smtp false it answers', async () => {
    const before = sb.ledger();
    const r = await call('POST', '/v1/verify/single', { body: { email: 'slow1@example.com' } });
    expect(r.status).toBe(408);
    expect(r.body.error.code).toBe('verification_timeout');
    const after = sb.ledger();
    expect(after.credits).toBe(before.credits);
    expect(after.charged - before.charged).toBe(1);
    expect(after.refunded - before.refunded).toBe(1);
    const quick = await call('POST', '/v1/verify/single', {
      body: { email: 'slow1@example.com', check_smtp: false },
    });
    expect(quick.status).toBe(200);
  });

  test('a malformed or missing address is 422 and free', async () => {
    const before = sb.ledger();
    for (const body of [{ email: 'not-an-address' }, { email: 'a@b' }, {}, { email: 42 }]) {
      const r = await call('POST', '/v1/verify/single', { body });
      expect(r.status).toBe(422);
      expect(r.body.error.field).toBe('email');
    }
    const bad = await call('POST', '/v1/verify/single', { rawBody: '{not json' });
    expect(bad.status).toBe(400);
    expect(sb.ledger()).toEqual(before);
  });

  test('402 when the balance is short, nothing charged', async () => {
    const poor = sb.credentials('acct_poor').apiKey;
    const before = sb.ledger('acct_poor');
    const r = await call('POST', '/v1/verify/bulk', {
      key: poor,
      body: { emails: ['valid1@example.com', 'valid2@example.com', 'valid3@example.com'] },
    });
    expect(r.status).toBe(402);
    expect(r.body.error.code).toBe('insufficient_credits');
    expect(sb.ledger('acct_poor')).toEqual(before);
    expect(
      (await call('POST', '/v1/verify/single', { key: poor, body: { email: 'valid1@example.com' } })).status,
    ).toBe(200);
    expect(
      (await call('POST', '/v1/verify/single', { key: poor, body: { email: 'valid1@example.com' } })).status,
    ).toBe(200);
    expect(
      (await call('POST', '/v1/verify/single', { key: poor, body: { email: 'valid1@example.com' } })).status,
    ).toBe(402);
    expect(sb.ledger('acct_poor').credits).toBe(0);
  });

  test('bulk: one credit per unique address (case-insensitive), unknown and not_verified refunded at finish', async () => {
    const emails = [
      'valid1@example.com',
      'VALID1@example.com',
      'Valid1@Example.COM',
      'unknown1@example.com',
      'notverified1@example.com',
      'trap1@example.com',
      'unknown1@EXAMPLE.com',
    ];
    const before = sb.ledger();
    const r = await call('POST', '/v1/verify/bulk', { body: { emails, name: 'dedupe' } });
    expect(r.status).toBe(202);
    expect(r.body.status).toBe('queued');
    expect(r.body.total_emails).toBe(4);
    expect(r.body.credits_used).toBe(4);
    expect(r.body.credits_remaining).toBe(before.credits - 4);
    const job = await waitTerminal(call, r.body.job_id);
    expect(job.status).toBe('completed');
    const rows = await readAll(call, r.body.job_id);
    // The first spelling is kept.
    expect(rows.map((x) => x.email)).toEqual([
      'valid1@example.com',
      'unknown1@example.com',
      'notverified1@example.com',
      'trap1@example.com',
    ]);
    const after = sb.ledger();
    expect(after.charged - before.charged).toBe(4);
    expect(after.refunded - before.refunded).toBe(2);
    expect(after.credits).toBe(before.credits - 2);
  });

  test('reads are free: polling, results, account and jobs list change nothing', async () => {
    const before = sb.ledger();
    for (const path of ['/v1/account/credits', '/v1/account', '/v1/subscription', '/v1/jobs']) {
      expect((await call('GET', path)).status).toBe(200);
    }
    expect(sb.ledger()).toEqual(before);
  });

  test('credit balance, account and subscription fields; used today / this month cover the last 24 h / 30 days', async () => {
    const c1 = await call('GET', '/v1/account/credits');
    expect(c1.body.plan_limit).toBeNull();
    expect(c1.body.credits).toBe(sb.ledger().credits);
    const usedNow = c1.body.credits_used_today;
    expect(usedNow).toBeGreaterThan(0);
    expect(c1.body.credits_used_this_month).toBe(usedNow);
    sb.advanceTime(DAY + 1000);
    const c2 = await call('GET', '/v1/account/credits');
    expect(c2.body.credits_used_today).toBe(0);
    expect(c2.body.credits_used_this_month).toBe(usedNow);
    await call('POST', '/v1/verify/single', { body: { email: 'valid.again@example.com' } });
    const c3 = await call('GET', '/v1/account/credits');
    expect(c3.body.credits_used_today).toBe(1);
    expect(c3.body.credits_used_this_month).toBe(usedNow + 1);
    sb.advanceTime(30 * DAY);
    const c4 = await call('GET', '/v1/account/credits');
    expect(c4.body.credits_used_this_month).toBe(0);
    expect(Date.parse(c4.body.renewal_date)).toBeGreaterThan(Date.now());
    const account = await call('GET', '/v1/account');
    expect(account.body.plan).toBe('pro');
    expect(account.body.credits).toBe(c4.body.credits);
    const sub = await call('GET', '/v1/subscription');
    expect(sub.body).toMatchObject({
      status: 'active',
      plan: 'pro',
      has_billing: true,
      is_trial: false,
      trial_expired: false,
    });
  });
});
