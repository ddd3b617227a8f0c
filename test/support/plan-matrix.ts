/**
 * The cells of the per-plan big-list matrix, one table for the client's and each platform's run of it:
 * each plan of the spec's tables (name, sandbox seed, addresses a day; null for no daily limit) at
 * 50,000 and 150,000 rows, and one size per plan with a 503 after the first job.
 */
import type { AccountSeed } from '@evf/sandbox';

export const PLAN_MATRIX: [name: string, seed: AccountSeed, perDay: number | null][] = [
  ['Starter', { plan: 'starter' }, 10_000],
  ['any top-up (no plan shown)', { plan: null, topUpTotal: 20_000 }, 10_000],
  ['Growth', { plan: 'growth' }, 50_000],
  ['Pro', { plan: 'pro' }, null],
];

/**
 * The list sizes a plan's cells run: both, or with the 503 one, 50,000 where that is several jobs
 * (Starter, top-up) and 150,000 where 50,000 is one job.
 */
export function matrixSizes(perDay: number | null, pause: boolean): number[] {
  if (!pause) return [50_000, 150_000];
  return [perDay !== null && perDay < 50_000 ? 50_000 : 150_000];
}

/**
 * Whether a cell takes more than 5 daily runs (Starter and any top-up at 150,000 rows: 15 days), which a
 * platform's matrix may run only with EVF_FULL_MATRIX=1 (its header says why and what it measured).
 */
export function isLongCell(perDay: number | null, size: number): boolean {
  return process.env.EVF_FULL_MATRIX !== '1' && perDay !== null && Math.ceil(size / perDay) > 5;
}
