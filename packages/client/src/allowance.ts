/**
 * The API allowance of an account, from the spec's Limits tables: how many addresses its keys may
 * verify per hour and per day. A job larger than the allowance can never be accepted, so the client
 * sizes jobs to it when it is known.
 */
import type { Account } from './types';

/** Addresses per window; null = no limit in that window. */
export interface ApiAllowance {
  perHour: number | null;
  perDay: number | null;
  /**
   * False when this is a floor: a plan whose top-ups are not shown may allow more. Jobs are still sized
   * to a floor (a smaller job always fits); only an exact allowance refuses a list as too large.
   */
  exact?: boolean;
}

const UNLIMITED: ApiAllowance = { perHour: null, perDay: null };

/** The spec's plan table (Plan | Per hour | Per day). */
export const PLAN_ALLOWANCES: Readonly<Record<string, ApiAllowance>> = {
  starter: { perHour: 10_000, perDay: 10_000 },
  growth: { perHour: null, perDay: 50_000 },
  plus: { perHour: null, perDay: 100_000 },
  pro: UNLIMITED,
  scale: UNLIMITED,
  scale_max: UNLIMITED,
};

/** The spec's top-up table (Total bought | Per day), most generous first. */
const TOP_UP_ALLOWANCES: ReadonlyArray<{ atLeast: number; allowance: ApiAllowance }> = [
  { atLeast: 500_000, allowance: UNLIMITED },
  { atLeast: 100_000, allowance: { perHour: null, perDay: 50_000 } },
  { atLeast: 1, allowance: { perHour: null, perDay: 10_000 } },
];

/** The smallest allowance any paid account has: lists up to this size never need the account looked up. */
export const SMALLEST_DAILY_ALLOWANCE = 10_000;

/** "Scale Max", "scale-max", "SCALE_MAX" -> "scale_max". */
function planKey(plan: unknown): string | undefined {
  return typeof plan === 'string' && plan.trim() ? plan.trim().toLowerCase().replace(/[\s-]+/g, '_') : undefined;
}

/** With both a plan and top-ups the more generous limit applies, window by window (null = none). */
function moreGenerous(a: ApiAllowance, b: ApiAllowance): ApiAllowance {
  const pick = (x: number | null, y: number | null): number | null => (x === null || y === null ? null : Math.max(x, y));
  return { perHour: pick(a.perHour, b.perHour), perDay: pick(a.perDay, b.perDay) };
}

const limitOrNull = (v: unknown): number | null | undefined =>
  v === null ? null : typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;

/**
 * The allowance an account's data shows, or undefined when it cannot be told. The spec does not show
 * the account's further fields, so an explicit allowance object is used when one is there; else the
 * plan and the top-up total decide, and an unknown plan with no top-up figure means "unknown".
 */
export function allowanceOf(account: Account): ApiAllowance | undefined {
  const explicit = account.api_allowance;
  if (explicit && typeof explicit === 'object') {
    const perHour = limitOrNull((explicit as Record<string, unknown>).per_hour);
    const perDay = limitOrNull((explicit as Record<string, unknown>).per_day);
    if (perHour !== undefined && perDay !== undefined) return { perHour, perDay, exact: true };
  }
  const key = planKey(account.plan);
  const fromPlan = key === undefined ? undefined : PLAN_ALLOWANCES[key];
  const topUps = typeof account.top_up_total === 'number' ? account.top_up_total : undefined;
  const fromTopUps = topUps === undefined ? undefined : TOP_UP_ALLOWANCES.find((t) => topUps >= t.atLeast)?.allowance;
  // A known plan without a top-up figure: top-ups could only raise it, so it is a floor, not the truth.
  if (fromPlan && topUps === undefined) return { ...fromPlan, exact: fromPlan === UNLIMITED };
  if (fromPlan && fromTopUps) return { ...moreGenerous(fromPlan, fromTopUps), exact: true };
  if (fromPlan) return { ...fromPlan, exact: true };
  if (key === undefined && fromTopUps) return { ...fromTopUps, exact: true };
  return undefined;
}

/** The job size to use: what was asked, lowered to the allowance's smallest window. */
export function allowanceJobSize(asked: number, allowance: ApiAllowance | undefined): number {
  if (!allowance) return asked;
  const windows = [allowance.perHour, allowance.perDay].filter((v): v is number => v !== null && v > 0);
  return Math.min(asked, ...windows);
}
