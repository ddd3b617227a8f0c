/**
 * The Sheet input of Verify File and Wait: an XLSX workbook (openpyxl's, with a hidden first tab) is
 * read from its first visible sheet by default, from the sheet named or numbered otherwise, and an
 * unknown sheet is refused naming the workbook's sheets before anything is sent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { startRawReceiver, type RawReceiver } from '../../../test/support/webhook-receiver';
import { parseZapierError, useBaseUrl } from './helpers';
import { startZapierFiles, type ZapierFiles } from './support/zapier-files';
import { runStep, runWholeSheetZap, type ZapierSide } from './support/whole-sheet-flow';

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
  sb = await startSandbox({ port: 0, timeScale: 0.001, allowInsecureWebhooks: true });
  receiver = await startRawReceiver(() => 200, '/hooks/catch/sheet-choice');
  files = await startZapierFiles();
});
afterAll(async () => {
  await files?.close();
  await receiver?.close();
  await sb?.close();
});
useBaseUrl(() => sb.baseUrl);

const workbook = readFileSync(join(__dirname, '../../tables/test/fixtures/tables/openpyxl.xlsx'));

it('reads the first visible sheet by default, not the hidden first tab', async () => {
  const run = await runWholeSheetZap(sb, sideFor(), files.host('book-default.xlsx', workbook));
  expect(run.error).toBeUndefined();
  expect(run.sheet!.map((r) => r[0])).toContain('ada@example.com');
  expect(run.sheet!.map((r) => r[0])).not.toContain('old@example.com');
});

it.each(['Archive', 'archive', '1'])('reads the sheet given as "%s"', async (sheet) => {
  const run = await runWholeSheetZap(sb, sideFor(), files.host(`book-${sheet}.xlsx`, workbook), { sheet });
  expect(run.error).toBeUndefined();
  expect(run.output).toMatchObject({ rows: 1, rows_verified: 1, complete: true });
  expect(run.sheet!.slice(1).map((r) => r[0])).toEqual(['old@example.com']);
});

it('refuses a sheet the workbook does not have, naming its sheets, before anything is sent', async () => {
  const before = sb.requests.length;
  const step = await runStep(sideFor(), 'creates.verify_file_and_wait.operation.perform', {
    inputData: { file: files.host('book-missing.xlsx', workbook), sheet: 'Leads 2024' },
  });
  expect(parseZapierError(step.error).message).toMatch(
    /no sheet "Leads 2024".*1 "Archive" \(hidden\), 2 "Leads", 3 "Notes"/,
  );
  expect(sb.requests.length).toBe(before);
});
