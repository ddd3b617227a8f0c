/**
 * One table read or written in its own process, so its memory is measured alone: `ours` or `sheetjs`
 * on an XLSX, `ours` or `csv-parse` on a CSV, or `bomb` (ours on a zip whose directory lies about its
 * sizes); `write-ours` (readTable, then writeBackTable with an answer for every address: the same file
 * back with the result columns) or `write-sheetjs` (XLSX.read, the same columns added with
 * sheet_add_aoa, XLSX.write). A write's time is the write alone (the file is read before the clock
 * starts); its peak RSS is the whole process's. Prints one JSON line:
 * { ms, peakRssMb, heapGrowthMb, rows, refused?, outBytes? }.
 */
import { existsSync, readFileSync } from 'node:fs';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import * as XLSX from '@e965/xlsx';
import { parse } from 'csv-parse/sync';
import { preflightEmails, RESULT_COLUMNS, type ResultRow } from '@evf/client';
import { ANSWERED_AT_COLUMN, readTable, writeBackTable } from '@evf/tables';

const [variant, file] = process.argv.slice(2) as [string, string];
const bytes = new Uint8Array(readFileSync(file));
const answer = (email: string): ResultRow => ({
  email,
  status: 'valid',
  valid: true,
  score: 0.9,
  reason: 'checked',
  details: { primary_label: 'valid', tags: [], label_reasons: [] },
});
// What a write starts from, made before the clock starts.
let prepared: (() => { rows: number; out: Uint8Array }) | undefined;
if (variant === 'write-ours') {
  const table = readTable(bytes, { fileName: file, inflateRaw: inflateRawSync });
  const preflight = preflightEmails(table.emails);
  const answers = preflight.unique.map(answer);
  prepared = () => {
    const back = writeBackTable(table, preflight, answers, {
      answeredAt: '2026-11-28T12:00:00Z',
      deflateRaw: deflateRawSync,
    });
    return { rows: back.counts.rows, out: back.bytes };
  };
} else if (variant === 'write-sheetjs') {
  const wb = XLSX.read(bytes);
  const ws = wb.Sheets[wb.SheetNames[0]!]!;
  const range = XLSX.utils.decode_range(ws['!ref']!);
  const at = new Date('2026-11-28T12:00:00Z');
  prepared = () => {
    const added: unknown[][] = [[...RESULT_COLUMNS, ANSWERED_AT_COLUMN]];
    for (let r = 1; r <= range.e.r; r++)
      added.push(['Valid', 'safe_to_send', true, 'checked', 'verified', at]);
    XLSX.utils.sheet_add_aoa(ws, added, { origin: { r: 0, c: range.e.c + 1 }, cellDates: true });
    const out = XLSX.write(wb, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
    return { rows: range.e.r, out: new Uint8Array(out) };
  };
}
global.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const started = process.hrtime.bigint();
let rows = 0;
let outBytes: number | undefined;
let refused: string | undefined;
let kept: unknown;
try {
  if (prepared) {
    const written = prepared();
    rows = written.rows;
    outBytes = written.out.length;
    kept = written;
  } else if (variant === 'sheetjs') {
    const wb = XLSX.read(bytes);
    const data = XLSX.utils.sheet_to_json<string[]>(wb.Sheets[wb.SheetNames[0]!]!, {
      header: 1,
      raw: false,
      defval: '',
    });
    rows = data.length - 1;
    kept = data;
  } else if (variant === 'csv-parse') {
    const data = parse(Buffer.from(bytes), { bom: true, relax_column_count: true }) as string[][];
    rows = data.length - 1;
    kept = data;
  } else {
    const table = readTable(bytes, { fileName: file, inflateRaw: inflateRawSync });
    rows = table.rows.length;
    kept = table;
  }
} catch (error) {
  refused = (error as Error).message.slice(0, 120);
}
const ms = Number(process.hrtime.bigint() - started) / 1e6;
const heapGrowthMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
void kept;
// VmHWM is this process's own peak; getrusage's maxRSS can carry the parent's across exec on Linux.
const status = existsSync('/proc/self/status') ? readFileSync('/proc/self/status', 'utf8') : '';
const hwmKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? process.resourceUsage().maxRSS);
console.log(JSON.stringify({ ms, peakRssMb: hwmKb / 1024, heapGrowthMb, rows, refused, outBytes }));
