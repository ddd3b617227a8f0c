import { isJobStopped, type Job, type PreflightReport } from '@evf/client';

/**
 * Output shapes that more than one operation returns. Positions are 1-based ("row 1" is the first
 * address a user gave), because the people reading them count rows in a sheet, not array indexes.
 */
export interface PreflightSummary {
  received: number;
  unique_count: number;
  duplicates_removed: number;
  malformed_removed: number;
  malformed: { email: string; position: number; reason: string }[];
  duplicates: { email: string; position: number; first_position: number }[];
}

export function preflightSummary(report: PreflightReport): PreflightSummary {
  return {
    received: report.received,
    unique_count: report.unique.length,
    duplicates_removed: report.duplicates.length,
    malformed_removed: report.malformed.length,
    malformed: report.malformed.map((m) => ({ email: m.email, position: m.index + 1, reason: m.reason })),
    duplicates: report.duplicates.map((d) => ({
      email: d.email,
      position: d.index + 1,
      first_position: d.firstIndex + 1,
    })),
  };
}

/** The fields named of a job (or its sample), in the order named: the values of an output's job fields. */
export function pickJobFields<T extends object, K extends keyof T>(job: T, keys: readonly K[]): Pick<T, K> {
  const picked = {} as Pick<T, K>;
  for (const key of keys) picked[key] = job[key];
  return picked;
}

/** A job's status as the client reads it; the fields the outcome below needs. */
export interface JobState {
  job_id: string;
  status: Job['status'];
  terminal?: boolean | null;
  processed: number;
  total_emails: number;
  error?: string | null;
}

/** What a Zap needs to know about a job that stopped without completing, in flat output fields. */
export interface JobOutcome {
  job_failed: boolean;
  failure_note: string;
}

/** The label of the search that reads a job's rows, named in advice to the user. */
export const READ_RESULTS_LABEL = 'Find Bulk Job Results';

/** True for a job that has stopped without finishing its list (failed, interrupted, cancelled, ...). */
export function stoppedShort(job: JobState): boolean {
  return isJobStopped(job) && job.status !== 'completed';
}

/**
 * What happened to a job that stopped short (`where`: 'here' inside the step that reads its rows), how many rows were verified and how to get them, in the
 * words a Zap's history shows; empty for a job that completed or is still running.
 */
export function jobOutcome(job: JobState, where: 'elsewhere' | 'here' = 'elsewhere'): JobOutcome {
  if (!stoppedShort(job)) return { job_failed: false, failure_note: '' };
  const error = job.error?.trim().replace(/[.\s]+$/, '');
  const why = error ? `: ${error}` : '';
  // Inside the search that reads the rows, pointing at that same search would send the user in a circle.
  const rows =
    where === 'here'
      ? `The ${job.processed} verified rows are kept; they are the rows this step reads.`
      : `The ${job.processed} verified rows are kept; read them with "${READ_RESULTS_LABEL}" (Job ${job.job_id}).`;
  return {
    job_failed: true,
    failure_note: `Job ${job.job_id} ${job.status} after verifying ${job.processed} of ${job.total_emails} addresses${why}. ${rows}`,
  };
}

/** The step's note: a job that stopped short first (these rows are all there will be), then any cap. */
export function stepNote(outcome: JobOutcome, readingNote: string): string {
  return [outcome.failure_note, readingNote].filter(Boolean).join(' ');
}

/** "2026-11-27 14:00 UTC" for an ISO time in words: a person reads this form; an unreadable time is kept. */
export function readableTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * A time to wait for, in the same words, rounded up to the whole minute: "after 03:07" read as
 * "run at 03:07" must not be early, or the service refuses a run made at the minute the words named.
 */
export function readableTimeAfter(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : readableTime(new Date(Math.ceil(ms / 60_000) * 60_000).toISOString());
}
