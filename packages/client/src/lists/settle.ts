/**
 * Settles a submission in doubt by reading the service, never by guessing: the job list (newest first,
 * free) is read back to a little before the send, and a job of the sizes sent, created around that time
 * and not known to the book, is the submission. No such job once a request could no longer arrive means
 * nothing was charged.
 */
import type { RequestOptions } from '../core/http';
import { LIMITS } from '../limits';
import type { JobList, JobListItem, ListJobsParams } from '../types';
import type { InDoubt } from './book';

/** How far the service's clock and the caller's may differ. */
export const CLOCK_SKEW_MS = 2 * 60_000;
/**
 * How long after it left a request may still arrive and become a job (a held connection, a slow proxy):
 * before this, no job in the list proves nothing, and the submission stays in doubt.
 */
export const SETTLE_AFTER_MS = 2 * 60_000;
/** Pages read at most to find a send: 1,000 jobs created after it is far beyond a real account's pace. */
const MAX_PAGES = 10;

export interface JobReader {
  listJobs(params?: ListJobsParams, opts?: RequestOptions): Promise<JobList>;
}

export type Settlement =
  /** The service shows a job for the first `jobs.length` sizes; the rest of the addresses were never sent. */
  | { state: 'settled'; jobs: JobListItem[]; sentEmails: string[]; unsentEmails: string[] }
  /** No job yet, and it is too soon to say none will come: nothing may be resent before `until`. */
  | { state: 'in_doubt'; until: string };

/** Jobs created from `from` (epoch ms) on, oldest first. */
export async function jobsCreatedSince(
  reader: JobReader,
  from: number,
  opts: RequestOptions = {},
): Promise<JobListItem[]> {
  const found: JobListItem[] = [];
  const seen = new Set<string>();
  for (let page = 0, offset = 0; page < MAX_PAGES; page++) {
    const list = await reader.listJobs({ limit: LIMITS.maxJobsLimit, offset }, opts);
    const items = Array.isArray(list.jobs) ? list.jobs : [];
    let older = false;
    for (const job of items) {
      const created = Date.parse(job.created_at);
      if (Number.isFinite(created) && created < from) {
        older = true;
        break;
      }
      if (!seen.has(job.job_id)) found.push(job);
      seen.add(job.job_id);
    }
    if (older || items.length < LIMITS.maxJobsLimit) break;
    offset += items.length;
  }
  return found.reverse();
}

/**
 * Matches the jobs sent in doubt, in order, against jobs the service shows: each size in turn must be a
 * job of exactly that many addresses, created after the send (within the clock skew) and unknown to the
 * book. The first size with no job ends the match; its addresses and the rest were not charged, provided
 * the request can no longer arrive.
 */
export async function settleInDoubt(
  reader: JobReader,
  doubt: InDoubt,
  known: ReadonlySet<string>,
  now: number,
  opts: RequestOptions = {},
): Promise<Settlement> {
  const sentAt = Date.parse(doubt.sentAt);
  const from = sentAt - CLOCK_SKEW_MS;
  const candidates = (await jobsCreatedSince(reader, from, opts)).filter((job) => !known.has(job.job_id));
  const jobs: JobListItem[] = [];
  let used = 0;
  for (const size of doubt.sizes) {
    const index = candidates.findIndex((job) => job.total_emails === size);
    if (index < 0) break;
    jobs.push(candidates[index]!);
    candidates.splice(0, index + 1);
    used += size;
  }
  if (jobs.length < doubt.sizes.length && now < sentAt + SETTLE_AFTER_MS) {
    return { state: 'in_doubt', until: new Date(sentAt + SETTLE_AFTER_MS).toISOString() };
  }
  return {
    state: 'settled',
    jobs,
    sentEmails: doubt.emails.slice(0, used),
    unsentEmails: doubt.emails.slice(used),
  };
}

/**
 * Jobs of `size` addresses created within `windowMs` before `now`, newest first: what a platform that
 * keeps no memory (an n8n manual execution) checks before charging a list again.
 */
export async function earlierJobsOfSize(
  reader: JobReader,
  size: number,
  now: number,
  windowMs: number,
  opts: RequestOptions = {},
): Promise<JobListItem[]> {
  const jobs = await jobsCreatedSince(reader, now - windowMs, opts);
  return jobs.filter((job) => job.total_emails === size).reverse();
}
