import type { ListSubmission } from '@evf/client';
import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { listInputFields } from '../fields/inputs';
import { emailsFromInput, jobOptionsFromInput, type ListInputData } from '../fields/list-input';
import { field, preflightOutputFields } from '../fields/outputs';
import { bulkSubmissionSample, preflightSample } from '../samples';
import { preflightSummary } from '../shapes';

/** One output for a list that may have become several jobs (over 50,000 addresses). */
export function submissionOutput(submission: ListSubmission) {
  const first = submission.jobs[0]!;
  return {
    job_id: first.job_id,
    job_ids: submission.jobs.map((j) => j.job_id),
    job_count: submission.jobs.length,
    status: first.status,
    total_emails: submission.jobs.reduce((sum, j) => sum + j.total_emails, 0),
    credits_used: submission.creditsUsed,
    credits_remaining: submission.creditsRemaining ?? null,
    created_at: first.created_at,
    jobs: submission.jobs.map((j) => ({ ...j })),
    ...preflightSummary(submission.preflight),
    rejected_by_service: submission.rejectedByService.map((r) => ({ email: r.email, reason: r.reason })),
  };
}

const perform = mapErrors(async (z: ZObject, bundle: Bundle<ListInputData>) => {
  const submission = await clientFor(z, bundle).submitList({
    emails: emailsFromInput(bundle.inputData),
    ...jobOptionsFromInput(bundle.inputData),
  });
  return submissionOutput(submission);
});

const sample = {
  job_id: bulkSubmissionSample.job_id,
  job_ids: [bulkSubmissionSample.job_id],
  job_count: 1,
  status: bulkSubmissionSample.status,
  total_emails: bulkSubmissionSample.total_emails,
  credits_used: bulkSubmissionSample.credits_used,
  credits_remaining: bulkSubmissionSample.credits_remaining,
  created_at: bulkSubmissionSample.created_at,
  jobs: [bulkSubmissionSample],
  ...preflightSample,
  // Empty as in nearly every live run: pre-flight applies the service's address rules first.
  rejected_by_service: [],
};

export default defineCreate({
  key: 'submit_bulk',
  noun: 'Bulk Job',
  display: {
    label: 'Submit Bulk Verification',
    description:
      'Sends a whole list as background jobs (1 credit per unique address). Use the Bulk Job Finished trigger or Find Bulk Job to pick up the results.',
  },
  operation: {
    inputFields: [...listInputFields],
    perform,
    sample,
    outputFields: [
      field('job_id', 'Job ID', 'string'),
      field('job_ids', 'Job IDs (Lists Over 50,000 Are Split)', 'string', { list: true }),
      field('job_count', 'Number of Jobs', 'integer'),
      field('status', 'Job Status', 'string'),
      field('total_emails', 'Addresses Submitted', 'integer'),
      field('credits_used', 'Credits Used', 'integer'),
      field('credits_remaining', 'Credits Remaining', 'integer'),
      field('created_at', 'Created At', 'datetime'),
      field('jobs[]job_id', 'Job ID (Per Job)', 'string'),
      field('jobs[]status', 'Job Status (Per Job)', 'string'),
      field('jobs[]total_emails', 'Addresses (Per Job)', 'integer'),
      field('jobs[]estimated_seconds', 'Estimated Seconds (Per Job)', 'integer'),
      field('jobs[]credits_used', 'Credits Used (Per Job)', 'integer'),
      field('jobs[]credits_remaining', 'Credits Remaining (Per Job)', 'integer'),
      field('jobs[]created_at', 'Created At (Per Job)', 'datetime'),
      ...preflightOutputFields(),
      field('rejected_by_service[]email', 'Address Refused by the Service', 'string'),
      field('rejected_by_service[]reason', 'Why the Service Refused It', 'string'),
    ],
  },
});
