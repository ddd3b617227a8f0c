import {
  countByGroup,
  preflightEmails,
  withCategory,
  type BulkSubmission,
  type CreditBalance,
  type Job,
  type ResultRow,
  type SingleResult,
} from '@evf/client';
import { preflightSummary } from './shapes';

/** Zapier's sample type is an open record; the typed samples below are checked as the wire types. */
export function asSample<T extends object>(value: T): Record<string, unknown> {
  return { ...(value as Record<string, unknown>) };
}

/**
 * Samples shown in the Zap editor before a user has run a step. Each is a value the service really
 * returns (the tests check them against the contract) plus the fields this app adds.
 */

export const SAMPLE_JOB_ID = 'job_5f2c9a7e41d8';

/**
 * A catch-all as the service returns one: the mailbox cannot be confirmed, so `valid` is false (only a
 * confirmed mailbox is valid) and no tag applies. The sample holds only keys every live result has
 * (Zapier check T004 compares it with whichever run is latest, which may be a valid address or a
 * timed-out one): the catch-all rating fields are declared as output fields, so they can be mapped,
 * but left out here. The live test (test/live-outputs.sandbox.test.ts) holds the sample to this.
 */
const catchAllDetails = {
  primary_label: 'catch_all',
  tags: [],
  label_reasons: ['The domain accepts mail for any address, so this mailbox cannot be confirmed.'],
};

export const singleResultSample: SingleResult = {
  email: 'sales@northwind.example',
  status: 'risky',
  valid: false,
  score: 0.62,
  reason: 'The domain accepts all addresses (catch-all).',
  details: catchAllDetails,
  credits_used: 1,
  credits_remaining: 9_841,
  processed_at: '2026-01-15T10:30:12Z',
};

export const verifyEmailSample: Record<string, unknown> = { ...withCategory(singleResultSample) };

export const resultRowSamples: ResultRow[] = [
  {
    email: 'ada@northwind.example',
    status: 'valid',
    valid: true,
    score: 0.98,
    reason: 'The mailbox exists and accepts mail.',
    details: { primary_label: 'valid', tags: [], label_reasons: ['Mailbox confirmed by the mail server.'] },
  },
  {
    email: 'old.contact@contoso.example',
    status: 'invalid',
    valid: false,
    score: 0.99,
    reason: 'The mailbox does not exist.',
    details: {
      primary_label: 'invalid',
      tags: [],
      label_reasons: ['The mail server refused the recipient.'],
    },
  },
  {
    email: 'team@fabrikam.example',
    status: 'risky',
    valid: false,
    score: 0.55,
    reason: 'The domain accepts all addresses (catch-all).',
    details: {
      primary_label: 'catch_all',
      tags: [],
      label_reasons: ['The domain accepts mail for any address.'],
      safe_to_send: 'low',
      safe_to_send_score: 0.41,
      safe_to_send_reasons: ['Mailbox existence cannot be confirmed'],
    },
  },
];

export const categorizedRowSamples = resultRowSamples.map(withCategory);

export const completedJobSample: Job = {
  job_id: SAMPLE_JOB_ID,
  status: 'completed',
  terminal: true,
  total_emails: 3,
  processed: 3,
  progress_percent: 100,
  verdicts: { valid: 1, invalid: 1, catch_all: 1, risky: 0, role_based: 0, disposable: 0, unknown: 0 },
  buckets: { safe_to_send: 1, risky: 1, invalid: 1 },
  created_at: '2026-01-15T10:30:00Z',
  started_at: '2026-01-15T10:30:01Z',
  completed_at: '2026-01-15T10:31:40Z',
  error: null,
  valid_count: 1,
  invalid_count: 1,
};

export const bulkSubmissionSample: BulkSubmission = {
  job_id: SAMPLE_JOB_ID,
  status: 'queued',
  total_emails: 3,
  estimated_seconds: 45,
  credits_used: 3,
  credits_remaining: 9_838,
  created_at: '2026-01-15T10:30:00Z',
};

export const creditBalanceSample: CreditBalance = {
  credits: 9_838,
  credits_used_today: 162,
  credits_used_this_month: 4_210,
  plan_limit: null,
  renewal_date: '2026-02-01T00:00:00Z',
};

/**
 * Pre-flight's report on a clean list of three, made by the real pre-flight so the sample cannot drift
 * from what a step outputs. Clean because most live runs are: a sample listing malformed or duplicate
 * rows would hold keys (malformed[]email, ...) that a clean run lacks, which Zapier's check T004 flags.
 */
export const preflightSample = preflightSummary(
  preflightEmails(['ada@northwind.example', 'grace@contoso.example', 'ghost@contoso.example']),
);

const sampleRows = [
  withCategory({
    email: 'ada@acme-corp.com',
    details: { primary_label: 'valid' as const, tags: [], label_reasons: [] },
  }),
  withCategory({
    email: 'info@acme-corp.com',
    details: {
      primary_label: 'valid' as const,
      tags: [{ label: 'role' as const, confidence: 0.9 }],
      label_reasons: [],
    },
  }),
];

/** Verify File and Wait's output: a results file of three rows, two verified and one skipped. */
export const verifyFileSample = {
  job_id: 'job_8f2c1d9e',
  job_ids: ['job_8f2c1d9e'],
  job_status: 'completed',
  job_failed: false,
  complete: true,
  answered_at: '2026-01-15T10:32:00.000Z',
  results_file: 'https://zapier.com/engine/hydrate/1/abcdef/',
  results_file_name: 'leads-verified.csv',
  column_used: 'Email',
  results_file_encoding:
    'Written as UTF-8 with a byte order mark, which Excel and Google Sheets both open with accents intact.',
  encoding_guessed: false,
  rows: 3,
  rows_verified: 2,
  rows_duplicate: 0,
  rows_skipped: 1,
  rows_not_verified: 0,
  unique_count: 2,
  malformed_removed: 1,
  counts: countByGroup(sampleRows),
  note: '',
};
