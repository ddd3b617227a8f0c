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
 * jobs were created and finished, so each poll returns every finished job created in this window (Zapier
 * dedupes by `id`, https://docs.zapier.com/platform/build/deduplication, so the ones seen before do not
 * trigger again). A list of 50,000 addresses finishes well within it.
 */
const LOOKBACK_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * Full job reads per poll (verdict and group counts), newest first. Zapier takes 100 new items per poll
 * ("Throttles", https://docs.zapier.com/platform/build/operating-constraints); older finished jobs in the
 * window, nearly all seen by earlier polls, are returned from the list's own fields.
 */
const FULL_READS_PER_POLL = 100;
const READS_AT_ONCE = 8;

/** Reads the full jobs, a few at once, until the deadline; a job not read in time keeps its list fields. */
async function fullJobs(
  read: (jobId: string) => Promise<Job>,
  items: JobListItem[],
  deadline: number,
): Promise<(Job | JobListItem)[]> {
  const out: (Job | JobListItem)[] = [...items];
  const wanted = items.slice(0, FULL_READS_PER_POLL);
  for (let i = 0; i < wanted.length && Date.now() < deadline; i += READS_AT_ONCE) {
    const batch = wanted.slice(i, i + READS_AT_ONCE);
    const settled = await Promise.allSettled(batch.map((j) => read(j.job_id)));
    settled.forEach((result, k) => {
      if (result.status === 'fulfilled') out[i + k] = result.value;
    });
  }
  return out;
}

const perform = mapErrors(async (z: ZObject, bundle: Bundle) => {
  const deadline = stepDeadline();
  const client = clientFor(z, bundle);
  const { jobs } = await client.finishedJobsSince({ createdSince: Date.now() - LOOKBACK_MS, deadline });
  const full = await fullJobs((id) => client.getJob(id, { deadline }), jobs, deadline);
  // id = job_id: Zapier dedupes on id, so each job triggers once however often it is polled. A job
  // that stopped short is marked, so a Filter step can route it away from "all rows are in".
  return full.map((job) => ({ id: job.job_id, ...job, ...jobOutcome(job) }));
});

export default defineTrigger({
  key: 'job_finished',
  noun: 'Bulk Job',
  display: {
    label: 'Bulk Job Finished',
    description:
      'Triggers when a bulk verification job completes, or fails or is stopped before every address is verified (Job Failed or Stopped Early is then true), with its verdict and group counts.',
  },
  operation: {
    type: 'polling',
    perform,
    sample: { id: completedJobSample.job_id, ...completedJobSample, ...jobOutcome(completedJobSample) },
    outputFields: [field('id', 'ID', 'string'), ...jobOutputFields(), ...jobOutcomeOutputFields()],
  },
});
