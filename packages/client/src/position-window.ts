/**
 * A window of a job's rows fixed by row position: rows startRow to startRow + size - 1, whatever a group
 * filter keeps of them. Windows of fixed starts (1, 5001, 10001, ...) therefore read every row exactly
 * once with or without a filter, which a loop that cannot feed one step's output into the next (Zapier's
 * Looping by Zapier counts from fixed values) needs. Its pages are read at once, with the job, so a
 * whole window takes about one answer's time even on a slow service.
 */
import { categorize, type Group } from './categories';
import type { RequestOptions } from './core/http';
import { isJobStopped } from './core/waiting';
import { InputError } from './errors';
import { LIMITS, STOPPED_STATUSES } from './limits';
import type { Job, JobStatusValue, ResultRow, ResultsPage } from './types';
import { isOutOfTime, type ResultsWindowReader, type WindowEnd } from './results-window';

export interface PositionWindowOptions {
  /** Position of the window's first row, 0-based among the job's stored rows. */
  startRow: number;
  /** Rows in the window, by position (before the group filter); a multiple of 1,000 reads fewest pages. */
  size: number;
  group?: Group;
  deadline?: number;
  signal?: AbortSignal;
}

export interface PositionWindow {
  job: Job;
  /** The freshest status seen (the pages carry it too). */
  status: JobStatusValue;
  /** The window's rows the group keeps, in position order. */
  rows: ResultRow[];
  startRow: number;
  /** Positions read, from startRow on without a gap. */
  rowsRead: number;
  /**
   * Where the next window starts (0-based): startRow + size when the whole window was read; the first
   * position not read when the deadline cut it ('time') or the job has not stored it yet ('running');
   * null when the window reached the end of a job that has stopped.
   */
  nextStartRow: number | null;
  /**
   * 'max_rows': the whole window was read and rows follow; 'complete': nothing follows; 'time': the
   * deadline cut the window at nextStartRow; 'running': the job's stored rows end inside the window.
   */
  end: WindowEnd;
}

export async function readPositionWindow(
  reader: ResultsWindowReader,
  jobId: string,
  options: PositionWindowOptions,
  now: () => number,
): Promise<PositionWindow> {
  const { startRow, size } = options;
  if (!Number.isSafeInteger(startRow) || startRow < 0)
    throw new InputError('startRow', 'range', 'The first row to read must be a whole number, 1 or more.');
  if (!Number.isSafeInteger(size) || size < 1)
    throw new InputError('size', 'range', 'A window holds a whole number of rows, 1 or more.');
  const asked = LIMITS.maxPerPage;
  const opts: RequestOptions = { deadline: options.deadline, signal: options.signal };
  const readPage = (page: number, perPage: number): Promise<ResultsPage | undefined> =>
    reader.getResultsPage(jobId, { page, per_page: perPage }, opts).catch((error: unknown) => {
      if (isOutOfTime(error, options.deadline, now)) return undefined;
      throw error;
    });
  // The job and the window's first page at once, then the window's other pages at once: two answers'
  // time on any service, and no page read past what the first page says the job holds.
  const [job, firstRead] = await Promise.all([
    reader.getJob(jobId, opts),
    readPage(Math.floor(startRow / asked) + 1, asked),
  ]);
  let perPage: number = asked;
  let first = firstRead;
  if (first && Number.isSafeInteger(first.per_page) && first.per_page > 0 && first.per_page !== asked) {
    // The service's own page size decides where its pages start.
    perPage = first.per_page;
    const page = Math.floor(startRow / perPage) + 1;
    if (page !== first.page) first = await readPage(page, perPage);
  }
  const pageNumbers: number[] = [];
  const pages: (ResultsPage | undefined)[] = [];
  if (first) {
    const firstPage = Math.floor(startRow / perPage) + 1;
    pageNumbers.push(firstPage);
    pages.push(first);
    const known = Number.isSafeInteger(first.total) && first.total > 0 ? first.total : startRow + size;
    const lastPage = Math.floor((Math.min(startRow + size, known) - 1) / perPage) + 1;
    if (first.has_more && lastPage > firstPage) {
      const more = Array.from({ length: lastPage - firstPage }, (_, i) => firstPage + 1 + i);
      pageNumbers.push(...more);
      pages.push(...(await Promise.all(more.map((page) => readPage(page, perPage)))));
    }
  } else {
    pages.push(undefined);
  }
  const rows: ResultRow[] = [];
  const windowEnd = startRow + size;
  let position = startRow;
  let status: JobStatusValue = job.status;
  let end: WindowEnd = 'max_rows';
  for (let i = 0; i < pages.length; i++) {
    const page = pages[i];
    if (page === undefined) {
      end = 'time';
      break;
    }
    status = page.status ?? status;
    const pageStart = (pageNumbers[i]! - 1) * perPage;
    const results = page.results ?? [];
    for (let k = position - pageStart; k < results.length && position < windowEnd; k++) {
      const row = results[k]!;
      position++;
      if (options.group && categorize(row.details).group !== options.group) continue;
      rows.push(row);
    }
    if (position >= windowEnd) break;
    if (results.length < perPage || !page.has_more) {
      // The stored rows end inside the window.
      const stopped = (STOPPED_STATUSES as readonly string[]).includes(status) || isJobStopped(job);
      end = stopped ? 'complete' : 'running';
      break;
    }
  }
  if (end === 'max_rows' && position >= windowEnd) {
    // A full window that ends exactly at the last row of a stopped job: nothing follows.
    const last = pages[pages.length - 1];
    const stopped = (STOPPED_STATUSES as readonly string[]).includes(status) || isJobStopped(job);
    const lastEnd = last ? (pageNumbers[pages.length - 1]! - 1) * perPage + (last.results ?? []).length : 0;
    if (stopped && last && !last.has_more && lastEnd <= windowEnd) end = 'complete';
  }
  return {
    job,
    status,
    rows,
    startRow,
    rowsRead: position - startRow,
    nextStartRow: end === 'complete' ? null : position,
    end,
  };
}
