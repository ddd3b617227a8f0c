/**
 * Windows of a job's rows against the real sandbox over loopback: consecutive windows cover every row once,
 * in order; a running job is never reported complete. A deadline ending a window is timed by the wall
 * clock: deadlines.e2e.test.ts.
 */
import type { Sandbox } from '@evf/sandbox';
import {
  clientFor,
  eventually,
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

it('windows from each next start row read every row of a finished job once, in order, and the last says complete', async () => {
  const { client } = clientFor(sb, freshAccount(sb).apiKey);
  const emails = list(2_345, 'all');
  const job = await finishedJob(client, emails);
  const seen: string[] = [];
  const ends: string[] = [];
  let start: number | null = 0;
  while (start !== null) {
    const window = await client.resultsWindow(job.job_id, { startRow: start, maxRows: 1_000, pageSize: 300 });
    expect(window.startRow).toBe(start);
    seen.push(...window.rows.map((r) => r.email));
    ends.push(window.end);
    expect(window.truncated).toBe(window.end !== 'complete');
    start = window.nextStartRow;
  }
  expect(seen).toEqual(emails);
  expect(ends).toEqual(['max_rows', 'max_rows', 'complete']);
});

it('with a group filter, the next start row counts rows read, so the following window skips none', async () => {
  const { client } = clientFor(sb, freshAccount(sb).apiKey);
  const emails = list(500, 'group');
  const job = await finishedJob(client, emails);
  const first = await client.resultsWindow(job.job_id, { maxRows: 40, group: 'safe_to_send' });
  expect(first.rows).toHaveLength(40);
  expect(first.rows.every((r) => r.email.startsWith('valid.'))).toBe(true);
  // valid rows are every fifth row: the 40th sits at position 195, so the next window starts at 196.
  expect(first.nextStartRow).toBe(196);
  const rest = await client.resultsWindow(job.job_id, {
    startRow: first.nextStartRow!,
    maxRows: 1_000,
    group: 'safe_to_send',
  });
  expect(rest.rows).toHaveLength(60);
  expect(rest.end).toBe('complete');
});

it('a job still running ends its window as running and truncated, with where to read on, never as complete', async () => {
  const slow = await startFastSandbox({ rowsPerSecond: 20 });
  try {
    const { client } = clientFor(slow);
    const { job_id } = await client.submitBulk({ emails: list(3_000, 'running') });
    await eventually(async () => (await client.getJob(job_id)).processed > 0);
    const window = await client.resultsWindow(job_id, { maxRows: 5_000 });
    expect(window.end).toBe('running');
    expect(window.truncated).toBe(true);
    expect(window.rows.length).toBeLessThan(3_000);
    expect(window.nextStartRow).toBe(window.rows.length);
  } finally {
    await slow.close();
  }
});

it('rowsWindow reads no job: the pages say the job stopped, so windows of a finished job end complete', async () => {
  const { client } = clientFor(sb, freshAccount(sb).apiKey);
  const emails = list(1_500, 'rows-only');
  const job = await finishedJob(client, emails);
  const before = sb.requests.length;
  const first = await client.rowsWindow(job.job_id, { startRow: 0, maxRows: 1_000, pageSize: 1_000 });
  const last = await client.rowsWindow(job.job_id, { startRow: 1_000, maxRows: 5_000, pageSize: 1_000 });
  expect(first.end).toBe('max_rows');
  expect(last.end).toBe('complete');
  expect(last.status).toBe('completed');
  expect([...first.rows, ...last.rows].map((r) => r.email)).toEqual(emails);
  const paths = sb.requests.slice(before).map((r) => r.path);
  expect(paths.every((p) => p.endsWith('/results'))).toBe(true);
});

it('rowsWindow of a job still running ends running, never complete, from the pages alone', async () => {
  const slow = await startFastSandbox({ rowsPerSecond: 20 });
  try {
    const { client } = clientFor(slow);
    const { job_id } = await client.submitBulk({ emails: list(3_000, 'rows-running') });
    await eventually(async () => (await client.getJob(job_id)).processed > 0);
    const window = await client.rowsWindow(job_id, { maxRows: 5_000 });
    expect(window.end).toBe('running');
    expect(window.rows.length).toBeLessThan(3_000);
  } finally {
    await slow.close();
  }
});
