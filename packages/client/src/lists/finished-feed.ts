/**
 * Every finished job once, for a polling trigger: the jobs a list run made (and any other) as they end.
 * The job list is newest first and ordered by creation, while jobs end in any order, so each poll reads
 * back to the oldest job that was still running at the last complete poll, and remembers the finished
 * jobs it has delivered from there on. The list items' own fields (job_id, status, total_emails,
 * processed, progress_percent, created_at) are what it delivers: no request per job.
 */
import type { RequestOptions } from '../core/http';
import { TimeBudgetSpentError } from '../errors';
import { LIMITS, STOPPED_STATUSES } from '../limits';
import type { JobListItem } from '../types';
import type { JobReader } from './settle';

/** What a trigger stores between polls (plain JSON). */
export interface FeedState {
  /** Jobs created before this (the service's created_at) had all finished and been delivered. */
  since: string;
  /** Finished jobs created at or after `since` that were delivered (or existed at the first poll). */
  seen: string[];
}

export interface FeedRead {
  /** Finished jobs not delivered before, oldest first. Empty on the first poll, which only learns. */
  fresh: JobListItem[];
  state: FeedState;
  /** False when the deadline came first: the next poll reads from the same point again. */
  complete: boolean;
  /** Pages read (each one request). */
  pages: number;
}

/** A bound on `seen` for a poll cut short again and again: far more jobs than one poll can read. */
const MAX_SEEN = 5000;

export async function readFinishedFeed(
  reader: JobReader,
  state: FeedState | undefined,
  options: { now: () => number; deadline?: number; signal?: AbortSignal; pageSize?: number },
): Promise<FeedRead> {
  const limit = options.pageSize ?? LIMITS.maxJobsLimit;
  const since = state ? Date.parse(state.since) : Number.NaN;
  const seen = new Set(state?.seen ?? []);
  const read: JobListItem[] = [];
  const ids = new Set<string>();
  let complete = false;
  let pages = 0;
  for (let offset = 0; ; ) {
    if (options.deadline !== undefined && options.now() >= options.deadline) break;
    const opts: RequestOptions = { deadline: options.deadline, signal: options.signal };
    let page;
    try {
      page = await reader.listJobs({ limit, offset }, opts);
    } catch (error) {
      // Out of time during a read: what was read stands, the rest waits for the next poll.
      if (pages > 0 && error instanceof TimeBudgetSpentError) break;
      throw error;
    }
    pages++;
    const items = Array.isArray(page.jobs) ? page.jobs : [];
    let older = false;
    for (const job of items) {
      const created = Date.parse(job.created_at);
      if (Number.isFinite(since) && Number.isFinite(created) && created < since) {
        older = true;
        break;
      }
      // A job created while paging shifts the offsets by one: skip what was already read.
      if (!ids.has(job.job_id)) read.push(job);
      ids.add(job.job_id);
    }
    // The first poll learns from the newest page only: jobs older than the trigger are not its to deliver.
    if (older || items.length < limit || !state) {
      complete = true;
      break;
    }
    offset += items.length;
  }
  const finished = read.filter((job) => (STOPPED_STATUSES as readonly string[]).includes(job.status));
  const fresh = state ? finished.filter((job) => !seen.has(job.job_id)).reverse() : [];
  if (!complete) {
    const kept = [...seen, ...fresh.map((job) => job.job_id)];
    return {
      fresh,
      state: { since: state?.since ?? new Date(0).toISOString(), seen: kept.slice(-MAX_SEEN) },
      complete,
      pages,
    };
  }
  const running = read.filter((job) => !(STOPPED_STATUSES as readonly string[]).includes(job.status));
  const times = (jobs: JobListItem[]) =>
    jobs.map((job) => Date.parse(job.created_at)).filter((t) => Number.isFinite(t));
  const next = running.length
    ? Math.min(...times(running))
    : read.length
      ? Math.max(...times(read))
      : Number.isFinite(since)
        ? since
        : 0;
  const stillSeen = finished.filter((job) => Date.parse(job.created_at) >= next).map((job) => job.job_id);
  return {
    fresh,
    state: { since: new Date(next).toISOString(), seen: stillSeen.slice(-MAX_SEEN) },
    complete,
    pages,
  };
}
