import { countByGroup, GROUPS, InputError, isJobStopped, type Group, type Job } from '@evf/client';
import { defineSearch, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor } from '../client';
import { MAX_RESULT_ROWS, STEP_BUDGET_MS } from '../config';
import { isNotFound, mapErrors } from '../errors';
import { optionalString } from '../fields/coerce';
import { jobIdInputField } from '../fields/inputs';
import {
  field,
  groupCountOutputFields,
  jobOutcomeOutputFields,
  verifiedAddressOutputFields,
} from '../fields/outputs';
import { collectRows } from '../rows';
import { categorizedRowSamples, completedJobSample } from '../samples';
import { jobOutcome, READ_RESULTS_LABEL, stepNote } from '../shapes';

type GetResultsInput = {
  job_id?: string;
  group?: string;
};

function groupFilter(value: unknown): Group | undefined {
  const text = optionalString(value);
  if (text === undefined) return undefined;
  if ((GROUPS as readonly string[]).includes(text)) return text as Group;
  throw new InputError(
    'group',
    'enum',
    `Group must be one of ${GROUPS.join(', ')}, or left empty for every row.`,
  );
}

/** A job still running has more rows to come: say so, with how far it is. */
function runningNote(job: Job, read: number): string {
  if (isJobStopped(job)) return '';
  return `Job ${job.job_id} is still ${job.status} (${job.processed} of ${job.total_emails} addresses verified); these are the ${read} rows stored so far. Run this search again after the "Bulk Job Finished" trigger fires for every row.`;
}

const perform = mapErrors(async (z: ZObject, bundle: Bundle<GetResultsInput>) => {
  const group = groupFilter(bundle.inputData.group);
  const jobId = String(bundle.inputData.job_id ?? '').trim();
  const client = clientFor(z, bundle);
  let job: Job;
  try {
    job = await client.getJob(jobId);
  } catch (error) {
    // A search that finds nothing returns no items, so the user's "if nothing found" setting applies
    // and the Zap can branch on it.
    if (isNotFound(error)) return [];
    throw error;
  }
  const collected = await collectRows(client, job.job_id, {
    maxRows: MAX_RESULT_ROWS,
    budgetMs: STEP_BUDGET_MS,
    group,
  });
  const outcome = jobOutcome(job);
  return [
    {
      job_id: job.job_id,
      status: job.status,
      terminal: job.terminal,
      total_emails: job.total_emails,
      processed: job.processed,
      ...outcome,
      group_filter: group ?? '',
      buckets: job.buckets,
      counts: countByGroup(collected.rows),
      rows_read: collected.scanned,
      returned_rows: collected.rows.length,
      truncated: collected.truncated,
      note: stepNote(outcome, [runningNote(job, collected.scanned), collected.note].filter(Boolean).join(' ')),
      results: collected.rows,
    },
  ];
});

const sample = {
  job_id: completedJobSample.job_id,
  status: completedJobSample.status,
  terminal: completedJobSample.terminal,
  total_emails: completedJobSample.total_emails,
  processed: completedJobSample.processed,
  ...jobOutcome(completedJobSample),
  group_filter: '',
  buckets: completedJobSample.buckets,
  counts: countByGroup(categorizedRowSamples),
  rows_read: categorizedRowSamples.length,
  returned_rows: categorizedRowSamples.length,
  truncated: false,
  note: '',
  results: categorizedRowSamples,
};

export default defineSearch({
  key: 'get_job_results',
  noun: 'Job Results',
  display: {
    label: READ_RESULTS_LABEL,
    description: `Finds the results of a bulk job (all pages, also while it is still running, and the rows verified before a job failed) as line items, optionally only one group; up to ${MAX_RESULT_ROWS.toLocaleString('en-US')} rows per step. An unknown job finds nothing.`,
  },
  operation: {
    inputFields: [
      jobIdInputField,
      {
        key: 'group',
        label: 'Only This Group',
        type: 'string',
        required: false,
        choices: [
          { value: 'safe_to_send', label: 'Safe to send', sample: 'safe_to_send' },
          { value: 'risky', label: 'Risky (catch-all, role, unknown)', sample: 'risky' },
          { value: 'invalid', label: 'Invalid (includes spam traps and disposable)', sample: 'invalid' },
        ],
        helpText:
          'Leave empty to get every row. Groups follow the dashboard: only Safe to send should be mailed.',
      },
    ],
    perform,
    sample,
    outputFields: [
      field('job_id', 'Job ID', 'string'),
      field('status', 'Job Status', 'string'),
      field('terminal', 'Finished', 'boolean'),
      field('total_emails', 'Total Addresses', 'integer'),
      field('processed', 'Processed Addresses', 'integer'),
      ...jobOutcomeOutputFields(),
      field('group_filter', 'Group Filter', 'string'),
      ...groupCountOutputFields('buckets__', 'Whole Job'),
      ...groupCountOutputFields('counts__', 'Returned Rows'),
      field('rows_read', 'Rows Read', 'integer'),
      field('returned_rows', `Rows Returned (At Most ${MAX_RESULT_ROWS.toLocaleString('en-US')})`, 'integer'),
      field('truncated', 'Rows Left Out (Truncated)', 'boolean'),
      field('note', 'Note', 'string'),
      ...verifiedAddressOutputFields('results[]'),
    ],
  },
});
