/**
 * Waiting for a job by polling GET /v1/jobs/{id}: the spec's 10 to 30 s interval, a deadline, and the
 * one rule for when a job has stopped.
 */
import { ConnectionError, JobWaitTimeoutError, RequestTimeoutError } from '../errors';
import { LIMITS, STOPPED_STATUSES } from '../limits';
import { assertJobId } from '../validation/params';
import type { Job } from '../types';
import type { JobReader } from './job-reader';

export interface WaitOptions {
  /** Poll interval, held within the spec's recommended 10 to 30 seconds (default 15 s). */
  intervalMs?: number;
  /** Overall deadline; JobWaitTimeoutError after it. Default: no deadline. */
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (job: Job) => void;
}

/** The spec recommends polling every 10 to 30 s; no caller may poll faster, whatever it asks. */
export function pollInterval(ms: number | undefined): number {
  return Math.min(
    LIMITS.maxPollIntervalMs,
    Math.max(LIMITS.minPollIntervalMs, ms ?? LIMITS.defaultPollIntervalMs),
  );
}

/** A job has stopped when it says so; when the flag is missing, its status decides. */
export function isJobStopped(job: { status: Job['status']; terminal?: boolean | null }): boolean {
  if (typeof job.terminal === 'boolean') return job.terminal;
  return STOPPED_STATUSES.includes(job.status);
}

/** Polls GET /v1/jobs/{id} until the job stops. The interval never comes from estimated_seconds. */
export async function waitForJob(
  reader: Pick<JobReader, 'getJob' | 'runtime'>,
  jobId: string,
  options: WaitOptions = {},
): Promise<Job> {
  assertJobId(jobId);
  const interval = pollInterval(options.intervalMs);
  const runtime = reader.runtime;
  const started = runtime.now();
  const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : started + options.timeoutMs;
  let last: Job | undefined;
  for (;;) {
    try {
      last = await reader.getJob(jobId, { signal: options.signal });
    } catch (error) {
      // A poll that got no answer is not the end of the job: try again at the next tick.
      if (!(error instanceof ConnectionError || error instanceof RequestTimeoutError)) throw error;
    }
    if (last) {
      options.onProgress?.(last);
      if (isJobStopped(last)) return last;
    }
    const now = runtime.now();
    if (now >= deadline) throw new JobWaitTimeoutError(jobId, now - started, last?.status);
    await runtime.sleep(Math.min(interval, Math.max(0, deadline - now)), options.signal);
  }
}
