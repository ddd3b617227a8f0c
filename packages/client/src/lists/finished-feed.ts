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
  /**
   * A read back to `since` that a poll's deadline cut short: the newest job it started from, how many
   * jobs from that one down were read, and the oldest job seen running. The next poll reads what is new
   * above `topId`, then jumps to where the last one stopped, so a long list is read once across polls.
   */
  sweep?: { topId: string; read: number; oldestRunning?: string };
}

export interface FeedRead {
  /** Finished jobs not delivered before, oldest first. Empty on the first poll, which only learns. */
  fresh: JobListItem[];
  state: FeedState;
  /** False when the deadline came first: the next poll goes on from where this one stopped. */
  complete: boolean;
  /** Pages read (each one request). */
  pages: number;
}

/** A bound on `seen` across a long sweep: far more jobs than polls deliver between two sweeps. */
const MAX_SEEN = 5000;

const isStopped = (job: JobListItem) => (STOPPED_STATUSES as readonly string[]).includes(job.status);

export async function readFinishedFeed(
  reader: JobReader,
  state: FeedState | undefined,
  options: { now: () => number; deadline?: number; signal?: AbortSignal; pageSize?: number },
): Promise<FeedRead> {
  const limit = options.pageSize ?? LIMITS.maxJobsLimit;
  const since = state ? Date.parse(state.since) : Number.NaN;
  const seen = new Set(state?.seen ?? []);
  const sweep = state?.sweep;
  const read: JobListItem[] = [];
  const ids = new Set<string>();
  let complete = false;
  let pages = 0;
  // Where this poll's reading stands, counted from the sweep's top job (undefined above it).
  let belowTop: number | undefined = sweep ? undefined : 0;
  let topId = sweep?.topId;
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
    let jumpTo: number | undefined;
    for (let index = 0; index < items.length; index++) {
      const job = items[index]!;
      if (belowTop === undefined && job.job_id === sweep!.topId) {
        // The top of the cut-short sweep: the jobs from here down to where it stopped were read.
        belowTop = sweep!.read;
        jumpTo = offset + index + sweep!.read;
        break;
      }
      const created = Date.parse(job.created_at);
      if (Number.isFinite(since) && Number.isFinite(created) && created < since) {
        older = true;
        break;
      }
      topId ??= job.job_id;
      if (belowTop !== undefined) belowTop++;
      // A job created while paging shifts the offsets by one: skip what was already read.
      if (!ids.has(job.job_id)) read.push(job);
      ids.add(job.job_id);
    }
    if (jumpTo !== undefined) {
      offset = jumpTo;
      continue;
    }
    // The first poll learns from the newest page only: jobs older than the trigger are not its to deliver.
    if (older || items.length < limit || !state) {
      complete = true;
      break;
    }
    offset += items.length;
  }
  const finished = read.filter(isStopped);
  const fresh = state ? finished.filter((job) => !seen.has(job.job_id)).reverse() : [];
  const running = read.filter((job) => !isStopped(job)).map((job) => job.created_at);
  if (sweep?.oldestRunning) running.push(sweep.oldestRunning);
  const times = (list: string[]) => list.map((t) => Date.parse(t)).filter((t) => Number.isFinite(t));
  const oldestRunning = running.length ? new Date(Math.min(...times(running))).toISOString() : undefined;
  if (!complete) {
    const kept = [...seen, ...fresh.map((job) => job.job_id)];
    return {
      fresh,
      state: {
        since: state?.since ?? new Date(0).toISOString(),
        seen: kept.slice(-MAX_SEEN),
        // A poll that never reached the old sweep's top (many new jobs above it) keeps that sweep.
        ...(sweep || topId
          ? {
              sweep: {
                ...(sweep && belowTop === undefined ? sweep : { topId: topId!, read: belowTop ?? 0 }),
                ...(oldestRunning ? { oldestRunning } : {}),
              },
            }
          : {}),
      },
      complete,
      pages,
    };
  }
  const next = oldestRunning
    ? Date.parse(oldestRunning)
    : read.length
      ? Math.max(...times(read.map((job) => job.created_at)))
      : Number.isFinite(since)
        ? since
        : 0;
  // After a sweep, jobs delivered by its earlier polls are known by id only: they stay in `seen`.
  const stillSeen = [
    ...(sweep ? [...seen] : []),
    ...finished.filter((job) => Date.parse(job.created_at) >= next).map((job) => job.job_id),
  ];
  return {
    fresh,
    state: { since: new Date(next).toISOString(), seen: [...new Set(stillSeen)].slice(-MAX_SEEN) },
    complete,
    pages,
  };
}
