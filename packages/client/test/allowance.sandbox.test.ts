/**
 * Job size and the account's API allowance (the spec's Limits tables). A job larger than the allowance
 * can never be accepted, so it is never made; a list the daily allowance cannot take is refused before
 * anything is charged, with the allowance named.
 */
import { allowanceOf, InputError } from '@evf/client';
import { planSubmission } from '../src/bulk';
import { createClient } from '@evf/client/node';
import { startFastSandbox } from '../../../test/support/sandbox';
import type { Sandbox } from '@evf/sandbox';

describe('allowanceOf: the plan and top-up tables', () => {
  test.each([
    [{ plan: 'starter', top_up_total: 0 }, { perHour: 10_000, perDay: 10_000, exact: true }],
    [{ plan: 'Growth', top_up_total: 0 }, { perHour: null, perDay: 50_000, exact: true }],
    [{ plan: 'plus', top_up_total: 0 }, { perHour: null, perDay: 100_000, exact: true }],
    [{ plan: 'Scale Max' }, { perHour: null, perDay: null, exact: true }],
    // With both a plan and top-ups the more generous limit applies, window by window.
    [{ plan: 'starter', top_up_total: 100_000 }, { perHour: null, perDay: 50_000, exact: true }],
    [{ plan: 'growth', top_up_total: 500_000 }, { perHour: null, perDay: null, exact: true }],
    [{ plan: null, top_up_total: 20 }, { perHour: null, perDay: 10_000, exact: true }],
    // A plan whose top-ups are not shown: a floor (jobs are sized to it, no list is refused by it).
    [{ plan: 'starter' }, { perHour: 10_000, perDay: 10_000, exact: false }],
  ])('%j -> %j', (account, expected) => {
    expect(allowanceOf({ credits: 0, credits_used_today: 0, ...account })).toEqual(expected);
  });

  test('an explicit allowance object in the account wins; an unknown plan with nothing else is unknown', () => {
    expect(allowanceOf({ plan: 'starter', credits: 0, credits_used_today: 0, api_allowance: { per_hour: null, per_day: 75_000 } })).toEqual({
      perHour: null,
      perDay: 75_000,
      exact: true,
    });
    expect(allowanceOf({ plan: 'enterprise-2027', credits: 0, credits_used_today: 0 })).toBeUndefined();
  });
});

describe('planSubmission sizes jobs to the allowance', () => {
  const list = Array.from({ length: 7 }, (_, i) => `lead${i}@example.com`);

  test('an hourly window smaller than 50,000 becomes the job size', () => {
    expect(planSubmission(list, { allowance: { perHour: 3, perDay: null } }).chunks.map((c) => c.length)).toEqual([3, 3, 1]);
  });

  test('a list over the daily allowance is refused before anything is sent, naming the allowance', () => {
    const error = (() => {
      try {
        planSubmission(list, { allowance: { perHour: null, perDay: 5 } });
      } catch (e) {
        return e;
      }
    })() as InputError;
    expect(error).toBeInstanceOf(InputError);
    expect(error.rule).toBe('allowance');
    expect(error.message).toMatch(/7 unique addresses, but this account's API allowance is 5 addresses a day/);
    expect(error.message).toMatch(/dashboard/);
  });

  test('a floor (top-ups unknown) sizes jobs but refuses nothing', () => {
    expect(planSubmission(list, { allowance: { perHour: 5, perDay: 5, exact: false } }).chunks.map((c) => c.length)).toEqual([5, 2]);
  });
});

describe('submitList reads the allowance from the account (against the sandbox)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startFastSandbox({ timeScale: 1 / 1000 });
  });
  afterAll(() => sb.close());
  const big = Array.from({ length: 10_500 }, (_, i) => `valid.lead${i}@example.com`);

  test('Starter: a list of 10,500 can never fit 10,000 a day: refused, no POST, nothing charged', async () => {
    const acct = sb.addAccount({ plan: 'starter', credits: 100_000 });
    const client = createClient({ apiKey: acct.apiKey, baseUrl: sb.baseUrl });
    const from = sb.requests.length;
    await expect(client.submitList({ emails: big })).rejects.toMatchObject({ rule: 'allowance' });
    expect(sb.requests.slice(from).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/account']);
    expect(sb.ledger(acct.accountId).charged).toBe(0);
  });

  test('Starter with 500,000 in top-ups (unlimited): the same list is one job', async () => {
    const acct = sb.addAccount({ plan: 'starter', topUpTotal: 500_000, credits: 100_000 });
    const client = createClient({ apiKey: acct.apiKey, baseUrl: sb.baseUrl });
    const { jobs } = await client.submitList({ emails: big });
    expect(jobs.map((j) => j.total_emails)).toEqual([10_500]);
  });

  test('a list within the smallest allowance does not read the account', async () => {
    const acct = sb.addAccount({ plan: 'starter', credits: 100 });
    const client = createClient({ apiKey: acct.apiKey, baseUrl: sb.baseUrl });
    const from = sb.requests.length;
    await client.submitList({ emails: ['valid.one@example.com'] });
    expect(sb.requests.slice(from).map((r) => r.path)).toEqual(['/v1/verify/bulk']);
  });
});

describe('planList, withJobFields, submitPlan: one scan of the list', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startFastSandbox({ timeScale: 1 / 1000 });
  });
  afterAll(() => sb.close());

  test('fields changed after planning are checked again, and the plan posts as planned', async () => {
    const acct = sb.addAccount({ plan: 'pro', credits: 100 });
    const client = createClient({ apiKey: acct.apiKey, baseUrl: sb.baseUrl });
    const plan = await client.planList({ emails: ['valid.a@example.com', 'VALID.A@example.com', 'bad@'], name: 'May' });
    expect(plan.chunks).toEqual([['valid.a@example.com']]);
    await expect(client.withJobFields(plan, { webhook_url: 'http://hooks.example.com/x' })).rejects.toMatchObject({ field: 'webhook_url' });
    const renamed = await client.withJobFields(plan, { name: 'June' });
    const { jobs } = await client.submitPlan(renamed);
    expect(jobs).toHaveLength(1);
    expect((await client.listJobs()).jobs.map((j) => j.total_emails)).toEqual([1]);
  });
});
