/**
 * Wire types of the email verification API, as the spec gives them.
 * Where the spec says "not shown", the type stays open (unknown / index signature) on purpose:
 * code must not rely on a shape the service never promised.
 */
import type { JOB_STATUSES, PRIORITIES } from './limits';

export type JobStatus = (typeof JOB_STATUSES)[number];
/** A status string as read from the wire: the known ones, or one the spec has not named yet. */
export type JobStatusValue = JobStatus | (string & {});

export type SingleStatus = 'valid' | 'invalid' | 'risky';
export type PrimaryLabel =
  | 'valid'
  | 'invalid'
  | 'catch_all'
  | 'inbox_full'
  | 'disabled'
  | 'unknown'
  | 'not_verified';
export type TagLabel = 'spam_trap' | 'disposable' | 'role';
export type Priority = (typeof PRIORITIES)[number];

export interface Tag {
  label: TagLabel | (string & {});
  confidence: number;
}

export interface Details {
  primary_label: PrimaryLabel | (string & {});
  tags: Tag[];
  label_reasons: string[];
  /** Catch-all rows only. */
  safe_to_send?: string;
  safe_to_send_score?: number;
  safe_to_send_reasons?: unknown[];
  /** Further fields are informational and may change. */
  [extra: string]: unknown;
}

export interface SingleResult {
  email: string;
  status: SingleStatus | (string & {});
  valid: boolean;
  score: number;
  reason: string;
  details: Details;
  credits_used: number;
  credits_remaining: number;
  processed_at: string;
}

export interface Verdicts {
  valid: number;
  invalid: number;
  catch_all: number;
  risky: number;
  role_based: number;
  disposable: number;
  unknown: number;
}

export interface Buckets {
  safe_to_send: number;
  risky: number;
  invalid: number;
}

export interface Job {
  job_id: string;
  status: JobStatusValue;
  terminal: boolean;
  total_emails: number;
  processed: number;
  progress_percent: number;
  verdicts: Verdicts;
  buckets: Buckets;
  created_at: string;
  started_at?: string | null;
  completed_at?: string | null;
  error: string | null;
  /** Legacy; prefer verdicts and buckets. */
  valid_count?: number;
  invalid_count?: number;
}

export interface BulkSubmission {
  job_id: string;
  status: JobStatusValue;
  total_emails: number;
  estimated_seconds: number;
  credits_used: number;
  credits_remaining: number;
  created_at: string;
}

export interface JobListItem {
  job_id: string;
  status: JobStatusValue;
  total_emails: number;
  processed: number;
  progress_percent: number;
  created_at: string;
}

export interface JobList {
  jobs: JobListItem[];
  limit: number;
  offset: number;
}

export interface ResultRow {
  email: string;
  status: SingleStatus | (string & {});
  valid: boolean;
  score: number;
  reason: string;
  details: Details;
}

export interface ResultsPage {
  job_id: string;
  status: JobStatusValue;
  total: number;
  page: number;
  per_page: number;
  has_more: boolean;
  results: ResultRow[];
}

export interface CreditBalance {
  credits: number;
  credits_used_today: number;
  credits_used_this_month: number;
  /** The spec shows only null; its non-null form is not shown. */
  plan_limit: unknown;
  renewal_date: string;
}

export interface Account {
  plan: unknown;
  credits: number;
  credits_used_today: number;
  /** Further account fields are not shown by the spec. */
  [extra: string]: unknown;
}

/** Field types are not shown by the spec. */
export interface Subscription {
  status: unknown;
  plan: unknown;
  credits: unknown;
  renewal_date: unknown;
  has_billing: unknown;
  is_trial: unknown;
  trial_expired: unknown;
  [extra: string]: unknown;
}

export type WebhookEventName = 'job.completed' | 'job.failed';

export interface WebhookBody {
  event: WebhookEventName;
  job_id: string;
  status: 'completed' | 'failed' | (string & {});
  total_emails: number;
  processed_emails: number;
  verdicts: Verdicts;
  created_at: string;
  completed_at: string;
  results_url: string;
  error?: string;
}

// ---- request parameters ----

export interface VerifySingleParams {
  email: string;
  check_smtp?: boolean;
}

export interface SubmitBulkParams {
  emails: string[];
  name?: string;
  webhook_url?: string;
  priority?: Priority;
  check_smtp?: boolean;
}

export interface ListJobsParams {
  status?: string;
  limit?: number;
  offset?: number;
}

export interface ResultsPageParams {
  page?: number;
  per_page?: number;
}
