/**
 * One window of a job's rows, for platforms that can carry only part of a job per step (Zapier: 30 s and
 * a few MB per step): start at a row, stop at a row count or a deadline, and say exactly where the next
 * window starts and why this one ended. Rows are addressed by their position among the job's stored rows
 * (rows are stored in submission order and never move), so windows never overlap or skip a row.
 */
import { categorize, GROUPS, type Group } from './categories';
import { AbortedError, InputError, RequestTimeoutError, TimeBudgetSpentError } from './errors';
import { LIMITS, STOPPED_STATUSES } from './limits';
import { isJobStopped } from './core/waiting';
import type { RequestOptions } from './core/http';
import type { Job, JobStatusValue, ResultRow, ResultsPage, ResultsPageParams } from './types';

/** The two reads a window needs; the client is one. */
export interface ResultsWindowReader {
  getJob(jobId: string, opts?: RequestOptions): Promise<Job>;
  getResultsPage(jobId: string, params?: ResultsPageParams, opts?: RequestOptions): Promise<ResultsPage>;
}

export interface ResultsWindowOptions {
  /** Position of the first row to read, 0-based among the job's stored rows (default 0). */
  startRow?: number;
  /** Most rows to return (after the group filter). */
  maxRows: number;
  /** Only rows of this group (the category mapping); rows of other groups are read and skipped. */
  group?: Group;
  /** Rows per page read, 1 to 1000 (default 1000). */
  pageSize?: number;
  /** Stop reading at this time of the runtime's clock and return what was read (RequestOptions.deadline). */
  deadline?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The job as the caller just read it, to save reading it again. */
  job?: Job;
}

/** Why a window holds fewer than all of the job's remaining rows. */
export type WindowEnd =
  /** every row of a job that has stopped was read: nothing follows */
  | 'complete'
  /** maxRows rows were returned; more follow */
  | 'max_rows'
  /** the deadline came first; more may follow */
  | 'time'
  /** every stored row was read, but the job is still running: more rows will be stored */
  | 'running';

export interface ResultsWindow {
  /** The job as read before its rows. */
  job: Job;
  /** The job's status on the last page read (fresher than `job`). */
  status: JobStatusValue;
  rows: ResultRow[];
  startRow: number;
  /** Rows read in this window, before the group filter. */
  rowsRead: number;
  /** Where the next window starts (0-based), or null when `end` is 'complete'. */
  nextStartRow: number | null;
  /** True unless this window reached the end of a job that has stopped. */
  truncated: boolean;
  end: WindowEnd;
}

/**
 * A window read without reading the job (the client's rowsWindow): the pages' own status says whether
 * the job has stopped, and there is no status when the deadline came before any page.
 */
export interface RowsOnlyWindow extends Omit<ResultsWindow, 'job' | 'status'> {
  status: JobStatusValue | undefined;
}

/** What readResultsWindow returns: a ResultsWindow, or a RowsOnlyWindow when asked not to read the job. */
export type WindowRead = RowsOnlyWindow & { job: Job | undefined };

/** Errors that mean "out of time", which end a window with what was read instead of failing it. */
export function isOutOfTime(error: unknown, deadline: number | undefined, now: () => number): boolean {
  if (error instanceof TimeBudgetSpentError) return true;
  if (deadline === undefined) return false;
  return (error instanceof RequestTimeoutError || error instanceof AbortedError) && now() >= deadline - 50;
}

/**
 * Reads the job (unless told not to), then its rows from `startRow` page by page until `maxRows` rows are kept, the stored rows
 * end, or the deadline comes. A job still running is never reported complete: its window ends 'running'
 * with the position to read from once more rows are stored.
 */
export async function readResultsWindow(
  reader: ResultsWindowReader,
  jobId: string,
  options: Omit<ResultsWindowOptions, 'job'> & { job?: Job | false },
  now: () => number,
): Promise<WindowRead> {
  const startRow = options.startRow ?? 0;
  if (!Number.isSafeInteger(startRow) || startRow < 0) {
    throw new InputError('startRow', 'range', 'The first row to read must be a whole number, 1 or more.');
  }
  if (!Number.isSafeInteger(options.maxRows) || options.maxRows < 1) {
    throw new InputError('maxRows', 'range', 'The number of rows to read must be a whole number, 1 or more.');
  }
  if (options.group !== undefined && !GROUPS.includes(options.group)) {
    throw new InputError(
      'group',
      'enum',
      `Unknown group "${String(options.group)}": use ${GROUPS.join(', ')}.`,
    );
  }
  let perPage = options.pageSize ?? LIMITS.maxPerPage;
  const opts: RequestOptions = {
    deadline: options.deadline,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  };
  const job =
    options.job === false
      ? undefined
      : options.job?.job_id === jobId
        ? options.job
        : await reader.getJob(jobId, opts);
  const rows: ResultRow[] = [];
  let position = startRow;
  let status: JobStatusValue | undefined = job?.status;
  let end: WindowEnd;
  for (;;) {
    const page = Math.floor(position / perPage) + 1;
    let current: ResultsPage;
    try {
      current = await reader.getResultsPage(jobId, { page, per_page: perPage }, opts);
    } catch (error) {
      if (!isOutOfTime(error, options.deadline, now)) throw error;
      end = 'time';
      break;
    }
    status = current.status ?? status;
    const pageRows = current.results ?? [];
    // The service's own page size decides where its pages start; read again if it differs from ours
    // and the page served does not hold the position asked for.
    const served =
      Number.isSafeInteger(current.per_page) && current.per_page > 0 ? current.per_page : perPage;
    if (served !== perPage) {
      perPage = served;
      if (page !== Math.floor(position / served) + 1) continue;
    }
    let full = false;
    for (let i = position - (page - 1) * perPage; i < pageRows.length; i++) {
      if (rows.length >= options.maxRows) {
        full = true;
        break;
      }
      const row = pageRows[i]!;
      position++;
      if (options.group && categorize(row.details).group !== options.group) continue;
      rows.push(row);
    }
    if (full) {
      end = 'max_rows';
      break;
    }
    const pageEnd = (page - 1) * perPage + pageRows.length;
    if (!current.has_more && position >= pageEnd) {
      // The stored rows are all read; only a stopped job has no more to come.
      const stopped =
        (status !== undefined && (STOPPED_STATUSES as readonly string[]).includes(status)) ||
        (job !== undefined && status === job.status && isJobStopped(job));
      end = stopped ? 'complete' : 'running';
      break;
    }
    if (rows.length >= options.maxRows) {
      // The window filled at the page's end: reading the next page only to stop at its first row would
      // cost one more answer's time (a whole-sheet step reads many windows against a deadline).
      end = 'max_rows';
      break;
    }
    if (pageRows.length === 0) {
      // has_more with an empty page: the service's own count is ahead of its rows; read again later.
      end = 'running';
      break;
    }
  }
  return {
    job,
    status,
    rows,
    startRow,
    rowsRead: position - startRow,
    nextStartRow: end === 'complete' ? null : position,
    truncated: end !== 'complete',
    end,
  };
}
