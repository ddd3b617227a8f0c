/**
 * The wire shapes the sandbox writes, from the spec's field tables ("Resources and their fields").
 * The sandbox's own types, so it shares nothing with the client it is meant to check. They are exact
 * where the sandbox is the author: a reader of the real service must stay open (the client's types do).
 */
import type { JOB_STATUSES, PRIMARY_LABELS, PRIORITIES, TAG_LABELS } from './limits';

export type JobStatus = (typeof JOB_STATUSES)[number];
export type PrimaryLabel = (typeof PRIMARY_LABELS)[number];
export type TagLabel = (typeof TAG_LABELS)[number];
export type Priority = (typeof PRIORITIES)[number];
export type SingleStatus = 'valid' | 'invalid' | 'risky';

export interface Tag {
  label: TagLabel;
  confidence: number;
}

export interface Details {
  primary_label: PrimaryLabel;
  tags: Tag[];
  label_reasons: string[];
  safe_to_send?: string;
  safe_to_send_score?: number;
  safe_to_send_reasons?: string[];
  /** "The object may carry further fields": the sandbox adds informational ones. */
  [extra: string]: unknown;
}

export interface ResultRow {
  email: string;
  status: SingleStatus;
  valid: boolean;
  score: number;
  reason: string;
  details: Details;
}

export interface SingleResult extends ResultRow {
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
  status: JobStatus;
  terminal: boolean;
  total_emails: number;
  processed: number;
  progress_percent: number;
  verdicts: Verdicts;
  buckets: Buckets;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  valid_count: number;
  invalid_count: number;
}

export type JobListItem = Pick<
  Job,
  'job_id' | 'status' | 'total_emails' | 'processed' | 'progress_percent' | 'created_at'
>;

export interface JobList {
  jobs: JobListItem[];
  limit: number;
  offset: number;
}

export interface BulkSubmission {
  job_id: string;
  status: 'queued';
  total_emails: number;
  estimated_seconds: number;
  credits_used: number;
  credits_remaining: number;
  created_at: string;
}

export interface ResultsPage {
  job_id: string;
  status: JobStatus;
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
  /** The spec shows only null. */
  plan_limit: null;
  renewal_date: string;
}

export interface WebhookBody {
  event: 'job.completed' | 'job.failed';
  job_id: string;
  status: 'completed' | 'failed';
  total_emails: number;
  processed_emails: number;
  verdicts: Verdicts;
  created_at: string;
  completed_at: string;
  results_url: string;
  /** Only on job.failed. */
  error?: string;
}
