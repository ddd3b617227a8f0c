/**
 * The whole-sheet Zap (docs/whole-sheet.md) on 50,000 rows against the sandbox, step by step through
 * zapier-platform-core's own handler: every paid row comes back exactly once in the sheet written back,
 * for 2 tasks; a job that fails part way writes back the rows verified so far and marks the rest; a
 * rerun submits only the rows still without an answer, and a further rerun submits nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { listFingerprint, preflightEmails } from '@evf/client';
import { readTable } from '@evf/tables';
import { startRawReceiver, type RawReceiver } from '../../../test/support/webhook-receiver';
import { expectNoSecrets, parseZapierError, useBaseUrl } from './helpers';
import { startZapierFiles, type ZapierFiles } from './support/zapier-files';
import {
  callbackFor,
  liveFileOutputs,
  makeSheetFile,
  runStep,
  runWholeSheetZap,
  type ZapierSide,
} from './support/whole-sheet-flow';
import { typeMatches } from './zapier-checks';
import App from '../src/index';

let sb: Sandbox;
let receiver: RawReceiver;
let files: ZapierFiles;
const sideFor = (): ZapierSide => ({
  files,
  receiver,
  authData: { api_key: sb.apiKey, webhook_secret: sb.webhookSecret },
  zcache: {},
});

beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 100_000, allowInsecureWebhooks: true });
  receiver = await startRawReceiver(() => 200, '/hooks/catch/sheet');
  files = await startZapierFiles();
});
afterAll(async () => {
  await files?.close();
  await receiver?.close();
  await sb?.close();
});
useBaseUrl(() => sb.baseUrl);

/** The sandbox's answer by local-part prefix (its documented table), written out on its own. */
const GROUP_BY_PREFIX: Record<string, string> = {
  valid: 'safe_to_send',
  catchall: 'risky',
  unknown: 'risky',
  notverified: 'risky',
  info: 'risky',
  full: 'risky',
  invalid: 'invalid',
  disabled: 'invalid',
  temp: 'invalid',
  trap: 'invalid',
};
const REFUNDED_PREFIXES = new Set(['unknown', 'notverified']);
const prefixOf = (email: string): string => email.toLowerCase().split('.')[0]!;

it('50,000 rows: every row written back once, in order, beside its own cells; every paid row answered; 2 tasks', async () => {
  const file = makeSheetFile(50_000);
  const side = sideFor();
  const run = await runWholeSheetZap(sb, side, files.host('leads.csv', file.csv), { name: 'November leads' });
  expect(run.error).toBeUndefined();
  const out = run.output!;
  expect(run.tasks).toBe(2);
  expect(out).toMatchObject({
    complete: true,
    job_failed: false,
    rows: 50_000,
    rows_verified: file.unique,
    rows_duplicate: file.duplicates,
    rows_skipped: file.malformed + file.empty,
    rows_not_verified: 0,
    column_used: 'Email',
    results_file_name: 'leads-verified.csv',
  });

  const input = readTable(file.csv).rows;
  const sheet = run.sheet!;
  expect(sheet[0]).toEqual([
    'First Name',
    'Email',
    'Company',
    'Category',
    'Group',
    'Safe to Send',
    'Reason',
    'Verification',
    'Verified At (UTC)',
  ]);
  expect(sheet).toHaveLength(50_001);
  // Checked row by row, with one assertion at the end (50,000 expect() calls would dominate the run).
  const seen = new Map<string, number>();
  const groups: Record<string, number> = { safe_to_send: 0, risky: 0, invalid: 0 };
  const wrong: string[] = [];
  for (let i = 0; i < input.length; i++) {
    const row = sheet[i + 1]!;
    const [name, email, company, , group, safe, reason, verification, answeredAt] = row as string[];
    const where = `row ${i + 2}`;
    if (name !== input[i]![0] || email !== input[i]![1] || company !== input[i]![2])
      wrong.push(`${where}: cells changed`);
    if (verification === 'skipped') {
      const expected =
        email === ''
          ? /^Not sent \(not charged\): no address in "Email"$/
          : /^Not sent \(not charged\): malformed address/;
      if (!expected.test(reason!)) wrong.push(`${where}: skipped without its reason`);
      continue;
    }
    // Verified rows and duplicates both carry the verdict the sandbox gives this address.
    if (group !== GROUP_BY_PREFIX[prefixOf(email!)]) wrong.push(`${where}: group ${group}`);
    if (safe !== (group === 'safe_to_send' ? 'TRUE' : 'FALSE')) wrong.push(`${where}: safe to send ${safe}`);
    // Each answered row says when its answer was made (the job's end), to the second, in UTC.
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(answeredAt ?? ''))
      wrong.push(`${where}: answered at ${answeredAt}`);
    if (verification === 'verified') {
      const key = email!.toLowerCase();
      seen.set(key, (seen.get(key) ?? 0) + 1);
      groups[group!]!++;
    } else if (verification !== 'duplicate') wrong.push(`${where}: ${verification}`);
  }
  expect(wrong.slice(0, 10)).toEqual([]);
  // Every unique address exactly once; filtering the sheet by group gives the step's counts.
  expect(seen.size).toBe(file.unique);
  expect([...seen.values()].every((n) => n === 1)).toBe(true);
  expect(groups).toEqual(out.counts);

  // Charged once per unique address; unknowns refunded at the job's end.
  const refundable = [...seen.keys()].filter((e) => REFUNDED_PREFIXES.has(prefixOf(e))).length;
  expect(run.charged).toBe(file.unique);
  expect(run.refunded).toBe(refundable);
  // The file was fetched without any credential of the app; the stash took the upload as Zapier's would.
  expect(files.downloads.every((h) => !('x-api-key' in h) && !('authorization' in h))).toBe(true);
  expect(files.refusals).toEqual([]);
  expectNoSecrets(out, [sb.apiKey, sb.webhookSecret]);
  console.log(
    `whole sheet, 50,000 rows: ${run.tasks} tasks, ${run.requests} service requests, ${run.charged} credits charged, ${run.refunded} refunded, ${run.wallMs} ms`,
  );
}, 120_000);

it('a job failing part way: the rows verified so far are written back, the rest marked; a rerun submits only the rest, a third run nothing', async () => {
  const file = makeSheetFile(3_000, 'fail');
  const side = sideFor();
  const url = files.host('failing.csv', file.csv);
  sb.faults.failJob(undefined, { afterRows: 1_000, error: 'mail server farm unreachable' });
  const first = await runWholeSheetZap(sb, side, url);
  expect(first.error).toBeUndefined();
  const out1 = first.output!;
  expect(out1).toMatchObject({ job_failed: true, complete: false, rows: 3_000 });
  const verified1 = out1.rows_verified as number;
  expect(verified1).toBeGreaterThanOrEqual(1_000);
  expect(verified1 + (out1.rows_not_verified as number)).toBe(file.unique);
  expect(out1.note).toMatch(/run this step again/);
  const marked = first.sheet!.slice(1).filter((r) => r[7] === 'not_verified');
  expect(marked).toHaveLength(out1.rows_not_verified as number);
  expect(
    marked.every((r) =>
      /^Not verified: the job stopped before this address \(mail server farm unreachable\)/.test(r[6]!),
    ),
  ).toBe(true);

  const jobsBefore = (out1.job_ids as string[]).length;
  const second = await runWholeSheetZap(sb, side, url);
  const out2 = second.output!;
  expect(out2).toMatchObject({ complete: true, rows_verified: file.unique, rows_not_verified: 0 });
  const ids = out2.job_ids as string[];
  expect(ids).toHaveLength(jobsBefore + 1);
  // The second job holds exactly the addresses the first one left without an answer.
  expect(sb.job(ids[ids.length - 1]!)!.total_emails).toBe(out1.rows_not_verified);
  expect(second.charged).toBe(out1.rows_not_verified);

  const third = await runWholeSheetZap(sb, side, url);
  expect(third.output).toMatchObject({ complete: true, rows_verified: file.unique, job_ids: ids });
  expect(third.output!.note).toMatch(/nothing was submitted again/);
  expect(third.charged).toBe(0);
  expect(third.sheet).toEqual(second.sheet);
  console.log(
    `failing job on 3,000 rows: first run ${verified1} verified, ${out1.rows_not_verified} marked, ${first.charged} charged, ${first.refunded} refunded; rerun charged ${second.charged}; third run charged ${third.charged}, ${third.requests} read requests`,
  );
}, 120_000);

it('a submission whose answer was lost is never repeated by a rerun: the step stops and says where to look', async () => {
  const file = makeSheetFile(200, 'lost');
  const side = sideFor();
  const table = readTable(file.csv);
  side.zcache[`evf-list:${listFingerprint(preflightEmails(table.emails).unique, '')}`] = JSON.stringify({
    job_ids: [],
    submitting_since: '2026-11-26T10:00:00.000Z',
  });
  const posts = () => sb.requests.filter((r) => r.method === 'POST').length;
  const before = posts();
  const run = await runWholeSheetZap(sb, side, files.host('lost.csv', file.csv));
  expect(run.error?.name).toBe('HaltedError');
  expect(run.error?.message).toMatch(/2026-11-26T10:00:00.000Z.*a job may exist/);
  expect(run.tasks).toBe(0);
  expect(posts()).toBe(before);
});

it('bad input is refused before anything is sent: no file, an unknown column, no valid address; the editor test submits nothing', async () => {
  const side = sideFor();
  const before = sb.requests.length;
  const noFile = await runStep(side, 'creates.verify_file_and_wait.operation.perform', {
    inputData: { file: 'just some text' },
  });
  expect(parseZapierError(noFile.error).message).toMatch(
    /^Table File: Map a file here.*Nothing was sent or charged/,
  );
  const url = files.host('cols.csv', 'Name,Mail\nAda,valid.ada@x.com\n');
  const badColumn = await runStep(side, 'creates.verify_file_and_wait.operation.perform', {
    inputData: { file: url, column: 'Email Address' },
  });
  expect(parseZapierError(badColumn.error).message).toMatch(
    /^Address Column: .*no column "Email Address".*A "Name", B "Mail"/,
  );
  const allMalformed = files.host('bad.csv', 'Email\nada@\nnot an address\n');
  const noneValid = await runStep(side, 'creates.verify_file_and_wait.operation.perform', {
    inputData: { file: allMalformed },
  });
  expect(parseZapierError(noneValid.error).message).toMatch(
    /^Table File: .*no valid email address.*All 2 given were malformed.*Nothing was sent or charged/,
  );
  const editorTest = await runStep(side, 'creates.verify_file_and_wait.operation.perform', {
    inputData: { file: url },
    meta: { isLoadingSample: true },
  });
  expect(editorTest.results).toMatchObject({
    note: expect.stringMatching(/nothing was submitted or charged/),
  });
  expect(editorTest.status).not.toBe('CALLBACK');
  expect(sb.requests.length).toBe(before);
});

it("live outputs: the sample's keys are in a live result, every live key has a labelled field of its type", async () => {
  const op = App.creates.verify_file_and_wait.operation as {
    sample: Record<string, unknown>;
    outputFields: { key: string; label?: string; type?: string; list?: boolean }[];
  };
  const flat = (value: Record<string, unknown>): Map<string, unknown> =>
    new Map(
      Object.entries(value).flatMap(([k, v]) =>
        v && typeof v === 'object' && !Array.isArray(v)
          ? Object.entries(v).map(([kk, vv]) => [`${k}__${kk}`, vv] as const)
          : [[k, v] as const],
      ),
    );
  const fields = new Map(op.outputFields.map((f) => [f.key, f]));
  const runs = await liveFileOutputs(sb, receiver, { api_key: sb.apiKey, webhook_secret: sb.webhookSecret });
  const problems: string[] = [];
  for (const { where, output } of runs) {
    const live = flat(output);
    for (const key of flat(op.sample).keys())
      if (!live.has(key)) problems.push(`${where}: sample key ${key} not live`);
    for (const [key, value] of live) {
      const field = fields.get(key);
      if (!field?.label) problems.push(`${where}: ${key} has no labelled field`);
      else if (!typeMatches(field as Parameters<typeof typeMatches>[0], value))
        problems.push(`${where}: ${key} is not ${field.type}`);
    }
  }
  expect(problems).toEqual([]);
  expect(runs[1]!.output).toMatchObject({ job_failed: true, complete: false });
});

it("the service's refusals are worded like every other step's, and a refused submission leaves nothing that blocks the next run", async () => {
  const side = sideFor();
  const url = files.host('refused.csv', 'Email\nvalid.refused@acme-corp.com\n');
  const perform = 'creates.verify_file_and_wait.operation.perform';
  const badKey = await runStep({ ...side, authData: { api_key: 'evf_not_a_real_key_000' } }, perform, {
    inputData: { file: url },
  });
  expect(badKey.error?.name).toBe('ExpiredAuthError');
  const broke = sb.addAccount({ id: 'acct_sheet_broke', plan: 'pro', credits: 0 });
  const noCredits = await runStep({ ...side, authData: { api_key: broke.apiKey } }, perform, {
    inputData: { file: url },
  });
  expect(parseZapierError(noCredits.error).message).toMatch(/credits/i);
  // The 402 charged nothing and left no "submitting" mark, so the next run submits normally.
  const key = `evf-list:${listFingerprint(['valid.refused@acme-corp.com'], '')}`;
  expect(JSON.parse(side.zcache[key] as string)).toEqual({ job_ids: [], job_sizes: [] });
  const again = await runStep(side, perform, { inputData: { file: url } });
  expect(again.status).toBe('CALLBACK');
});

it('a resume that cannot verify the message, or cannot download the file again, still returns every paid row and says what happened', async () => {
  const side = sideFor();
  const csv = 'Email,Name\nvalid.resume1@acme-corp.com,A\ncatchall.resume2@acme-corp.com,B\n';
  const url = files.host('resume.csv', csv);
  const method = 'creates.verify_file_and_wait.operation';
  const waiting = await runStep(side, `${method}.perform`, { inputData: { file: url } });
  expect(waiting.status).toBe('CALLBACK');
  const jobIds = waiting.results!.job_ids as string[];
  const rawRequest = await callbackFor(receiver, jobIds[0]!);
  // A signing secret that is not the account's (mistyped, or rotated since): the jobs are read with the key.
  const wrongSecret = {
    ...side,
    authData: { api_key: sb.apiKey, webhook_secret: 'whsec_not_the_accounts_secret_123' },
  };
  files.unhost('resume.csv');
  const resumed = await runStep(wrongSecret, `${method}.performResume`, {
    inputData: { file: url },
    outputData: waiting.results,
    rawRequest,
  });
  expect(resumed.error).toBeUndefined();
  expect(resumed.results).toMatchObject({ complete: true, rows_verified: 2 });
  expect(resumed.results!.note).toMatch(/could not be verified.*read with the API key/);
  expect(resumed.results!.note).toMatch(/could not be read again.*verified addresses only/);
  const stored = files.stashed.get(resumed.results!.results_file as string)!;
  const rows = stored.bytes.toString('utf8').trim().split('\r\n');
  expect(rows[0]).toBe('Email,Category,Group,Safe to Send,Reason,Verification,Verified At (UTC)');
  expect(
    rows
      .slice(1)
      .map((r) => r.split(',')[0])
      .sort(),
  ).toEqual(['catchall.resume2@acme-corp.com', 'valid.resume1@acme-corp.com']);
});

it('a rerun while the earlier job still runs submits nothing and says to run it again once that job has finished', async () => {
  // A sandbox in real time, so the job is still queued when the step runs a second time.
  const slow = await startSandbox({ port: 0, timeScale: 1, allowInsecureWebhooks: true });
  const before = process.env.EVF_BASE_URL;
  process.env.EVF_BASE_URL = slow.baseUrl;
  try {
    const side: ZapierSide = { files, receiver, authData: { api_key: slow.apiKey }, zcache: {} };
    const url = files.host('running.csv', 'Email\nvalid.running@acme-corp.com\n');
    const perform = 'creates.verify_file_and_wait.operation.perform';
    expect((await runStep(side, perform, { inputData: { file: url } })).status).toBe('CALLBACK');
    const posts = slow.requests.filter((r) => r.method === 'POST').length;
    const rerun = await runStep(side, perform, { inputData: { file: url } });
    expect(rerun.error?.name).toBe('HaltedError');
    expect(rerun.error?.message).toMatch(
      /already submitted by an earlier run \(job \S+, (queued|processing)/,
    );
    expect(slow.requests.filter((r) => r.method === 'POST').length).toBe(posts);
  } finally {
    process.env.EVF_BASE_URL = before;
    await slow.close();
  }
});

it('a submission the service took but whose answer was lost: the step fails saying so, and a rerun stops instead of paying again', async () => {
  const side = sideFor();
  const url = files.host(
    'dropped.csv',
    'Email\nvalid.dropped1@acme-corp.com\nvalid.dropped2@acme-corp.com\n',
  );
  const perform = 'creates.verify_file_and_wait.operation.perform';
  const charged = () => sb.ledger(sb.apiKey).charged;
  const before = charged();
  // The service creates the job and charges it, then the connection drops before any answer.
  sb.faults.failNext({ path: '/v1/verify/bulk', method: 'POST', drop: 'before-response', when: 'after' });
  const first = await runStep(side, perform, { inputData: { file: url } });
  expect(first.error).toBeDefined();
  expect(charged() - before).toBe(2);
  const posts = sb.requests.filter((r) => r.method === 'POST').length;
  const rerun = await runStep(side, perform, { inputData: { file: url } });
  expect(rerun.error?.name).toBe('HaltedError');
  expect(rerun.error?.message).toMatch(/its answer was lost, so a job may exist/);
  expect(sb.requests.filter((r) => r.method === 'POST').length).toBe(posts);
  expect(charged() - before).toBe(2);
});

it('a file edited while its job runs: the rows added since are marked as never sent, and the note says a rerun is a new list', async () => {
  const side = sideFor();
  const url = files.host('edited.csv', 'Email\nvalid.edit1@acme-corp.com\n');
  const method = 'creates.verify_file_and_wait.operation';
  const waiting = await runStep(side, `${method}.perform`, { inputData: { file: url } });
  const rawRequest = await callbackFor(receiver, (waiting.results!.job_ids as string[])[0]!);
  files.host('edited.csv', 'Email\nvalid.edit1@acme-corp.com\nvalid.edit2@acme-corp.com\n');
  const resumed = await runStep(side, `${method}.performResume`, {
    inputData: { file: url },
    outputData: waiting.results,
    rawRequest,
  });
  expect(resumed.results).toMatchObject({ rows: 2, rows_verified: 1, rows_not_verified: 1, complete: false });
  expect(resumed.results!.note).toMatch(/file changed after it was submitted/);
  const text = files.stashed.get(resumed.results!.results_file as string)!.bytes.toString('utf8');
  expect(text).toMatch(
    /valid\.edit2@acme-corp\.com,,,,Not verified: the address was added to the file after it was submitted,not_verified/,
  );
});

it('an XLSX file (written by SheetJS) goes through the same Zap: its first sheet, every row written back into the workbook', async () => {
  const side = sideFor();
  const xlsx = readFileSync(join(__dirname, '../../tables/test/fixtures/leads-sheetjs.xlsx'));
  const run = await runWholeSheetZap(sb, side, files.host('leads.xlsx', xlsx));
  expect(run.error).toBeUndefined();
  expect(run.output).toMatchObject({
    rows: 6,
    rows_verified: 2,
    rows_duplicate: 1,
    rows_skipped: 3,
    complete: true,
    results_file_name: 'leads-verified.xlsx',
  });
  expect(run.sheet!.map((r) => [r[1], r[7]])).toEqual([
    ['Email', 'Verification'],
    ['ada@acme-corp.com', 'verified'],
    ['bob@acme-corp.com', 'verified'],
    ['', 'skipped'],
    // The client's syntax rule wants a non-ASCII domain in its xn-- form: reported, not sent, not charged.
    ['zoe@exämple.com', 'skipped'],
    ['', 'skipped'],
    ['ADA@acme-corp.com', 'duplicate'],
  ]);
  expect(run.sheet![4]![6]).toMatch(/^Not sent \(not charged\): malformed address, .*xn--/);
});
