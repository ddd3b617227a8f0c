import {
  InputError,
  listFingerprint,
  nextSend,
  PartialSubmissionError,
  preflightEmails,
  rememberRun,
  type ListMemory,
  type ListSubmission,
} from '@evf/client';
import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { stepDeadline } from '../budget';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { optionalString } from '../fields/coerce';
import { listInputFields } from '../fields/inputs';
import { emailsFromInput, jobOptionsFromInput, type ListInputData } from '../fields/list-input';
import { field, lineItemsField, preflightOutputFields } from '../fields/outputs';
import { bulkSubmissionSample, preflightSample } from '../samples';
import { preflightSummary, readableTimeAfter } from '../shapes';

type SubmitInput = ListInputData & { max_addresses?: unknown };

/** A run's submission as this step reports it: what the client sent, plus what the cap held back. */
type StepSubmission = Pick<ListSubmission, 'jobs' | 'unsent' | 'unsentAfter' | 'stoppedBy' | 'note'> &
  Partial<Omit<ListSubmission, 'jobs' | 'unsent' | 'unsentAfter' | 'stoppedBy' | 'note'>>;

/** What the output says about the addresses not sent: why, when they can go, and how to send them. */
function unsentNote(submission: StepSubmission, capped: number, earlier: number): string {
  const parts: string[] = [];
  if (earlier)
    parts.push(
      `${earlier.toLocaleString('en-US')} addresses of this list were sent by earlier runs of this step and were not sent again.`,
    );
  if (submission.unsent.length === 0) return parts.join(' ');
  const sent = submission.jobs.length;
  if (submission.stoppedBy === 'time_budget') {
    parts.push(
      sent === 0
        ? 'Zapier allows a step 30 seconds, and the time ran out before the first job could be sent.'
        : `Zapier allows a step 30 seconds, and the time ran out after ${sent} job${sent === 1 ? '' : 's'} of the list were submitted (Job IDs).`,
    );
  } else if (submission.note) {
    parts.push(
      submission.note.replace(
        submission.unsentAfter ?? '\u0000',
        readableTimeAfter(submission.unsentAfter ?? ''),
      ),
    );
  }
  if (capped) parts.push(`${capped} addresses were held back by Most Addresses to Send.`);
  const after = submission.unsentAfter ? ` after ${readableTimeAfter(submission.unsentAfter)}` : '';
  parts.push(
    `The ${submission.unsent.length} addresses in Not Sent Addresses were not sent and not charged. Run this step again with the same list${after}: it sends only those (this connection remembers the list for 30 days), or map Not Sent Addresses into another "Submit Bulk Verification" step.`,
  );
  return parts.join(' ');
}

/** One output for a list that may have become several jobs (over 50,000 addresses), or none yet. */
export function submissionOutput(submission: StepSubmission, capped = 0, earlier = 0) {
  const first = submission.jobs[0];
  return {
    job_id: first?.job_id ?? '',
    job_ids: submission.jobs.map((j) => j.job_id),
    job_count: submission.jobs.length,
    status: first?.status ?? '',
    total_emails: submission.jobs.reduce((sum, j) => sum + j.total_emails, 0),
    credits_used: submission.creditsUsed ?? 0,
    credits_remaining: submission.creditsRemaining ?? null,
    created_at: first?.created_at ?? null,
    jobs: submission.jobs.map((j) => ({ ...j })),
    ...(submission.preflight ? preflightSummary(submission.preflight) : preflightSample),
    rejected_by_service: (submission.rejectedByService ?? []).map((r) => ({
      email: r.email,
      reason: r.reason,
    })),
    all_sent: submission.unsent.length === 0,
    unsent_count: submission.unsent.length,
    unsent: submission.unsent,
    stopped_by: submission.stoppedBy ?? (capped ? 'cap' : ''),
    continue_after: submission.unsentAfter ?? null,
    note: unsentNote(submission, capped, earlier),
  };
}

interface ZCache {
  get(key: string, scope?: string[]): Promise<unknown>;
  set(key: string, value: unknown, ttl?: number, scope?: string[]): Promise<unknown>;
}
/** core 19's z object has z.cache (src/tools/create-cache.js); its type definitions do not list it. */
const cacheOf = (z: ZObject): ZCache => (z as ZObject & { cache: ZCache }).cache;
/** Per connection: the lists this connection's runs sent. */
const SCOPE = ['auth'];
const REMEMBER_SECONDS = 30 * 24 * 3600;

/** The cache key of a list (its unique well-formed addresses, ignoring case and order). */
function memoryKey(emails: string | string[]): string {
  return `evf-bulk:${listFingerprint(preflightEmails(emails).unique.map((e) => e.toLowerCase()))}`;
}

/** The memory as kept: the client's, plus every cache key it is kept under. */
type KeptMemory = ListMemory & { cache_keys?: string[] };

function asMemory(value: unknown): KeptMemory | undefined {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  const m = parsed as Partial<KeptMemory> | null | undefined;
  return m && Array.isArray(m.lists) && Array.isArray(m.jobs) && Array.isArray(m.unsent)
    ? (m as KeptMemory)
    : undefined;
}

/**
 * The memory is kept under the key of every list a run of it was given (the whole list, each run's Not
 * Sent Addresses) and of what is left unsent, all updated by every run: a run given the whole list
 * after a run given only the unsent must see the jobs that run made, or it would send them again.
 */
async function remember(
  z: ZObject,
  earlier: KeptMemory | undefined,
  keys: string[],
  memory: ListMemory,
): Promise<void> {
  const cache = cacheOf(z);
  const all = [...new Set([...(earlier?.cache_keys ?? []), ...keys])];
  const kept: KeptMemory = { ...memory, cache_keys: all };
  for (const key of all) await cache.set(key, JSON.stringify(kept), REMEMBER_SECONDS, SCOPE);
}

/** Most Addresses to Send: a whole number of 1 or more, or no cap. */
function capOf(value: unknown): number | undefined {
  const text = optionalString(value);
  if (text === undefined) return undefined;
  const n = Number(text.replace(/[,_\s]/g, ''));
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new InputError(
      'max_addresses',
      'range',
      "Most Addresses to Send must be a whole number, 1 or more (e.g. 10000, a plan's daily allowance), or empty to send the whole list. Nothing was sent or charged.",
    );
  }
  return n;
}
const perform = mapErrors(async (z: ZObject, bundle: Bundle<SubmitInput>) => {
  // Planning reads the account; that read counts against the step's time too.
  const deadline = stepDeadline();
  // The connection and the service address are checked first: nothing is read or remembered without them.
  const client = clientFor(z, bundle);
  const cap = capOf(bundle.inputData.max_addresses);
  const emails = emailsFromInput(bundle.inputData);
  const key = memoryKey(emails);
  const cache = cacheOf(z);
  const memory = asMemory(await cache.get(key, SCOPE));
  // A rerun or replay of a run that stopped part way sends only what earlier runs did not: no address
  // is charged twice, whether the run is replayed at once or the next day.
  const next = nextSend(emails, memory, Date.now());
  if (next.remembered && (next.done || next.notBefore)) {
    return submissionOutput(
      {
        jobs: [],
        unsent: memory!.unsent,
        unsentAfter: next.notBefore,
        stoppedBy: memory!.stoppedBy,
        note: '',
      },
      0,
      next.alreadySent,
    );
  }
  const send = cap === undefined ? next.send : next.send.slice(0, cap);
  const held = cap === undefined ? [] : next.send.slice(cap);
  const options = { deadline, sendWhatFits: true } as const;
  let submission: ListSubmission;
  try {
    const plan = await client.planList({ emails: send, ...jobOptionsFromInput(bundle.inputData) }, options);
    submission = await client.submitPlan(plan, options);
  } catch (error) {
    // A stop that is not "send later" (a 402, an answer lost on the way): the jobs the service took are
    // remembered before the error is shown, so a replay does not pay for them again.
    if (error instanceof PartialSubmissionError && error.accepted.length) {
      const unsent = [...error.unsent, ...held];
      const run = { jobs: error.accepted as ListSubmission['jobs'], unsent, stoppedBy: error.stoppedBy };
      await remember(z, memory, [key, memoryKey(unsent)], rememberRun(memory, emails, run));
    }
    throw error;
  }
  const unsent = [...submission.unsent, ...held];
  const run = { ...submission, unsent };
  if (unsent.length || next.remembered) {
    await remember(z, memory, [key, memoryKey(unsent)], rememberRun(memory, emails, run));
  }
  return submissionOutput(run, held.length, next.alreadySent);
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
  stopped_by: '',
  continue_after: null,
  note: '',
};

export default defineCreate({
  key: 'submit_bulk',
  noun: 'Bulk Job',
  display: {
    label: 'Submit Bulk Verification',
    description:
      'Sends a list as background verification jobs, returning what did not fit today as Not Sent Addresses.',
  },
  operation: {
    inputFields: [
      ...listInputFields,
      {
        key: 'max_addresses',
        label: 'Most Addresses to Send',
        type: 'integer',
        required: false,
        helpText:
          "Sends at most this many addresses in this run (e.g. your plan's daily allowance); the rest come back in Not Sent Addresses, uncharged, and running the step again with the same list sends them. Leave empty to send what the account's allowance takes today.",
      },
    ],
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
      field('unsent_count', 'Addresses Not Sent', 'integer'),
      field('unsent', 'Not Sent Addresses', 'string', { list: true }),
      field('stopped_by', 'Why Not All Sent', 'string'),
      field('continue_after', 'Continue After', 'datetime'),
      field('note', 'Note', 'string'),
    ],
  },
});
