import { STOPPED_STATUSES, type JobListItem } from '@evf/client';
import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { field, jobOutcomeOutputFields, jobOutputFields } from '../fields/outputs';
import { completedJobSample } from '../samples';
import { jobOutcome } from '../shapes';

/** Newest jobs looked at per poll; a finished job older than these was already seen by earlier polls. */
const JOBS_PER_POLL = 50;
/** Full job reads per poll, to stay well inside Zapier's 30 s limit. */
const MAX_FINISHED_PER_POLL = 25;
/** Every way a job ends: completed, and the ways it stops short (failed, interrupted, cancelled). */
const FINISHED = new Set<string>(STOPPED_STATUSES);

const perform = mapErrors(async (z: ZObject, bundle: Bundle) => {
  const client = clientFor(z, bundle);
  const recent: JobListItem[] = [];
  for await (const item of client.jobs({ pageSize: JOBS_PER_POLL, maxItems: JOBS_PER_POLL }))
    recent.push(item);
  const finished = recent.filter((j) => FINISHED.has(j.status)).slice(0, MAX_FINISHED_PER_POLL);
  const jobs = await Promise.all(finished.map((j) => client.getJob(j.job_id)));
  // id = job_id: Zapier dedupes on id, so each job triggers once however often it is polled. A job
  // that stopped short is marked, so a Filter step can route it away from "all rows are in".
  return jobs.map((job) => ({ id: job.job_id, ...job, ...jobOutcome(job) }));
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
