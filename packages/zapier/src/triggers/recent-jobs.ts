import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { field } from '../fields/outputs';
import { completedJobSample } from '../samples';

const PAGE_SIZE = 50;

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
      job_id: completedJobSample.job_id,
      status: completedJobSample.status,
      total_emails: completedJobSample.total_emails,
      processed: completedJobSample.processed,
      progress_percent: completedJobSample.progress_percent,
      created_at: completedJobSample.created_at,
    },
    outputFields: [
      field('id', 'ID', 'string'),
      field('label', 'Label', 'string'),
      field('job_id', 'Job ID', 'string'),
      field('status', 'Job Status', 'string'),
      field('total_emails', 'Total Addresses', 'integer'),
      field('processed', 'Processed Addresses', 'integer'),
      field('progress_percent', 'Progress (%)', 'number'),
      field('created_at', 'Created At', 'datetime'),
    ],
  },
});
