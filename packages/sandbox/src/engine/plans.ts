/**
 * The spec's plan and top-up tables, and how they combine into one account allowance.
 * `null` means "no limit" in every field.
 */
export const PLAN_NAMES = ['starter', 'growth', 'plus', 'pro', 'scale', 'scale_max'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Allowance {
  /** Number of API keys the account may hold; null = not limited. */
  keys: number | null;
  /** Addresses per rolling hour; null = no hourly limit. */
  perHour: number | null;
  /** Addresses per rolling day; null = unlimited. */
  perDay: number | null;
}

const PLAN_TABLE: Record<PlanName, Allowance> = {
  starter: { keys: 1, perHour: 10_000, perDay: 10_000 },
  growth: { keys: 3, perHour: null, perDay: 50_000 },
  plus: { keys: 3, perHour: null, perDay: 100_000 },
  pro: { keys: 10, perHour: null, perDay: null },
  scale: { keys: 10, perHour: null, perDay: null },
  scale_max: { keys: 10, perHour: null, perDay: null },
};

/** Top-ups by the total ever bought; the top-up table has no hourly column, so no hourly limit. */
function topUpAllowance(totalBought: number): Allowance | null {
  if (totalBought >= 500_000) return { keys: null, perHour: null, perDay: null };
  if (totalBought >= 100_000) return { keys: 3, perHour: null, perDay: 50_000 };
  if (totalBought > 0) return { keys: 1, perHour: null, perDay: 10_000 };
  return null;
}

/** The more generous of two limits, where null (no limit) is the most generous. */
function generous(a: number | null, b: number | null): number | null {
  if (a === null || b === null) return null;
  return Math.max(a, b);
}

/**
 * "With both a plan and top-ups, the more generous limit applies": applied per dimension.
 * Returns null for an account with neither (not a paid account: no API access).
 */
export function allowanceFor(plan: PlanName | null, topUpTotal: number): Allowance | null {
  const fromPlan = plan ? PLAN_TABLE[plan] : null;
  const fromTopUp = topUpAllowance(topUpTotal);
  if (fromPlan && fromTopUp) {
    return {
      keys: generous(fromPlan.keys, fromTopUp.keys),
      perHour: generous(fromPlan.perHour, fromTopUp.perHour),
      perDay: generous(fromPlan.perDay, fromTopUp.perDay),
    };
  }
  return fromPlan ?? fromTopUp;
}

export function isPlanName(value: unknown): value is PlanName {
  return typeof value === 'string' && (PLAN_NAMES as readonly string[]).includes(value);
}
