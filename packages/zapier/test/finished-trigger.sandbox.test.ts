/**
 * Bulk Job Finished against the sandbox, polled the way Zapier polls: Zapier keeps the ids it has seen
 * and triggers on the new ones (https://docs.zapier.com/platform/build/deduplication), so every finished
 * job must appear in some poll. A burst of more finished jobs than one page of the job list, between two
 * polls, must all be in the next poll.
 */
import { EmailVerificationClient } from '@evf/client';
import { fetchTransport, nodeRuntime } from '@evf/client/node';
import { run, steps } from './helpers';
import { useSandboxSession } from './sandbox-session';

const session = useSandboxSession();

/**
 * The burst is made and awaited with the client directly: only the trigger is under test, and Zapier's
 * core ends a process that ran more than 250 invocations with a large memory footprint.
 */
function directClient(): EmailVerificationClient {
  return new EmailVerificationClient({
    apiKey: session.sb.apiKey,
    baseUrl: session.sb.baseUrl,
    transport: fetchTransport,
    runtime: nodeRuntime,
  });
}

async function allFinished(client: EmailVerificationClient, ids: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const jobs = await Promise.all(ids.map((id) => client.getJob(id)));
    if (jobs.every((job) => job.terminal === true)) return;
    if (Date.now() > deadline) throw new Error('jobs did not finish within 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('every job of a burst of 130 that finished between two polls triggers (more than a page of 100 and the old 25 per poll)', async () => {
  const first = await run(steps.finished, { authData: session.auth(), inputData: {} });
  const seen = new Set<string>(first.map((j: { id: string }) => j.id));
  const client = directClient();
  const submitted: string[] = [];
  for (let i = 0; i < 130; i++) {
    submitted.push((await client.submitBulk({ emails: [`valid.burst${i}@acme-corp.com`] })).job_id);
  }
  await allFinished(client, submitted);
  const second = await run(steps.finished, { authData: session.auth(), inputData: {} });
  const fresh = second.map((j: { id: string }) => j.id).filter((id: string) => !seen.has(id));
  expect(new Set(fresh)).toEqual(new Set(submitted));
  // Newest first, as Zapier expects of a polling trigger.
  expect(second[0].id).toBe(submitted[submitted.length - 1]);
  // The newest 100 carry the full job (verdict counts); all carry the outcome fields.
  expect(second.slice(0, 100).every((j: { verdicts?: unknown }) => j.verdicts !== undefined)).toBe(true);
  expect(second.every((j: { job_failed?: unknown }) => typeof j.job_failed === 'boolean')).toBe(true);
}, 120_000);
