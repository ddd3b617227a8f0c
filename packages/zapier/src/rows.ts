import {
  AbortedError,
  categorize,
  withCategory,
  type CategoryFields,
  type EmailVerificationClient,
  type Group,
  type ResultRow,
} from '@evf/client';

export type CategorizedRow = ResultRow & CategoryFields;

export interface CollectedRows {
  rows: CategorizedRow[];
  /** Rows read from the service (before the group filter). */
  scanned: number;
  truncated: boolean;
  /** Why not every row is in `rows`, in words for the Zap history; empty when nothing was left out. */
  note: string;
}

export interface CollectOptions {
  maxRows: number;
  /** Time the step may spend reading, so a large job cannot run into Zapier's 30 s stop. */
  budgetMs: number;
  group?: Group;
}

/**
 * Reads a job's rows through the client's paginator and adds the category fields. Stops at the row
 * cap or the time budget and says so, instead of failing the step or silently returning part of a job.
 */
export async function collectRows(
  client: EmailVerificationClient,
  jobId: string,
  options: CollectOptions,
): Promise<CollectedRows> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.budgetMs);
  const rows: CategorizedRow[] = [];
  let scanned = 0;
  let stoppedBy: 'cap' | 'time' | undefined;
  try {
    // A step reads what is stored now; it must not sit out a running job (the client follows by default).
    for await (const row of client.results(jobId, { concurrency: 4, follow: false, signal: controller.signal })) {
      scanned++;
      if (options.group && categorize(row.details).group !== options.group) continue;
      if (rows.length >= options.maxRows) {
        stoppedBy = 'cap';
        break;
      }
      rows.push(withCategory(row));
    }
  } catch (error) {
    if (!(error instanceof AbortedError) || !controller.signal.aborted) throw error;
    stoppedBy = 'time';
  } finally {
    clearTimeout(timer);
  }
  const note =
    stoppedBy === 'cap'
      ? `Only the first ${options.maxRows} matching rows are returned, to stay within Zapier's limits on step output. Read the rest in the dashboard, or filter by group.`
      : stoppedBy === 'time'
        ? `Reading stopped after ${scanned} rows to stay within Zapier's 30-second step limit; ${rows.length} are returned. Filter by group, or read the full list in the dashboard.`
        : '';
  return { rows, scanned, truncated: stoppedBy !== undefined, note };
}
