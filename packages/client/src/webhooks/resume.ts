/**
 * What a platform does when a completion message reaches a paused run: the message is only a notice, so
 * the job is always read with the API key (the job id is known from the submission). A message that
 * cannot be verified (wrong secret, arrived after the timestamp window, about another job) never costs the
 * user the rows already paid for: the job's own state, read with the key, decides.
 */
import type { RequestOptions } from '../core/http';
import type { Job } from '../types';
import { verifyWebhook, WebhookVerificationError, type HeaderBag, type WebhookFailure } from './verify';

export interface ResumeInput {
  /** The job this run submitted and waits for. */
  jobId: string;
  rawBody: string | Uint8Array;
  headers: HeaderBag;
  /** The connection's signing secrets; none means the message cannot be checked. */
  secrets: readonly string[];
  now?: () => number;
}

export type MessageCheck =
  /** signed with one of the secrets, inside the timestamp window, about this job */
  | { result: 'verified' }
  /** no secret was configured: nothing could be checked */
  | { result: 'not_checked' }
  /** a secret was configured, but the message failed a check (or names another job) */
  | { result: 'failed'; failure: WebhookFailure | 'other_job'; reason: string };

export interface ResumeOutcome {
  /** The job, read from the service with the key after the message arrived. */
  job: Job;
  message: MessageCheck;
}

/** Checks the message without throwing, so the caller can still read the job. */
export function checkCompletionMessage(input: ResumeInput): MessageCheck {
  if (input.secrets.length === 0) return { result: 'not_checked' };
  try {
    const verified = verifyWebhook({
      rawBody: input.rawBody,
      headers: input.headers,
      secrets: input.secrets,
      now: input.now,
    });
    if (verified.jobId !== input.jobId) {
      return {
        result: 'failed',
        failure: 'other_job',
        reason: `The message is about job ${verified.jobId}, not job ${input.jobId}.`,
      };
    }
    return { result: 'verified' };
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    return { result: 'failed', failure: error.code, reason: error.message };
  }
}

/** Checks the message, then reads the job with the key whatever the check said. */
export async function resumeAfterMessage(
  reader: { getJob(jobId: string, opts?: RequestOptions): Promise<Job> },
  input: ResumeInput,
  opts: RequestOptions = {},
): Promise<ResumeOutcome> {
  const message = checkCompletionMessage(input);
  const job = await reader.getJob(input.jobId, opts);
  return { job, message };
}
