/**
 * Bulk Job Finished on a slow service and a busy account (the sandbox's latency on every answer, the
 * wall clock): finished jobs arrive over several polls, each item a whole job with every field of the
 * sample, each job once, and no poll takes Zapier's 30 s.
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

/**
 * A busy account at 9 s an answer: `burst` jobs finished in the look-back window. Every poll ends inside
 * Zapier's 30 s (the job list's pages are read at once, then up to 100 jobs at once: two answers' time),
 * every job comes whole and once over the polls (Zapier dedupes by id), and a job that finishes between
 * polls comes in the next one, ahead of the older jobs still waiting (the newest is not starved). Before,
 * the list was read a page at a time and 16 jobs at a time: 121 jobs at 9 s gave 8 polls of nothing, and
 * 401 jobs at 5 s failed every poll.
 */
it.each([121, 500])(
  'at 9 s an answer, %i finished jobs: each poll inside 30 s, every job once, the newest first',
  async (burst) => {
    const client = new EmailVerificationClient({
      apiKey: sb.apiKey,
      baseUrl: sb.baseUrl,
      transport: fetchTransport,
      runtime: nodeRuntime,
    });
    const finished = async (id: string) => {
      while (!(await client.getJob(id)).terminal) await new Promise((r) => setTimeout(r, 50));
      return id;
    };
    const seen = new Set<string>();
    const auth = { api_key: sb.apiKey };
    // The Zap is turned on before the burst: Zapier fills its dedupe table from this poll.
    await run(steps.finished, { authData: auth, inputData: {}, meta: { isPopulatingDedupe: true } });
    const submitted: string[] = [];
    for (let i = 0; i < burst; i++)
      submitted.push((await client.submitBulk({ emails: [`valid.busy${burst}.${i}@acme-corp.com`] })).job_id);
    for (const id of submitted) await finished(id);
    sb.faults.setLatency(9_000);
    const perPoll: number[] = [];
    const pollMs: number[] = [];
    let late: string | undefined;
    try {
      for (let polls = 0; seen.size < submitted.length && polls < Math.ceil(burst / 100) + 3; polls++) {
        const started = Date.now();
        const items: Record<string, unknown>[] = await run(steps.finished, { authData: auth, inputData: {} });
        const took = Date.now() - started;
        pollMs.push(took);
        expect(took).toBeLessThan(ZAPIER_STEP_LIMIT_MS);
        for (const item of items) expect(SAMPLE_KEYS.filter((k) => !keysOf(item).includes(k))).toEqual([]);
        const ids = items.map((i) => i.id as string);
        if (polls === 0) expect(ids[0]).toBe(submitted[submitted.length - 1]);
        if (late !== undefined) {
          // The job that finished after the first poll comes in this one, first.
          expect(ids[0]).toBe(late);
          late = undefined;
        }
        const fresh = ids.filter((id) => !seen.has(id) && submitted.includes(id));
        for (const id of fresh) seen.add(id);
        perPoll.push(fresh.length);
        if (polls === 0 && burst > 100)
          late = await finished(
            (await client.submitBulk({ emails: [`valid.late${burst}@acme-corp.com`] })).job_id,
          );
      }
    } finally {
      sb.faults.setLatency(0);
    }
    expect(new Set(seen)).toEqual(new Set(submitted));
    expect(perPoll.every((n) => n > 0)).toBe(true);
    process.stdout.write(
      `${burst} jobs at 9 s an answer, new jobs per poll: ${perPoll.join(', ')}; polls took ${pollMs.join(', ')} ms\n`,
    );
  },
  600_000,
);
