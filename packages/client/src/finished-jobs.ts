/**
 * Every job that has stopped, among the jobs created since a point, newest first: what a polling trigger
 * returns so that a platform deduplicating by job id (Zapier) sees every finished job, whatever the burst.
 * The job list is ordered by creation, not by finish, and a job can finish long after newer jobs did, so a
 * fixed number of newest jobs is not enough: the list is read back to the point, several pages at once.
 */
import type { RequestOptions } from './core/http';
import { LIMITS, STOPPED_STATUSES } from './limits';
import type { JobList, JobListItem, ListJobsParams } from './types';

export interface FinishedJobsOptions {
  /** Jobs created before this time (epoch ms) are not looked at: by then they had long finished. */
  createdSince: number;
  /** Jobs per page read, 1 to 100 (default 100). */
  pageSize?: number;
  /**
   * Pages asked for at once (default 10: 1,000 jobs in one answer's time). On a slow service pages read
   * one after another cost an answer each (5 pages at 9 s an answer are 45 s, past a 30 s step); pages
   * past the list's end come back empty and cost nothing.
   */
  pagesAtOnce?: number;
  deadline?: number;
  signal?: AbortSignal;
}

export interface FinishedJobs {
  /** Finished jobs (completed, failed, interrupted, cancelled), newest first, each once. */
  jobs: JobListItem[];
  /** False when the deadline came before the list reached `createdSince`: older jobs were not looked at. */
  complete: boolean;
}

export async function finishedJobsSince(
  reader: { listJobs(params?: ListJobsParams, opts?: RequestOptions): Promise<JobList> },
  options: FinishedJobsOptions,
  now: () => number,
): Promise<FinishedJobs> {
  const limit = options.pageSize ?? LIMITS.maxJobsLimit;
  const atOnce = Math.max(1, options.pagesAtOnce ?? 10);
  const jobs: JobListItem[] = [];
  const seen = new Set<string>();
  let offset = 0;
  for (;;) {
    // More pages only while a read still fits: a page cut short would say nothing.
    if (options.deadline !== undefined && now() >= options.deadline) return { jobs, complete: false };
    const pages = await Promise.all(
      Array.from({ length: atOnce }, (_, i) =>
        reader.listJobs(
          { limit, offset: offset + i * limit },
          { deadline: options.deadline, signal: options.signal },
        ),
      ),
    );
    for (const page of pages) {
      const items = Array.isArray(page.jobs) ? page.jobs : [];
      for (const job of items) {
        const created = Date.parse(job.created_at);
        if (Number.isFinite(created) && created < options.createdSince) return { jobs, complete: true };
        // A job created while paging shifts the offsets by one: skip what was already taken.
        if (seen.has(job.job_id)) continue;
        seen.add(job.job_id);
        if ((STOPPED_STATUSES as readonly string[]).includes(job.status)) jobs.push(job);
      }
      if (items.length < limit) return { jobs, complete: true };
    }
    offset += atOnce * limit;
  }
}
