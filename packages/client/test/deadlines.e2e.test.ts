/**
 * Deadlines on the wall clock, against the sandbox over loopback: a results window and a read end at
 * their deadline, not when a hanging answer would. Timed by the wall clock, so e2e; each bound is at
 * least twice the deadline and at most half of what ignoring the deadline would take.
 */
import { EmailVerificationClient } from '@evf/client';
import { fetchTransport, nodeRuntime } from '@evf/client/node';
import type { Sandbox } from '@evf/sandbox';
import {
  clientFor,
  finishedJob,
  freshAccount,
  mixedList,
  startFastSandbox,
} from '../../../test/support/sandbox';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startFastSandbox();
});
afterAll(() => sb?.close());

const list = mixedList;

it('a deadline ends the window with the rows read so far and the position to go on from', async () => {
  const account = freshAccount(sb);
  const emails = list(2_500, 'time');
  const job = await finishedJob(clientFor(sb, account.apiKey).client, emails);
  const client = new EmailVerificationClient({
    apiKey: account.apiKey,
    baseUrl: sb.baseUrl,
    transport: fetchTransport,
    runtime: nodeRuntime,
    timeoutMs: 10_000,
  });
  // The third page hangs 5 s: waiting for it would take 2.5 times the bound below.
  sb.faults.slow({ path: `/v1/jobs/${job.job_id}/results`, method: 'GET', delayMs: 0, count: 2 });
  sb.faults.slow({ path: `/v1/jobs/${job.job_id}/results`, method: 'GET', delayMs: 5_000, count: 1 });
  const started = Date.now();
  const window = await client.resultsWindow(job.job_id, { maxRows: 5_000, deadline: started + 1_000 });
  expect(Date.now() - started).toBeLessThan(2_000);
  expect(window.end).toBe('time');
  expect(window.truncated).toBe(true);
  expect(window.rows.map((r) => r.email)).toEqual(emails.slice(0, 2_000));
  expect(window.nextStartRow).toBe(2_000);
});

it('a read that hangs is cut at the deadline instead of being tried again', async () => {
  // The transport's timeout runs on the wall clock. Each read hangs 400 ms past a 300 ms timeout and
  // the budget is 500 ms; six tries and five pauses, what ignoring the deadline costs, take over 2.3 s.
  const account = freshAccount(sb);
  const client = new EmailVerificationClient({
    apiKey: account.apiKey,
    baseUrl: sb.baseUrl,
    transport: fetchTransport,
    runtime: nodeRuntime,
    timeoutMs: 300,
    retry: { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 200, maxServerWaitMs: 200 },
  });
  const job = await clientFor(sb, account.apiKey).client.submitBulk({ emails: list(2, 'read') });
  sb.faults.slow({ path: `/v1/jobs/${job.job_id}`, method: 'GET', delayMs: 400, count: 8 });
  const started = Date.now();
  await expect(client.getJob(job.job_id, { deadline: started + 500 })).rejects.toThrow(
    /did not answer in time|time allowed/,
  );
  expect(Date.now() - started).toBeLessThan(1_000);
});
