import { countByGroup, GROUPS, InputError, type Group } from '@evf/client';
import { defineSearch, type Bundle, type ZObject } from 'zapier-platform-core';
import { stepDeadline } from '../budget';
import { clientFor } from '../client';
import { MAX_RESULT_ROWS } from '../config';
import { isNotFound, mapErrors } from '../errors';
import { optionalString } from '../fields/coerce';
import { jobIdInputField } from '../fields/inputs';
import {
  field,
  groupCountOutputFields,
  jobFields,
  jobOutcomeOutputFields,
  resultRowsOutputFields,
  returnedRowsOutputFields,
} from '../fields/outputs';
import { collectWindow } from '../rows';
import { categorizedRowSamples, completedJobSample } from '../samples';
import { jobOutcome, pickJobFields, READ_RESULTS_LABEL, stepNote } from '../shapes';

/** The job's fields the output starts with: where the job is, beside the rows read. */
const JOB_STATE_FIELDS = ['job_id', 'status', 'terminal', 'total_emails', 'processed'] as const;

type GetResultsInput = {
  job_id?: string;
  group?: string;
  start_row?: unknown;
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

/** The 1-based row to start at: empty means the first row. */
function startRowOf(value: unknown): number {
  const text = optionalString(value);
  if (text === undefined) return 1;
  const n = Number(text.trim());
  if (Number.isSafeInteger(n) && n >= 1) return n;
  throw new InputError(
    'start_row',
    'range',
    'Start at Row must be a whole number, 1 or more: 1 for the first row, or the Next Start Row of an earlier read.',
  );
}

const perform = mapErrors(async (z: ZObject, bundle: Bundle<GetResultsInput>) => {
  const group = groupFilter(bundle.inputData.group);
  const startRow = startRowOf(bundle.inputData.start_row);
  const jobId = String(bundle.inputData.job_id ?? '').trim();
  const client = clientFor(z, bundle);
  let collected;
  try {
    collected = await collectWindow(client, jobId, {
      size: MAX_RESULT_ROWS,
      deadline: stepDeadline(),
      group,
      startRow,
    });
  } catch (error) {
    // A search that finds nothing returns no items, so the user's "if nothing found" setting applies
    // and the Zap can branch on it.
    if (isNotFound(error)) return [];
    throw error;
  }
  const { job } = collected;
  const outcome = jobOutcome(job, 'here');
  return [
    {
      ...pickJobFields(job, JOB_STATE_FIELDS),
      ...outcome,
      group_filter: group ?? '',
      buckets: job.buckets,
      counts: countByGroup(collected.rows),
      start_row: collected.startRow,
      rows_read: collected.scanned,
      returned_rows: collected.rows.length,
      truncated: collected.truncated,
      job_running: collected.running,
      next_start_row: collected.nextStartRow,
      note: stepNote(outcome, collected.note),
      results: collected.rows,
    },
  ];
});

const sample = {
  ...pickJobFields(completedJobSample, JOB_STATE_FIELDS),
  ...jobOutcome(completedJobSample),
  group_filter: '',
  buckets: completedJobSample.buckets,
  counts: countByGroup(categorizedRowSamples),
  start_row: 1,
  rows_read: categorizedRowSamples.length,
  returned_rows: categorizedRowSamples.length,
  truncated: false,
  job_running: false,
  next_start_row: null,
  note: '',
  results: categorizedRowSamples,
};

export default defineSearch({
  key: 'find_job_results',
  noun: 'Job Result',
  display: {
    label: READ_RESULTS_LABEL,
    description: "Finds a bulk job's result rows from a start row, optionally of one group only.",
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
      {
        key: 'start_row',
        label: 'Start at Row',
        type: 'integer',
        required: false,
        default: '1',
        helpText: `The job's row to start at (1 is the first). One step reads the ${MAX_RESULT_ROWS.toLocaleString('en-US')} rows from here (with a group, only that group's rows among them), so a Looping by Zapier step over 1, ${(MAX_RESULT_ROWS + 1).toLocaleString('en-US')}, ${(2 * MAX_RESULT_ROWS + 1).toLocaleString('en-US')}, ... reads every row of a finished job once; the output's Next Start Row is the next value, empty after the last row.`,
      },
    ],
    perform,
    sample,
    outputFields: [
      ...jobFields(JOB_STATE_FIELDS),
      ...jobOutcomeOutputFields(),
      field('group_filter', 'Group Filter', 'string'),
      ...groupCountOutputFields('buckets__', 'Whole Job'),
      ...groupCountOutputFields('counts__', 'Returned Rows'),
      field('start_row', 'Start at Row', 'integer'),
      field('rows_read', 'Rows Read', 'integer'),
      ...returnedRowsOutputFields(),
      field('job_running', 'Job Still Running', 'boolean'),
      field('next_start_row', 'Next Start Row', 'integer'),
      field('note', 'Note', 'string'),
      ...resultRowsOutputFields(),
    ],
  },
});
