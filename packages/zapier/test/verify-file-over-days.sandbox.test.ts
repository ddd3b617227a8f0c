/**
 * Verify File and Wait on a small plan: a file larger than today's allowance sends what fits,
 * writes the rest back as not sent yet with the time it can go, and the next run sends only those;
 * every address is charged once however many times the step runs. Starter (10,000 a day) against the
 * sandbox's spec-shaped account, its clock moved a day between runs.
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { startRawReceiver, type RawReceiver } from '../../../test/support/webhook-receiver';
import { useBaseUrl } from './helpers';
import { startZapierFiles, type ZapierFiles } from './support/zapier-files';
import {
  callbackFor,
  makeSheetFile,
  runStep,
  runWholeSheetZap,
  type ZapierSide,
} from './support/whole-sheet-flow';

let sb: Sandbox;
let receiver: RawReceiver;
let files: ZapierFiles;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 100_000, allowInsecureWebhooks: true });
  receiver = await startRawReceiver(() => 200, '/hooks/catch/over-days');
  files = await startZapierFiles();
});
afterAll(async () => {
  await files?.close();
  await receiver?.close();
  await sb?.close();
});
useBaseUrl(() => sb.baseUrl);

it('Starter, a 12,000-row file: 10,000 on day 1, the rest marked with when; a rerun that day sends nothing; day 2 finishes', async () => {
  const account = sb.addAccount({ plan: 'starter', credits: 100_000 });
  const side: ZapierSide = { files, receiver, authData: { api_key: account.apiKey }, zcache: {} };
  const file = makeSheetFile(12_000, 'days');
  const url = files.host('days.csv', file.csv);
  const charged = () => sb.ledger(account.accountId).charged;

  const day1 = await runWholeSheetZap(sb, side, url);
  expect(day1.error).toBeUndefined();
  expect(day1.output).toMatchObject({
    complete: false,
    rows_verified: 10_000,
    rows_not_verified: file.unique - 10_000,
  });
  const open = day1.sheet!.slice(1).filter((r) => r[7] === 'not_verified');
  expect(open).toHaveLength(file.unique - 10_000);
  expect(
    open.every((r) =>
      /not sent yet: over today's allowance, runs again after \d{4}-\d\d-\d\d \d\d:\d\d UTC/.test(r[6]!),
    ),
  ).toBe(true);
  expect(charged()).toBe(10_000);

  // The same day: the account's figures (credits net of refunds) may say some fit; the service's 429
  // decides, nothing is charged, and the words say when to run again.
  const again = await runWholeSheetZap(sb, side, url);
  if (again.error) {
    expect(again.error.message).toMatch(
      /Nothing was sent or charged.*Run this step again after \d{4}-\d\d-\d\d \d\d:\d\d UTC/,
    );
  } else {
    expect(again.output).toMatchObject({ complete: false, rows_verified: 10_000 });
    expect(again.output!.note).toMatch(/Nothing was sent in this run/);
  }
  expect(charged()).toBe(10_000);

  sb.advanceTime(24 * 3600 * 1000);
  const day2 = await runWholeSheetZap(sb, side, url);
  expect(day2.error).toBeUndefined();
  expect(day2.output).toMatchObject({ complete: true, rows_verified: file.unique, rows_not_verified: 0 });
  expect(charged()).toBe(file.unique);

  const replay = await runWholeSheetZap(sb, side, url);
  expect(replay.output).toMatchObject({ complete: true });
  expect(replay.sheet).toEqual(day2.sheet);
  expect(charged()).toBe(file.unique);
}, 60_000);

it('the file gone before the resume: the results list the verified rows, and do not claim the file is complete', async () => {
  const account = sb.addAccount({ plan: 'starter', credits: 100_000 });
  const side: ZapierSide = { files, receiver, authData: { api_key: account.apiKey }, zcache: {} };
  const file = makeSheetFile(12_000, 'gone');
  const url = files.host('gone.csv', file.csv);
  const method = 'creates.verify_file_and_wait.operation';
  const waiting = await runStep(side, `${method}.perform`, { inputData: { file: url } });
  expect(waiting.status).toBe('CALLBACK');
  const jobIds = waiting.results!.job_ids as string[];
  const rawRequest = await callbackFor(receiver, jobIds[0]!);
  // The file host fails (or is too slow) while the step resumes: it cannot be read again.
  files.unhost('gone.csv');
  const resumed = await runStep(side, `${method}.performResume`, {
    inputData: { file: url },
    outputData: waiting.results,
    rawRequest,
  });
  expect(resumed.error).toBeUndefined();
  expect(resumed.results).toMatchObject({
    complete: false,
    rows_verified: 10_000,
    rows_not_verified: file.unique - 10_000,
  });
  expect(resumed.results!.note).toMatch(
    /could not be read again.*\d[\d,]* address\(es\) of the file were left for a later run \(not sent yet: over today's allowance, runs again after \d{4}-\d\d-\d\d \d\d:\d\d UTC.*run this step again to get every row/,
  );
  expect(sb.ledger(account.accountId).charged).toBe(10_000);
}, 60_000);

it('the same rows uploaded again under another name and List Name are the same list: nothing charged again', async () => {
  const account = sb.addAccount({ plan: 'pro', credits: 100_000 });
  const side: ZapierSide = { files, receiver, authData: { api_key: account.apiKey }, zcache: {} };
  const file = makeSheetFile(2_000, 'renamed');
  const first = await runWholeSheetZap(sb, side, files.host('leads-march.csv', file.csv), {
    name: 'leads-march',
  });
  expect(first.output).toMatchObject({ complete: true });
  expect(first.charged).toBe(file.unique);
  const again = await runWholeSheetZap(sb, side, files.host('leads-march (1).csv', file.csv), {
    name: 'leads-march (1)',
  });
  expect(again.error).toBeUndefined();
  expect(again.output).toMatchObject({ complete: true, rows_verified: file.unique });
  expect(again.output!.note).toMatch(/nothing was submitted again/);
  expect(again.charged).toBe(0);
  expect(again.sheet!.slice(1)).toEqual(first.sheet!.slice(1));
}, 60_000);
