/**
 * The cells of the big-list matrix, one table for the client's and each platform's run of it: each plan
 * of the spec's tables (name, sandbox seed, addresses a day; null for no daily limit), the list sizes
 * each plan runs, and one size per plan with a 503 after the first job.
 *
 * Where each size runs, and why. The list logic (what fits today, what is left, when it may go, the
 * replay memory) lives once, in the client, so the client's matrix runs every size on every plan: 50,000
 * and 150,000 rows, the 15-day cells included. A platform's matrix checks the platform's part of the same
 * flow (where its memory is kept, how a stop reaches the user, how the next run continues), which the
 * smallest list that still takes several runs or several jobs exercises in full: 50,000 rows (five days
 * on Starter and any top-up) and, for the 503 cell, the smallest list that still has a second job to
 * pause (50,000 on Starter and any top-up, 100,000 on Growth and Pro). Repeating the client's 150,000-row
 * cells per platform spent 20 minutes of CI on the same list arithmetic. Each platform keeps one named
 * full-size cell for its own real boundary (Make: Google's 2 MB per read; Zapier: 30 s per step; n8n:
 * items held in memory), in its own file. `EVF_FULL_MATRIX=1` runs the client's sizes on every platform.
 */
import type { AccountSeed } from '@evf/sandbox';

export const PLAN_MATRIX: [name: string, seed: AccountSeed, perDay: number | null][] = [
  ['Starter', { plan: 'starter' }, 10_000],
  ['any top-up (no plan shown)', { plan: null, topUpTotal: 20_000 }, 10_000],
  ['Growth', { plan: 'growth' }, 50_000],
  ['Pro', { plan: 'pro' }, null],
];

/** The addresses one bulk job takes (spec, Limits). */
export const MAX_PER_JOB = 50_000;

/** Whether EVF_FULL_MATRIX=1 asks every platform for the client's sizes. */
export const fullMatrix = (): boolean => process.env.EVF_FULL_MATRIX === '1';

/**
 * The list sizes a plan's cells run. The client: both sizes, or with the 503 one, 50,000 where that is
 * several jobs (Starter, top-up) and 150,000 where 50,000 is one job. A platform: 50,000, or with the 503
 * the smallest list that still has a second job (see the header).
 */
export function matrixSizes(
  perDay: number | null,
  pause: boolean,
  scope: 'client' | 'platform' = 'client',
): number[] {
  const severalJobsAt50k = perDay !== null && perDay < MAX_PER_JOB;
  if (scope === 'client' || fullMatrix()) {
    if (!pause) return [50_000, 150_000];
    return [severalJobsAt50k ? 50_000 : 150_000];
  }
  if (!pause) return [50_000];
  return [severalJobsAt50k ? 50_000 : 2 * MAX_PER_JOB];
}

/** The jobs a list of `size` takes on a plan: jobs are cut to the daily allowance and to 50,000. */
export const jobsFor = (size: number, perDay: number | null): number =>
  Math.ceil(size / Math.min(perDay ?? MAX_PER_JOB, MAX_PER_JOB));
