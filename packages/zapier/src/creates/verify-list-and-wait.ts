import { countByGroup, InputError, isJobStopped, type MessageCheck } from '@evf/client';
import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { stepDeadline } from '../budget';
import { clientFor, webhookSecrets } from '../client';
import { MAX_RESULT_ROWS } from '../config';
import { optionalString } from '../fields/coerce';
import { mapErrors } from '../errors';
import { listInputFields } from '../fields/inputs';
import { emailsFromInput, jobOptionsFromInput, type ListInputData } from '../fields/list-input';
import {
  field,
  groupCountOutputFields,
  jobOutcomeOutputFields,
  jobOutputFields,
  preflightOutputFields,
  resultRowsOutputFields,
  returnedRowsOutputFields,
} from '../fields/outputs';
import { collectRows } from '../rows';
import { categorizedRowSamples, completedJobSample, preflightSample } from '../samples';
import { jobOutcome, preflightSummary, READ_RESULTS_LABEL, stepNote, type PreflightSummary } from '../shapes';

type WaitInput = ListInputData & { on_failure?: unknown };

/** What the user chose for a job that stops before its whole list is verified. */
function onFailure(value: unknown): 'fail' | 'continue' {
  const text = optionalString(value);
  if (text === undefined || text === 'fail') return 'fail';
  if (text === 'continue') return 'continue';
  throw new InputError(
    'on_failure',
    'enum',
    'Choose "Fail the step" or "Continue with the rows verified so far".',
  );
}

/** What perform hands to performResume (Zapier stores it as bundle.outputData while the Zap waits). */
interface Waiting extends PreflightSummary {
  job_id: string;
  waiting_for_callback: true;
}

const perform = mapErrors(async (z: ZObject, bundle: Bundle<WaitInput>) => {
  const emails = emailsFromInput(bundle.inputData);
  onFailure(bundle.inputData.on_failure);
  if (bundle.meta?.isLoadingSample) {
    // Testing the step in the editor must not submit (and charge) a list whose answer it cannot wait for.
    return {
      ...sample,
      note: 'Test run: nothing was submitted or charged. A live Zap waits here for the real results.',
    };
  }
  const deadline = stepDeadline();
  const client = clientFor(z, bundle);
  // Zapier gives one callback URL per step, which resumes once: a list that needs several jobs cannot wait here.
  const plan = await client
    .planList(
      { emails, ...jobOptionsFromInput(bundle.inputData), webhook_url: z.generateCallbackUrl() },
      { maxJobs: 1, deadline },
    )
    .catch((error: unknown) => {
      if (!(error instanceof InputError) || error.rule !== 'max_jobs') throw error;
      throw new InputError(
        'emails',
        'max_items',
        `${error.message} Use "Submit Bulk Verification" with the "Bulk Job Finished" trigger for lists this long.`,
      );
    });
  const submission = await client.submitPlan(plan, { deadline });
  const waiting: Waiting = {
    job_id: submission.jobs[0]!.job_id,
    waiting_for_callback: true,
    ...preflightSummary(submission.preflight),
  };
  return waiting;
});

/** What the step says when the message could not be verified, and why the rows below can be trusted. */
function messageNote(check: MessageCheck): string {
  if (check.result !== 'failed') return '';
  const advice =
    check.failure === 'signature_mismatch' || check.failure === 'malformed_signature'
      ? ' If this happens on every run, the Webhook Signing Secret in the connection is not the one under Profile, API, Webhooks: copy it again and reconnect.'
      : check.failure === 'timestamp_too_old'
        ? ' (Zapier delivered the message to this step later than the 5 minutes a signature is accepted for.)'
        : '';
  return `The completion message could not be verified: ${check.reason}${advice} Nothing in it was used: the job and its rows below were read from the service with the connection's API key.`;
}

/**
 * Runs when the service's completion message reaches the callback URL. The message is only a notice: it
 * is checked when the connection has a secret, and the job and its rows are then read from the API with
 * the key whatever the check said (the job ID is the one this step submitted). A late message or a wrong
 * secret therefore never loses the rows already paid for; it is said in the note. A message arriving
 * while the job still runs cannot be the service's completion notice and is refused.
 */
const performResume = mapErrors(async (z: ZObject, bundle: Bundle<WaitInput>) => {
  const waiting = bundle.outputData as Waiting;
  const deadline = stepDeadline();
  const client = clientFor(z, bundle);
  const secrets = webhookSecrets(bundle);
  const { job, message } = await client.resumeAfterMessage(
    {
      jobId: waiting.job_id,
      rawBody: bundle.rawRequest?.content ?? '',
      headers: bundle.rawRequest?.headers ?? {},
      secrets,
    },
    { deadline },
  );
  if (!isJobStopped(job)) {
    throw new z.errors.Error(
      `A completion message arrived, but job ${job.job_id} is still ${job.status} (${job.processed} of ${job.total_emails} verified), so the message did not come from the service.${secrets.length ? '' : ' Add the webhook signing secret to the connection to have every message checked.'} The job goes on: read its rows with "${READ_RESULTS_LABEL}" once the "Bulk Job Finished" trigger fires.`,
      'webhook_job_not_finished',
      409,
    );
  }
  const outcome = jobOutcome(job);
  const unverified = messageNote(message);
  if (outcome.job_failed && onFailure(bundle.inputData.on_failure) === 'fail') {
    // Halted, not errored: Zapier never replays a halted run on its own (a replay would submit and
    // charge the list again), and the steps after this one do not run on part of the list.
    throw new z.errors.HaltedError(
      [
        outcome.failure_note,
        'To pass them on from this step instead, set "If the Job Fails" to "Continue with the rows verified so far".',
        unverified,
      ]
        .filter(Boolean)
        .join(' '),
    );
  }
  const collected = await collectRows(client, job.job_id, { maxRows: MAX_RESULT_ROWS, deadline, job });
  const { job_id: _ignored, waiting_for_callback: _w, ...preflight } = waiting;
  return {
    ...job,
    ...outcome,
    ...preflight,
    counts: countByGroup(collected.rows),
    returned_rows: collected.rows.length,
    truncated: collected.truncated,
    next_start_row: collected.nextStartRow,
    message_verified: message.result === 'verified',
    note: [stepNote(outcome, collected.note), unverified].filter(Boolean).join(' '),
    results: collected.rows,
  };
});

const sample = {
  ...completedJobSample,
  ...jobOutcome(completedJobSample),
  ...preflightSample,
  counts: countByGroup(categorizedRowSamples),
  returned_rows: categorizedRowSamples.length,
  truncated: false,
  next_start_row: null,
  message_verified: true,
  note: '',
  results: categorizedRowSamples,
};

export default defineCreate({
  key: 'verify_list_and_wait',
  noun: 'Verified List',
  display: {
    label: 'Verify List and Wait for Results',
    description: `Verifies a list of up to 50,000 addresses as one job and returns its first ${MAX_RESULT_ROWS.toLocaleString('en-US')} results when it finishes.`,
  },
  operation: {
    inputFields: [
      ...listInputFields,
      {
        key: 'on_failure',
        label: 'If the Job Fails',
        type: 'string',
        required: false,
        default: 'fail',
        choices: [
          { value: 'fail', label: 'Fail the step', sample: 'fail' },
          { value: 'continue', label: 'Continue with the rows verified so far', sample: 'continue' },
        ],
        helpText:
          'A job can fail or be stopped before every address is verified. By default the step then stops with a message saying how many rows were verified, so later steps never act on part of a list without you knowing. Continue passes on the rows verified so far, with Job Failed set.',
      },
    ],
    perform,
    performResume,
    sample,
    outputFields: [
      ...jobOutputFields(),
      ...jobOutcomeOutputFields(),
      ...preflightOutputFields(),
      ...groupCountOutputFields('counts__', 'Returned Rows'),
      ...returnedRowsOutputFields(),
      field('next_start_row', 'Next Start Row (for Find Bulk Job Results)', 'integer'),
      field('message_verified', 'Completion Message Verified', 'boolean'),
      field('note', 'Note', 'string'),
      ...resultRowsOutputFields(),
    ],
  },
});
