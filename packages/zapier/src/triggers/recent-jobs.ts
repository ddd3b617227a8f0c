import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { field, jobFields } from '../fields/outputs';
import { completedJobSample } from '../samples';
import { pickJobFields } from '../shapes';

const PAGE_SIZE = 50;
/** The job list's fields each item returns, after its dropdown id and label. */
const LISTED = ['job_id', 'status', 'total_emails', 'processed', 'progress_percent', 'created_at'] as const;

/**
 * "Jan 15, 2026 10:30 UTC · 3 addresses · completed · job_7f3c2a9e41b84d05": what tells jobs apart without a
 * list name. Two jobs of one size submitted in the same minute would read alike without the ID.
 */
function labelFor(job: { job_id: string; created_at: string; total_emails: number; status: string }): string {
  const created = new Date(job.created_at);
  const when = Number.isNaN(created.getTime())
    ? job.created_at
    : created.toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }) + ' UTC';
  return `${when} · ${job.total_emails.toLocaleString('en-US')} addresses · ${job.status} · ${job.job_id}`;
}

const perform = mapErrors(async (z: ZObject, bundle: Bundle) => {
  const page = Number.isInteger(bundle.meta?.page) ? bundle.meta.page : 0;
  const list = await clientFor(z, bundle).listJobs({ limit: PAGE_SIZE, offset: page * PAGE_SIZE });
  return list.jobs.map((job) => ({ id: job.job_id, label: labelFor(job), ...job }));
});

export default defineTrigger({
  key: 'recent_jobs',
  noun: 'Bulk Job',
  display: {
    label: 'Recent Bulk Jobs',
    description: 'Triggers when a bulk job is created; feeds the job dropdowns.',
    hidden: true,
  },
  operation: {
    type: 'polling',
    canPaginate: true,
    perform,
    sample: {
      id: completedJobSample.job_id,
      label: labelFor(completedJobSample),
      ...pickJobFields(completedJobSample, LISTED),
    },
    outputFields: [field('id', 'ID', 'string'), field('label', 'Label', 'string'), ...jobFields(LISTED)],
  },
});
