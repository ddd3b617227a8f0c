/**
 * Pagination: every job (offset paging) and every result row (page paging, pages side by side once a
 * job has stopped, a running job followed to its end). It works through a JobReader (the client), so it
 * holds no endpoint code of its own.
 */
import { InputError } from '../errors';
import { GROUPS, categorize, type Group } from '../categories';
import { JOB_STATUSES, LIMITS, STOPPED_STATUSES } from '../limits';
import { assertJobId, assertJobsLimit, assertMaxItems, assertPerPage } from '../validation/params';
import type { JobListItem, ResultRow, ResultsPage } from '../types';
import type { JobReader } from './job-reader';
import { isJobStopped, pollInterval } from './waiting';

export interface ResultsOptions {
  /** Rows per page read, 1 to 1000 (default 1000: fewer requests; reading is free). */
  pageSize?: number;
  /**
   * Pages fetched at once once the job has stopped and its row count is fixed (order is kept).
   * While the job is still running, pages are read one by one.
   */
  concurrency?: number;
  /** Stop after this many rows (counted after the group filter). */
  maxRows?: number;
  /** Only rows in these groups (from the category mapping, never the row's status); all when absent or empty. */
  groups?: readonly Group[];
  /**
   * Default true: reading a job that is still running is never silently partial. When the stored rows
   * are exhausted but the job has not stopped, the reader waits a poll interval and reads on until the
   * job stops, so every row comes. `false` reads only the rows stored now: then the last page's `status`
   * says whether the job was still running (and so whether rows are missing).
   */
  follow?: boolean;
  /** Poll interval for `follow`, held within 10 to 30 s like waitForJob. */
  pollIntervalMs?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface JobsOptions {
  /** Only jobs with this status. */
  status?: string;
  /** Jobs per request, 1 to 100 (default 100). */
  pageSize?: number;
  /** Stop after this many jobs. */
  maxItems?: number;
  signal?: AbortSignal;
}

/** Every job, newest first, page by page (offset paging, `pageSize` up to 100). */
export async function* listAllJobs(reader: JobReader, params: JobsOptions = {}): AsyncGenerator<JobListItem> {
  const limit = params.pageSize ?? LIMITS.maxJobsLimit;
  assertJobsLimit(limit);
  assertMaxItems(params.maxItems);
  if (params.maxItems === 0) return;
  let offset = 0;
  let yielded = 0;
  const seen = new Set<string>();
  for (;;) {
    const page = await reader.listJobs({ status: params.status, limit, offset }, { signal: params.signal });
    const jobs = Array.isArray(page.jobs) ? page.jobs : [];
    for (const job of jobs) {
      // A job created while paging shifts the offsets by one: skip what was already given.
      if (seen.has(job.job_id)) continue;
      seen.add(job.job_id);
      yield job;
      if (params.maxItems !== undefined && ++yielded >= params.maxItems) return;
    }
    if (jobs.length < limit) return;
    offset += jobs.length;
  }
}

/**
 * Every stored row of a job, in order. Works while the job runs (rows are stored as they become final)
 * and ends when a page says has_more is false.
 */
export async function* resultRows(
  reader: JobReader,
  jobId: string,
  options: ResultsOptions = {},
): AsyncGenerator<ResultRow> {
  assertMaxItems(options.maxRows, 'maxRows');
  const max = options.maxRows ?? Number.POSITIVE_INFINITY;
  if (max === 0) return;
  const groups = options.groups?.length ? new Set<Group>(options.groups) : undefined;
  for (const g of groups ?? []) {
    if (!GROUPS.includes(g))
      throw new InputError('groups', 'enum', `Unknown group "${String(g)}": use ${GROUPS.join(', ')}.`);
  }
  // With a group filter, maxRows counts matching rows, so the pages cannot be cut short by it.
  const pageOptions = groups ? { ...options, maxRows: undefined } : options;
  let given = 0;
  for await (const page of resultPages(reader, jobId, pageOptions)) {
    for (const row of page.results ?? []) {
      if (groups && !groups.has(categorize(row.details).group)) continue;
      if (given >= max) return;
      given++;
      yield row;
    }
  }
}

/**
 * The pages behind results(), for callers that handle a page at a time (fewer awaits per row, and
 * memory bounded by one page). Stops once the job has stopped and has_more is false, or once maxRows
 * rows were given. While the job runs (unless `follow: false`), a page that ends the stored rows is
 * read again every poll interval until the job stops, and only rows not given before are passed on.
 */
export async function* resultPages(
  reader: JobReader,
  jobId: string,
  options: ResultsOptions = {},
): AsyncGenerator<ResultsPage> {
  const perPage = options.pageSize ?? LIMITS.maxPerPage;
  assertJobId(jobId);
  assertPerPage(perPage);
  const concurrency = Math.max(1, Math.min(16, Math.floor(options.concurrency ?? 1)));
  const max = options.maxRows ?? Number.POSITIVE_INFINITY;
  const opts = { signal: options.signal, timeoutMs: options.timeoutMs };
  const fetchPage = (p: number): Promise<ResultsPage> =>
    reader.getResultsPage(jobId, { page: p, per_page: perPage }, opts);
  const interval = pollInterval(options.pollIntervalMs);
  let rows = 0;
  let page = 1;
  let alreadyGiven = 0; // rows of `page` passed on by an earlier read of the same page (follow mode)
  let stopped = false;
  let current = await fetchPage(page);
  for (;;) {
    const fresh = alreadyGiven
      ? { ...current, results: (current.results ?? []).slice(alreadyGiven) }
      : current;
    if (fresh.results?.length || !alreadyGiven) yield fresh;
    rows += fresh.results?.length ?? 0;
    if (rows >= max) return;
    if (!current.has_more) {
      if (options.follow === false || stopped || STOPPED_STATUSES.includes(current.status)) return;
      // A status the spec does not name is not taken as running forever: the job's own flag decides.
      if (!(JOB_STATUSES as readonly string[]).includes(current.status))
        stopped = isJobStopped(await reader.getJob(jobId, opts));
      // The stored rows are read but the job runs on: look again after a poll interval. Once the job
      // has stopped, its page is read once more at once, for rows stored since the last read.
      const onPage = current.results?.length ?? 0;
      if (!stopped) await reader.runtime.sleep(interval, options.signal);
      if (onPage >= perPage) {
        page++;
        alreadyGiven = 0;
      } else alreadyGiven = onPage;
      current = await fetchPage(page);
      continue;
    }
    alreadyGiven = 0;
    // Once the job has stopped its rows are fixed, so the remaining pages can be fetched side by side.
    const lastPage = Math.ceil((current.total ?? 0) / perPage);
    if (concurrency > 1 && STOPPED_STATUSES.includes(current.status) && lastPage > page + 1) {
      for (let start = page + 1; start <= lastPage; start += concurrency) {
        const numbers: number[] = [];
        for (let p = start; p < start + concurrency && p <= lastPage; p++) numbers.push(p);
        // Settle the whole window before yielding, so no request is left running unobserved.
        const pages = await Promise.all(numbers.map(fetchPage));
        for (let i = 0; i < pages.length; i++) {
          current = pages[i]!;
          page = numbers[i]!;
          yield current;
          rows += current.results?.length ?? 0;
          if (!current.has_more || rows >= max) return;
        }
      }
      // The total was stale (has_more still true on the last page it implied): carry on one by one.
    }
    page++;
    current = await fetchPage(page);
  }
}
