/**
 * Job size and the account's API allowance, from what the spec guarantees: the plan table of its Limits
 * section. GET /v1/account shows the plan but not the top-ups, so no plan (or a plan the table does not
 * hold) is an unknown allowance, never a guess.
 */
import { AllowanceExceededError, allowanceOf, InputError } from '@evf/client';
import { allowanceLeft } from '../src/allowance';
import { assertMaxJobs, planSubmission } from '../src/bulk';

describe('allowanceOf: the plan table', () => {
  test.each([
    [{ plan: 'starter' }, { perHour: 10_000, perDay: 10_000, plan: 'Starter' }],
    [{ plan: 'Growth' }, { perHour: null, perDay: 50_000, plan: 'Growth' }],
    [{ plan: 'plus' }, { perHour: null, perDay: 100_000, plan: 'Plus' }],
    [{ plan: 'Scale Max' }, { perHour: null, perDay: null, plan: 'Scale Max' }],
  ])('%j -> %j', (account, expected) => {
    expect(allowanceOf({ credits: 0, credits_used_today: 0, ...account })).toEqual(expected);
  });

  test('no plan, an unknown plan name, or fields the spec does not show: unknown', () => {
    expect(allowanceOf({ plan: null, credits: 0, credits_used_today: 0 })).toBeUndefined();
    expect(allowanceOf({ plan: 'enterprise-2027', credits: 0, credits_used_today: 0 })).toBeUndefined();
    expect(allowanceOf({ plan: 'constructor', credits: 0, credits_used_today: 0 })).toBeUndefined();
    // Extras a sandbox or a future service might add are not read: the spec does not show them.
    expect(
      allowanceOf({
        plan: null,
        credits: 0,
        credits_used_today: 0,
        api_allowance: { per_day: 50_000 },
        top_up_total: 100_000,
      }),
    ).toBeUndefined();
  });

  test('allowanceLeft: the plan less what was used in the last 24 hours, and when the binding window frees', () => {
    const day = 24 * 3600_000;
    expect(allowanceLeft(allowanceOf({ plan: 'starter' })!, 0)).toEqual({ left: 10_000, freeAfterMs: day });
    expect(allowanceLeft(allowanceOf({ plan: 'growth' })!, 46_000)).toEqual({
      left: 4_000,
      freeAfterMs: day,
    });
    expect(allowanceLeft(allowanceOf({ plan: 'growth' })!, 60_000)).toEqual({ left: 0, freeAfterMs: day });
    expect(allowanceLeft({ perHour: 1_000, perDay: 10_000 }, 500)).toEqual({
      left: 500,
      freeAfterMs: 3600_000,
    });
    expect(allowanceLeft(allowanceOf({ plan: 'pro' })!, 9e9).left).toBe(Number.POSITIVE_INFINITY);
    expect(allowanceLeft(allowanceOf({ plan: 'starter' })!, undefined).left).toBe(10_000);
  });
});

describe('planSubmission sizes jobs to the allowance', () => {
  const list = Array.from({ length: 7 }, (_, i) => `lead${i}@example.com`);

  test('an hourly window smaller than 50,000 becomes the job size', () => {
    expect(
      planSubmission(list, { allowance: { perHour: 3, perDay: null } }).chunks.map((c) => c.length),
    ).toEqual([3, 3, 1]);
  });

  test('a list over the daily allowance is split, not refused: it goes in over days', () => {
    expect(
      planSubmission(list, { allowance: { perHour: null, perDay: 5 } }).chunks.map((c) => c.length),
    ).toEqual([5, 2]);
  });

  test('one job asked for (maxJobs 1) and larger than the daily allowance: AllowanceExceededError, never retry-later', () => {
    const plan = planSubmission(list, { allowance: { perHour: null, perDay: 5, plan: 'Starter' } });
    let error: unknown;
    try {
      assertMaxJobs(plan, 1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AllowanceExceededError);
    expect(error).toBeInstanceOf(InputError);
    expect(error).toMatchObject({ perDay: 5, asked: 7, rule: 'allowance' });
    expect((error as Error).message).toMatch(/Starter plan\) of 5 addresses a day/);
    expect((error as Error).message).toMatch(/shared by all the account's keys/);
    expect((error as Error).message).toMatch(/dashboard \(up to 2,000,000 addresses/);
  });

  test('more jobs than allowed for another reason stays max_jobs', () => {
    const plan = planSubmission(list, { maxPerJob: 2 });
    expect(() => assertMaxJobs(plan, 1)).toThrow(expect.objectContaining({ rule: 'max_jobs' }));
  });
});
