/**
 * The README's loop over a job's rows, as Looping by Zapier runs it: Find Bulk Job Results with Start at
 * Row = 1, 5001, 10001 (fixed values; a loop cannot feed one step's Next Start Row into the next) and a
 * group filter, on a service answering in 9 s (the sandbox's latency on every answer, the wall clock).
 * Every row of the group is read exactly once and no step takes Zapier's 30 s. Before, a window returned
 * 5,000 rows of the group (scanning past row 5,000: duplicates at the next fixed start) and, at 9 s an
 * answer, about 1,000 rows (rows 1,001 to 5,000 skipped).
 */
import { EmailVerificationClient } from '@evf/client';
import { fetchTransport, nodeRuntime } from '@evf/client/node';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { run, steps, useBaseUrl } from './helpers';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 100_000, allowInsecureWebhooks: true });
});
afterAll(async () => {
  await sb?.close();
});
useBaseUrl(() => sb.baseUrl);

const ZAPIER_STEP_LIMIT_MS = 30_000;
const ROWS = 12_000;
/** Local parts choose the sandbox's answer: a third each of safe to send, risky and invalid. */
const KINDS = ['valid', 'catchall', 'invalid'] as const;

it('Start at Row = 1, 5001, 10001 with Only This Group = risky at 9 s an answer reads each risky row once', async () => {
  const client = new EmailVerificationClient({
    apiKey: sb.apiKey,
    baseUrl: sb.baseUrl,
    transport: fetchTransport,
    runtime: nodeRuntime,
  });
  const emails = Array.from({ length: ROWS }, (_, i) => `${KINDS[i % 3]}.loop${i}@acme-corp.com`);
  const { job_id: jobId } = await client.submitBulk({ emails });
  for (;;) {
    if ((await client.getJob(jobId)).terminal) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const authData = { api_key: sb.apiKey };
  const read: string[] = [];
  const nextStarts: (number | null)[] = [];
  sb.faults.setLatency(9_000);
  try {
    // Looping by Zapier, "Loop from numbers": start 1, increment 5000, end 12000.
    for (let startRow = 1; startRow <= ROWS; startRow += 5_000) {
      const started = Date.now();
      const [out] = await run(steps.results, {
        authData,
        inputData: { job_id: jobId, group: 'risky', start_row: String(startRow) },
      });
      expect(Date.now() - started).toBeLessThan(ZAPIER_STEP_LIMIT_MS);
      read.push(...out.results.map((r: { email: string }) => r.email));
      nextStarts.push(out.next_start_row);
    }
  } finally {
    sb.faults.setLatency(0);
  }
  const risky = emails.filter((e) => e.startsWith('catchall.'));
  expect(read).toHaveLength(risky.length);
  expect(new Set(read)).toEqual(new Set(risky));
  expect(nextStarts).toEqual([5_001, 10_001, null]);
}, 200_000);
