import type { Job, JobListItem } from '@evf/client';
import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import { stepDeadline } from '../budget';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { field, jobOutcomeOutputFields, jobOutputFields } from '../fields/outputs';
import { completedJobSample } from '../samples';
import { jobOutcome } from '../shapes';

/**
 * How far back each poll looks. The job list is ordered by creation, and a job can finish long after newer
 * jobs were created and finished, so each poll looks at every finished job created in this window (Zapier
 * dedupes by `id`, https://docs.zapier.com/platform/build/deduplication, so the ones seen before do not
 * trigger again). A list of 50,000 addresses finishes well within it.
 */
const LOOKBACK_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * Jobs read in full per poll. Zapier takes 100 new items per poll ("Throttles",
 * https://docs.zapier.com/platform/build/operating-constraints), so more would not trigger sooner.
 */
const FULL_READS_PER_POLL = 100;
/**
 * Job reads under way at once: all of a poll's, so on a slow service the poll costs two answers' time
 * (the job list's pages at once, then the jobs at once): 18 s at 9 s an answer, inside Zapier's 30 s.
 */
const READS_AT_ONCE = FULL_READS_PER_POLL;

/**
 * Which jobs were already returned, so the next poll reads the others first. Kept in z.cache per
 * connection (core 19 marks `bundle.meta.zap` deprecated, so the key does not rest on a Zap's ID; Zaps
 * on one connection share the order). Zapier's docs give z.cache no size or lifetime, so it is only a
 * preference: lost or shared, the poll reads newest first, and Zapier's own dedupe still triggers each
 * job once per Zap.
 */
interface Returned {
  ids: string[];
}
interface ZCache {
  get(key: string, scope?: string[]): Promise<unknown>;
  set(key: string, value: unknown, ttl?: number, scope?: string[]): Promise<unknown>;
}
const SCOPE = ['auth'];
const REMEMBER_SECONDS = LOOKBACK_MS / 1000;
/** Far more than a week of jobs at any plan's allowance; an id is about 20 characters. */
const REMEMBER_AT_MOST = 5_000;

const MEMORY_KEY = 'evf-finished:returned';

async function recall(z: ZObject, key: string): Promise<Set<string>> {
  try {
    const raw = await (z as ZObject & { cache: ZCache }).cache.get(key, SCOPE);
    const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Partial<Returned> | null;
    return new Set(Array.isArray(parsed?.ids) ? parsed.ids.filter((id) => typeof id === 'string') : []);
  } catch {
    return new Set();
  }
}

async function remember(z: ZObject, key: string, ids: string[]): Promise<void> {
  try {
    const value: Returned = { ids: ids.slice(0, REMEMBER_AT_MOST) };
    await (z as ZObject & { cache: ZCache }).cache.set(key, JSON.stringify(value), REMEMBER_SECONDS, SCOPE);
  } catch {
    // Only an order preference is lost; see Returned.
  }
}

/** Reads jobs in the given order, a few at once, until the deadline; those not read in time are left out. */
async function readFull(
  read: (jobId: string) => Promise<Job>,
  order: JobListItem[],
  deadline: number,
): Promise<Map<string, Job>> {
  const full = new Map<string, Job>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < order.length && Date.now() < deadline) {
      const item = order[next++]!;
      try {
        full.set(item.job_id, await read(item.job_id));
      } catch {
        // Not read in time (or at all): the job comes in a later poll, whole.
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, order.length) }, worker));
  return full;
}

const item = (job: Job) => ({ id: job.job_id, ...job, ...jobOutcome(job) });

const perform = mapErrors(async (z: ZObject, bundle: Bundle) => {
  const deadline = stepDeadline();
  const client = clientFor(z, bundle);
  const { jobs } = await client.finishedJobsSince({ createdSince: Date.now() - LOOKBACK_MS, deadline });
  const key = MEMORY_KEY;
  const returned = await recall(z, key);
  // Jobs not returned before go first, newest first; then the ones returned before, for a Zap whose
  // memory is shared or lost.
  const order = [
    ...jobs.filter((j) => !returned.has(j.job_id)),
    ...jobs.filter((j) => returned.has(j.job_id)),
  ].slice(0, FULL_READS_PER_POLL);
  const full = await readFull((id) => client.getJob(id, { deadline }), order, deadline);
  // Every item is a whole job, with the fields of the sample: a job not read in time is left for the
  // next poll rather than sent without its counts. Newest first, as Zapier expects.
  const items = jobs.flatMap((j) => {
    const job = full.get(j.job_id);
    return job ? [item(job)] : [];
  });
  if (bundle.meta?.isPopulatingDedupe) {
    // Turning the Zap on: Zapier stores these ids so that jobs that finished before do not trigger, and
    // runs no Zap on them; every job in the window goes in, whole where it was read.
    const window = jobs.map((j) => {
      const job = full.get(j.job_id);
      return job ? item(job) : { id: j.job_id, ...j, ...jobOutcome(j) };
    });
    await remember(
      z,
      key,
      jobs.map((j) => j.job_id),
    );
    return window;
  }
  const inWindow = new Set(jobs.map((j) => j.job_id));
  await remember(z, key, [
    ...items.map((i) => i.id),
    ...[...returned].filter((id) => inWindow.has(id) && !full.has(id)),
  ]);
  return items;
});

export default defineTrigger({
  key: 'job_finished',
  noun: 'Bulk Job',
  display: {
    label: 'Bulk Job Finished',
    description: 'Triggers when a bulk verification job finishes, fails or is stopped early.',
  },
  operation: {
    type: 'polling',
    perform,
    sample: { id: completedJobSample.job_id, ...completedJobSample, ...jobOutcome(completedJobSample) },
    outputFields: [field('id', 'ID', 'string'), ...jobOutputFields(), ...jobOutcomeOutputFields()],
  },
});
