/**
 * Verify File and Wait writes the results in the file's own format: a workbook comes back as the same
 * workbook (`.xlsx`, every sheet kept), a tab file as `.tsv` with its line breaks; the header is found
 * below a title (or named by Header Row); a trailing empty line is no row; formulas without a saved
 * value are said in the note.
 */
import * as XLSX from '@e965/xlsx';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { startRawReceiver, type RawReceiver } from '../../../test/support/webhook-receiver';
import { useBaseUrl } from './helpers';
import { startZapierFiles, type ZapierFiles } from './support/zapier-files';
import { runWholeSheetZap, type ZapierSide } from './support/whole-sheet-flow';

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
  receiver = await startRawReceiver(() => 200, '/hooks/catch/file-format');
  files = await startZapierFiles();
});
afterAll(async () => {
  await files?.close();
  await receiver?.close();
  await sb?.close();
});
useBaseUrl(() => sb.baseUrl);

function workbook(): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Cover'], ['kept']]), 'Cover');
  const ws = XLSX.utils.aoa_to_sheet([
    ['May fair leads'],
    [],
    ['Name', 'Email', 'Total'],
    ['Ada', 'valid.ada@acme-corp.com', 1],
    ['Bob', 'valid.bob@acme-corp.com', 2],
  ]);
  // A formula saved without its value, as openpyxl writes every formula.
  ws.C5 = { t: 'n', f: 'C4*2' };
  XLSX.utils.book_append_sheet(wb, ws, 'Leads');
  return XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
}

it('an XLSX comes back as the same workbook, its title kept, the header found under it, and unread cells said', async () => {
  const run = await runWholeSheetZap(sb, sideFor(), files.host('fair.xlsx', workbook()), { sheet: 'Leads' });
  expect(run.error).toBeUndefined();
  expect(run.output).toMatchObject({ rows: 2, rows_verified: 2, results_file_name: 'fair-verified.xlsx' });
  expect(run.output!.note).toMatch(
    /1 cell\(s\) of the sheet could not be read: C5\. Each holds a formula saved without its value/,
  );
  const url = String(run.output!.results_file);
  const back = XLSX.read(Buffer.from(await (await fetch(url)).arrayBuffer()), { type: 'buffer' });
  expect(back.SheetNames).toEqual(['Cover', 'Leads']);
  expect(XLSX.utils.sheet_to_json(back.Sheets.Cover!, { header: 1 })).toEqual([['Cover'], ['kept']]);
  const leads = XLSX.utils.sheet_to_json<unknown[]>(back.Sheets.Leads!, { header: 1, defval: '' });
  expect(leads[0]![0]).toBe('May fair leads');
  expect(leads[2]!.slice(0, 8)).toEqual([
    'Name',
    'Email',
    'Total',
    'Category',
    'Group',
    'Safe to Send',
    'Reason',
    'Verification',
  ]);
  expect(leads[3]!.slice(7, 8)).toEqual(['verified']);
});

it('Header Row names the header row; a tab file comes back as .tsv with its own line breaks, no trailing row', async () => {
  const tsv = 'Export\t\n\nNote\there\nName\tEmail\nAda\tvalid.tab@acme-corp.com\n\n';
  const run = await runWholeSheetZap(sb, sideFor(), files.host('list.tsv', Buffer.from(tsv)), {
    header_row: '4',
  });
  expect(run.error).toBeUndefined();
  expect(run.output).toMatchObject({
    rows: 1,
    rows_verified: 1,
    rows_skipped: 0,
    results_file_name: 'list-verified.tsv',
  });
  const text = await (await fetch(String(run.output!.results_file))).text();
  expect(text.replace(/^\uFEFF/, '').startsWith('Export\t\n\nNote\there\nName\tEmail\tCategory')).toBe(true);
  expect(text).not.toMatch(/\r/);
});
