/**
 * Bulk Job Finished on a slow service (the sandbox's latency on every answer, the wall clock): a burst
 * of 121 finished jobs arrives over several polls, each item a whole job with every field of the
 * sample, each job once, and no poll takes Zapier's 30 s. Before, the jobs past the newest 100 (and under
 * slow reads, all of them) came without their verdicts, group counts, completed_at or error.
 */
import { EmailVerificationClient } from '@evf/client';
import { fetchTransport, nodeRuntime } from '@evf/client/node';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { App, run, steps, useBaseUrl } from './helpers';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.001, allowInsecureWebhooks: true });
});
afterAll(async () => {
  await sb?.close();
});
useBaseUrl(() => sb.baseUrl);

const ZAPIER_STEP_LIMIT_MS = 30_000;

function keysOf(item: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(item).flatMap(([k, v]) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? keysOf(v as Record<string, unknown>, `${prefix}${k}__`)
      : [`${prefix}${k}`],
  );
}
const SAMPLE_KEYS = keysOf(App.triggers.job_finished.operation.sample as Record<string, unknown>);

it('at 3 s an answer, a burst of 121 jobs: fewer whole items a poll, every job once, each poll inside 30 s', async () => {
  const client = new EmailVerificationClient({
    apiKey: sb.apiKey,
    baseUrl: sb.baseUrl,
    transport: fetchTransport,
    runtime: nodeRuntime,
  });
  const seen = new Set<string>();
  const auth = { api_key: sb.apiKey };
  // The Zap is turned on before the burst: Zapier fills its dedupe table from this poll.
  await run(steps.finished, { authData: auth, inputData: {}, meta: { isPopulatingDedupe: true } });
  const submitted: string[] = [];
  for (let i = 0; i < 121; i++)
    submitted.push((await client.submitBulk({ emails: [`valid.slow${i}@acme-corp.com`] })).job_id);
  for (const id of submitted) {
    for (;;) {
      if ((await client.getJob(id)).terminal) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  sb.faults.setLatency(3_000);
  const perPoll: number[] = [];
  try {
    for (let polls = 0; seen.size < submitted.length && polls < 10; polls++) {
      const started = Date.now();
      const items: Record<string, unknown>[] = await run(steps.finished, { authData: auth, inputData: {} });
      expect(Date.now() - started).toBeLessThan(ZAPIER_STEP_LIMIT_MS);
      for (const item of items) expect(SAMPLE_KEYS.filter((k) => !keysOf(item).includes(k))).toEqual([]);
      const fresh = items.map((i) => i.id as string).filter((id) => !seen.has(id));
      for (const id of fresh) seen.add(id);
      perPoll.push(fresh.length);
    }
  } finally {
    sb.faults.setLatency(0);
  }
  expect(new Set(seen)).toEqual(new Set(submitted));
  // Slow reads: no poll read them all, and every poll brought some.
  expect(perPoll.length).toBeGreaterThan(1);
  expect(perPoll.every((n) => n > 0)).toBe(true);
  process.stdout.write(`new jobs per poll at 3 s an answer: ${perPoll.join(', ')}\n`);
}, 400_000);
