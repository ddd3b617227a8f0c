import type { ListSubmission } from '@evf/client';
import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { stepDeadline } from '../budget';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { listInputFields } from '../fields/inputs';
import { emailsFromInput, jobOptionsFromInput, type ListInputData } from '../fields/list-input';
import { field, lineItemsField, preflightOutputFields } from '../fields/outputs';
import { bulkSubmissionSample, preflightSample } from '../samples';
import { preflightSummary } from '../shapes';

/** What the output says when the step's time ran out before every job was posted. */
function unsentNote(submission: ListSubmission): string {
  if (submission.unsent.length === 0) return '';
  const sent = submission.jobs.length;
  return (
    `Zapier allows a step 30 seconds, and the time ran out after ${sent} job${sent === 1 ? '' : 's'} of the list ` +
    `were submitted (Job IDs). The ${submission.unsent.length} addresses in Not Sent Addresses were not sent and not charged: ` +
    'map that field into Email Addresses of another "Submit Bulk Verification" step to send exactly those. ' +
    'Do not replay this run: it would submit and charge the jobs above again.'
  );
}

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
    all_sent: submission.unsent.length === 0,
    unsent_count: submission.unsent.length,
    unsent: submission.unsent,
    note: unsentNote(submission),
  };
}

const perform = mapErrors(async (z: ZObject, bundle: Bundle<ListInputData>) => {
  // Planning reads the account for lists over 10,000; that read counts against the step's time too.
  const deadline = stepDeadline();
  const client = clientFor(z, bundle);
  const plan = await client.planList(
    { emails: emailsFromInput(bundle.inputData), ...jobOptionsFromInput(bundle.inputData) },
    { deadline },
  );
  return submissionOutput(await client.submitPlan(plan, { deadline }));
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
  all_sent: true,
  unsent_count: 0,
  unsent: [],
  note: '',
};

export default defineCreate({
  key: 'submit_bulk',
  noun: 'Bulk Job',
  display: {
    label: 'Submit Bulk Verification',
    description:
      'Sends a whole list as background jobs (1 credit per unique address). Use the Bulk Job Finished trigger or Find Bulk Job to pick up the results. A list needing more jobs than fit in 30 seconds returns the addresses not sent, uncharged.',
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
      lineItemsField('jobs', 'Jobs (Line Items)'),
      field('jobs[]job_id', 'Job ID (Per Job)', 'string'),
      field('jobs[]status', 'Job Status (Per Job)', 'string'),
      field('jobs[]total_emails', 'Addresses (Per Job)', 'integer'),
      field('jobs[]estimated_seconds', 'Estimated Seconds (Per Job)', 'integer'),
      field('jobs[]credits_used', 'Credits Used (Per Job)', 'integer'),
      field('jobs[]credits_remaining', 'Credits Remaining (Per Job)', 'integer'),
      field('jobs[]created_at', 'Created At (Per Job)', 'datetime'),
      ...preflightOutputFields(),
      lineItemsField('rejected_by_service', 'Addresses Refused by the Service (Line Items)'),
      field('rejected_by_service[]email', 'Address Refused by the Service', 'string'),
      field('rejected_by_service[]reason', 'Why the Service Refused It', 'string'),
      field('all_sent', 'Whole List Sent', 'boolean'),
      field('unsent_count', 'Addresses Not Sent (Out of Time)', 'integer'),
      field('unsent', 'Not Sent Addresses', 'string', { list: true }),
      field('note', 'Note', 'string'),
    ],
  },
});
