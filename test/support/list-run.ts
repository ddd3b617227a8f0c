/**
 * One user journey, end to end against the sandbox: submit a list, wait for its jobs, read every row
 * back. Returns what the property suites compare with the oracle.
 */
import { EmailVerificationClient, type ListSubmission, type ResultRow } from '@evf/client';
import { acceleratedRuntime, fetchTransport } from '@evf/client/node';
import type { Sandbox } from '@evf/sandbox';

export interface JourneyResult {
  submission: ListSubmission;
  rows: ResultRow[];
  /** Statuses the jobs ended in. */
  statuses: string[];
}

export function journeyClient(
  sb: Sandbox,
  apiKey: string,
  speed: number,
  maxRetries: number,
): EmailVerificationClient {
  return new EmailVerificationClient({
    apiKey,
    baseUrl: sb.baseUrl,
    transport: fetchTransport,
    runtime: acceleratedRuntime(speed),
    retry: { maxRetries },
  });
}

export async function verifyListJourney(
  client: EmailVerificationClient,
  input: string | string[],
  options: { maxPerJob: number; perPage: number },
): Promise<JourneyResult> {
  const submission = await client.submitList({ emails: input }, { maxPerJob: options.maxPerJob });
  const jobs = await Promise.all(submission.jobs.map((j) => client.waitForJob(j.job_id)));
  const rows: ResultRow[] = [];
  for (const job of submission.jobs) {
    for await (const row of client.results(job.job_id, { pageSize: options.perPage })) rows.push(row);
  }
  return { submission, rows, statuses: jobs.map((j) => j.status) };
}

export const REFUNDED_LABELS: readonly string[] = ['unknown', 'not_verified'];
