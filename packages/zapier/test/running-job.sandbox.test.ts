/**
 * Find Bulk Job Results on a job that is still running: the step returns the rows stored so far, at
 * once, and says the job is still running (client 1.0's results() follows a running job by default,
 * which a 30 s step must not do).
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { eventually } from '../../../test/support/sandbox';
import { run, steps, useBaseUrl } from './helpers';

let sb: Sandbox;
beforeAll(async () => {
  // Real time, 20 rows a second: a 400-row job runs for about 20 s.
  sb = await startSandbox({ port: 0, timeScale: 1, rowsPerSecond: 20, queueDelayMs: 0 });
});
afterAll(() => sb.close());
useBaseUrl(() => sb.baseUrl);

it('returns the stored rows at once and notes that the job still runs', async () => {
  const emails = Array.from({ length: 400 }, (_, i) => `valid.run${i}@acme-corp.com`).join('\n');
  const submitted = await run(steps.bulk, {
    authData: { api_key: sb.apiKey },
    inputData: { emails_text: emails },
  });
  const jobId = submitted.job_id as string;
  // Some rows stored, the job still running: what the step must read without waiting.
  await eventually(() => (sb.job(jobId)?.processed ?? 0) > 0, 10_000);
  const from = sb.requests.length;
  const [found] = await run(steps.results, {
    authData: { api_key: sb.apiKey },
    inputData: { job_id: jobId },
  });
  const reads = sb.requests.slice(from).map((r) => `${r.method} ${r.path}`);
  expect(found.terminal).toBe(false);
  expect(found.results.length).toBeLessThan(400);
  expect(found.note).toMatch(
    new RegExp(
      `^Job ${jobId} is still (queued|processing) \\(\\d+ of 400 addresses verified when read\\): these are the rows stored so far, not the whole job`,
    ),
  );
  // A partial read is never marked complete: truncated, running, and where to read on.
  expect(found).toMatchObject({
    truncated: true,
    job_running: true,
    next_start_row: found.results.length + 1,
  });
  // One read of the job and one of its stored rows: the step did not wait and read the page again.
  expect(reads).toEqual([`GET /v1/jobs/${jobId}`, `GET /v1/jobs/${jobId}/results`]);
}, 30_000);

it('says Job Still Running when the window filled up (5,000 rows) while the job still runs', async () => {
  // A faster sandbox: 50,000 addresses at 2,000 rows a second run for about 25 s.
  const fast = await startSandbox({ port: 0, timeScale: 1, rowsPerSecond: 2_000, queueDelayMs: 0 });
  const before = process.env.EVF_BASE_URL;
  process.env.EVF_BASE_URL = fast.baseUrl;
  try {
    const emails = Array.from({ length: 50_000 }, (_, i) => `valid.cap${i}@acme-corp.com`);
    const submitted = await run(steps.bulk, { authData: { api_key: fast.apiKey }, inputData: { emails } });
    const jobId = submitted.job_id as string;
    // Wait for more than 5,000 stored rows, by the job's own count (no fixed sleep).
    for (;;) {
      const [job] = await run(steps.findJob, {
        authData: { api_key: fast.apiKey },
        inputData: { job_id: jobId },
      });
      if (job.processed > 6_000) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const [found] = await run(steps.results, {
      authData: { api_key: fast.apiKey },
      inputData: { job_id: jobId },
    });
    expect(found.results).toHaveLength(5_000);
    expect(found).toMatchObject({ truncated: true, job_running: true, next_start_row: 5_001 });
  } finally {
    process.env.EVF_BASE_URL = before;
    await fast.close();
  }
}, 60_000);
