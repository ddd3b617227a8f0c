/**
 * One table read in its own process, so its memory is measured alone: `ours` or `sheetjs` on an XLSX,
 * `ours` or `csv-parse` on a CSV, or `bomb` (ours on a zip whose directory lies about its sizes).
 * Prints one JSON line: { ms, peakRssMb, heapGrowthMb, rows, refused? }.
 */
import { existsSync, readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import * as XLSX from '@e965/xlsx';
import { parse } from 'csv-parse/sync';
import { readTable } from '@evf/tables';

const [variant, file] = process.argv.slice(2) as [string, string];
const bytes = new Uint8Array(readFileSync(file));
global.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
const started = process.hrtime.bigint();
let rows = 0;
let refused: string | undefined;
let kept: unknown;
try {
  if (variant === 'sheetjs') {
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
console.log(JSON.stringify({ ms, peakRssMb: hwmKb / 1024, heapGrowthMb, rows, refused }));
