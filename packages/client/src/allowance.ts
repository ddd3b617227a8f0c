/**
 * The API allowance of an account, from what the spec guarantees: the plan table of its Limits section.
 * GET /v1/account shows `plan`, `credits` and `credits_used_today`; the top-ups an account bought are not
 * shown, so an account without a known plan (top-ups only, or a plan name the tables do not hold) has an
 * unknown allowance, and the client learns it from the service's 429s instead of guessing.
 */
import type { Account } from './types';

/** Addresses per window; null = no limit in that window. */
export interface ApiAllowance {
  perHour: number | null;
  perDay: number | null;
  /** The plan it comes from, as the spec's table names it (for words such as "Starter plan"). */
  plan?: string;
}

const UNLIMITED = { perHour: null, perDay: null } as const;

/** The spec's plan table (Plan | Per hour | Per day). */
export const PLAN_ALLOWANCES: Readonly<Record<string, ApiAllowance>> = {
  starter: { perHour: 10_000, perDay: 10_000, plan: 'Starter' },
  growth: { perHour: null, perDay: 50_000, plan: 'Growth' },
  plus: { perHour: null, perDay: 100_000, plan: 'Plus' },
  pro: { ...UNLIMITED, plan: 'Pro' },
  scale: { ...UNLIMITED, plan: 'Scale' },
  scale_max: { ...UNLIMITED, plan: 'Scale Max' },
};

/** The smallest daily allowance any paid account has (Starter, any top-up): a job this size fits every account. */
export const SMALLEST_DAILY_ALLOWANCE = 10_000;

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** "Scale Max", "scale-max", "SCALE_MAX" -> "scale_max". */
function planKey(plan: unknown): string | undefined {
  return typeof plan === 'string' && plan.trim()
    ? plan
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, '_')
    : undefined;
}

/** The allowance the account's plan gives, or undefined when the plan is absent or not in the spec's table. */
export function allowanceOf(account: Account | { plan: unknown }): ApiAllowance | undefined {
  const key = planKey(account.plan);
  return key === undefined || !Object.prototype.hasOwnProperty.call(PLAN_ALLOWANCES, key)
    ? undefined
    : PLAN_ALLOWANCES[key];
}

/** The job size to use: what was asked, lowered to the allowance's smallest window. */
export function allowanceJobSize(asked: number, allowance: ApiAllowance | undefined): number {
  if (!allowance) return asked;
  const windows = [allowance.perHour, allowance.perDay].filter((v): v is number => v !== null && v > 0);
  return Math.min(asked, ...windows);
}

/**
 * What the allowance takes now, given the credits the account used in the last 24 hours (which covers
 * the last hour too, so the hourly figure is never overstated), and how long until the binding window
 * is wholly free again. Infinity for an unlimited allowance.
 */
export function allowanceLeft(
  allowance: ApiAllowance,
  usedToday: unknown,
): { left: number; freeAfterMs: number } {
  const used = typeof usedToday === 'number' && Number.isFinite(usedToday) && usedToday > 0 ? usedToday : 0;
  let left = Number.POSITIVE_INFINITY;
  let freeAfterMs = 0;
  for (const [limit, windowMs] of [
    [allowance.perHour, HOUR_MS],
    [allowance.perDay, DAY_MS],
  ] as const) {
    if (limit === null) continue;
    const here = Math.max(0, limit - used);
    if (here < left || (here === left && windowMs > freeAfterMs)) {
      left = here;
      freeAfterMs = windowMs;
    }
  }
  return { left, freeAfterMs };
}
