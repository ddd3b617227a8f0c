/**
 * Bulk Job Finished against the sandbox, polled the way Zapier polls: Zapier keeps the ids it has seen
 * and triggers on the new ones (https://docs.zapier.com/platform/build/deduplication), so every finished
 * job must appear in some poll. A burst of more finished jobs than one page of the job list, between two
 * polls, must all be in the next poll.
 */
import { EmailVerificationClient } from '@evf/client';
import { fetchTransport, nodeRuntime } from '@evf/client/node';
import { App, run, steps } from './helpers';
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

/** Keys of an item, flattened the way output fields name them (verdicts__valid, ...). */
function keysOf(item: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(item).flatMap(([k, v]) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? keysOf(v as Record<string, unknown>, `${prefix}${k}__`)
      : [`${prefix}${k}`],
  );
}
const SAMPLE_KEYS = keysOf(App.triggers.job_finished.operation.sample as Record<string, unknown>);

/** Zapier's dedupe over a run of polls: the ids each poll adds, and every item checked for its shape. */
async function poll(seen: Set<string>): Promise<string[]> {
  const items: Record<string, unknown>[] = await run(steps.finished, {
    authData: session.auth(),
    inputData: {},
  });
  for (const item of items) expect(SAMPLE_KEYS.filter((k) => !keysOf(item).includes(k))).toEqual([]);
  const fresh = items.map((i) => i.id as string).filter((id) => !seen.has(id));
  for (const id of fresh) seen.add(id);
  return fresh;
}

it('a burst of 130 jobs finished between two polls: every job triggers once, each item whole (100 a poll, then the rest)', async () => {
  const seen = new Set<string>();
  await poll(seen);
  const client = directClient();
  const submitted: string[] = [];
  for (let i = 0; i < 130; i++) {
    submitted.push((await client.submitBulk({ emails: [`valid.burst${i}@acme-corp.com`] })).job_id);
  }
  await allFinished(client, submitted);
  const second = await poll(seen);
  // Zapier takes 100 new items a poll: the newest 100, newest first.
  expect(second).toEqual(submitted.slice(-100).reverse());
  const third = await poll(seen);
  expect(new Set([...second, ...third])).toEqual(new Set(submitted));
  expect(await poll(seen)).toEqual([]);
}, 120_000);
