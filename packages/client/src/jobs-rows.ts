/**
 * Every row of a list's jobs, read at once in windows of one page by row position (the results window),
 * so a slow service costs one answer's time, not one per page: for a step that writes a whole list back
 * within a platform's time per step (Zapier's file step). The jobs are read at the same time when their
 * sizes are known. A window the deadline cuts short leaves its rows unread and `readAll` false: the
 * caller reads them again in a later run.
 */
import { AbortedError, RequestTimeoutError, TimeBudgetSpentError } from './errors';
import { isJobStopped } from './core/waiting';
import type { ResultsWindowOptions, RowsOnlyWindow } from './results-window';
import type { Job, ResultRow } from './types';

/** What the reader needs of the client. */
export interface JobsRowsReader {
  getJob(jobId: string, opts?: { deadline?: number }): Promise<Job>;
  rowsWindow(jobId: string, options: Omit<ResultsWindowOptions, 'job'>): Promise<RowsOnlyWindow>;
}

export interface JobsRows {
  rows: ResultRow[];
  jobs: Job[];
  /** Every stored row of every job was read, and every job has stopped. */
  readAll: boolean;
}

export interface JobsRowsOptions {
  /** Addresses sent in each job (same order as the ids), when known: jobs and rows are then read at once. */
  sizes?: number[];
  /** For the jobs. */
  deadline: number;
  /** For the rows (default `deadline`): earlier, to keep time for what the caller does with them. */
  rowsDeadline?: number;
}

/** Rows per window: one page of the service's largest size, so each window is one request. */
const WINDOW_ROWS = 1_000;
/** Windows read at once. A 50,000-row job is 50 windows: at 9 s an answer they all fit one step. */
const PARALLEL_WINDOWS = 64;

/** A job to read rows from: its id and how many rows it may hold. */
interface JobRows {
  jobId: string;
  rows: number;
}

async function readRows(reader: JobsRowsReader, jobs: JobRows[], deadline: number) {
  const windows = jobs.flatMap(({ jobId, rows }) => {
    const count = Math.max(1, Math.ceil(rows / WINDOW_ROWS));
    // The last window reads on to the job's end, whatever the count said.
    return Array.from({ length: count }, (_, i) => ({
      jobId,
      startRow: i * WINDOW_ROWS,
      maxRows: i === count - 1 ? Number.MAX_SAFE_INTEGER : WINDOW_ROWS,
    }));
  });
  const parts: ResultRow[][] = new Array(windows.length);
  let readAll = true;
  let next = 0;
  const worker = async () => {
    while (next < windows.length) {
      const index = next++;
      const { jobId, startRow, maxRows } = windows[index]!;
      let window;
      try {
        window = await reader.rowsWindow(jobId, { startRow, maxRows, pageSize: WINDOW_ROWS, deadline });
      } catch (error) {
        // A read that timed out after its retries: its rows are left for a later read.
        if (
          !(
            error instanceof AbortedError ||
            error instanceof RequestTimeoutError ||
            error instanceof TimeBudgetSpentError
          )
        )
          throw error;
        readAll = false;
        continue;
      }
      parts[index] = window.rows;
      const whole = window.end === 'complete' || (window.end === 'max_rows' && maxRows === WINDOW_ROWS);
      if (!whole) readAll = false;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_WINDOWS, windows.length) }, worker));
  return { rows: parts.flatMap((p) => p ?? []), readAll };
}

/** Each job as it stands now, read at once (one answer's time however many jobs). */
function readJobs(reader: JobsRowsReader, jobIds: string[], deadline: number): Promise<Job[]> {
  return Promise.all(jobIds.map((id) => reader.getJob(id, { deadline })));
}

/**
 * The jobs and all their rows. With each job's size known the jobs and the rows are read at once; without
 * it the jobs are read first to size the windows.
 */
export async function readJobsRows(
  reader: JobsRowsReader,
  jobIds: string[],
  options: JobsRowsOptions,
): Promise<JobsRows> {
  const { sizes, deadline } = options;
  const rowsDeadline = options.rowsDeadline ?? deadline;
  if (sizes?.length !== jobIds.length) {
    const jobs = await readJobs(reader, jobIds, deadline);
    const read = await readRows(
      reader,
      jobs.map((j) => ({ jobId: j.job_id, rows: j.processed })),
      rowsDeadline,
    );
    return { ...read, jobs, readAll: read.readAll && jobs.every(isJobStopped) };
  }
  const [jobs, read] = await Promise.all([
    readJobs(reader, jobIds, deadline),
    readRows(
      reader,
      jobIds.map((jobId, i) => ({ jobId, rows: sizes[i]! })),
      rowsDeadline,
    ),
  ]);
  return { ...read, jobs, readAll: read.readAll && jobs.every(isJobStopped) };
}
