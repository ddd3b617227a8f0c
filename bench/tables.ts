/**
 * 7. Reading and writing back a user's table: the reader (@evf/tables) beside SheetJS (@e965/xlsx, what
 * n8n ships) on a 50,000-row XLSX and beside csv-parse on the same rows as CSV, each read in its own
 * process in the same run; the writer (the same workbook back with the result columns) beside SheetJS
 * adding the same columns and writing the workbook, in the same run, each in its own process; and a zip that says its sheet is 100 bytes but inflates to 300 MiB, which the reader must
 * refuse within its unpacking cap (64 MiB) rather than after inflating it all; and the densest sheet
 * that fits in that cap, refused at the cell cap.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import * as XLSX from '@e965/xlsx';
import { runChild } from './lib/child';
import { fmt, fmtSummary, summarize, type Row } from './lib/stats';

interface ChildResult {
  ms: number;
  peakRssMb: number;
  heapGrowthMb: number;
  rows: number;
  refused?: string;
  outBytes?: number;
}

function sheetRows(n: number): (string | number | Date)[][] {
  const rows: (string | number | Date)[][] = [['Email', 'Name', 'Signed Up', 'Zip', 'Phone', 'Score']];
  for (let i = 0; i < n; i++)
    rows.push([
      `user${i}@domain${i % 997}.com`,
      `Name ${i}`,
      new Date(Date.UTC(2020, 0, 1 + (i % 1500))),
      String(i % 100000).padStart(5, '0'),
      447900000000 + i,
      (i % 1000) / 10,
    ]);
  return rows;
}

/** A workbook of one sheet; `declared` is the sheet's size its zip directory gives (its own by default). */
function workbookZip(sheet: Buffer, declared = 0): Buffer {
  const files: Array<[string, Buffer, number]> = [
    [
      'xl/workbook.xml',
      Buffer.from('<workbook><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>'),
      0,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      Buffer.from('<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>'),
      0,
    ],
    ['xl/worksheets/sheet1.xml', sheet, declared],
  ];
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, raw, declared] of files) {
    const data = deflateRawSync(raw, { level: 9 });
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(declared || raw.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(declared || raw.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

export async function benchTables(runs: number, log: (s: string) => void): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'evf-tables-bench-'));
  try {
    const size = 50_000;
    const ws = XLSX.utils.aoa_to_sheet(sheetRows(size), { cellDates: false });
    const wb = XLSX.utils.book_new();
    XLSX.utils.book_append_sheet(wb, ws, 'Leads');
    const xlsx = join(dir, 'leads.xlsx');
    const csv = join(dir, 'leads.csv');
    XLSX.writeFile(wb, xlsx, { bookSST: true, compression: true });
    writeFileSync(csv, XLSX.utils.sheet_to_csv(ws));
    const bomb = join(dir, 'bomb.xlsx');
    // 300 MiB of spaces that the zip directory says is 100 bytes.
    writeFileSync(bomb, workbookZip(Buffer.alloc(300 * 2 ** 20, 0x20), 100));
    // The densest sheet within the unpacking cap: 63 MiB of one-digit cells, 10 a row (4.1 million).
    const row = `<row>${'<c><v>1</v></c>'.repeat(10)}</row>`;
    const dense = join(dir, 'dense.xlsx');
    writeFileSync(
      dense,
      workbookZip(
        Buffer.from(
          `<worksheet><sheetData>${row.repeat(Math.floor((63 * 2 ** 20) / row.length))}</sheetData></worksheet>`,
        ),
      ),
    );
    const results: Record<string, ChildResult[]> = {
      ours: [],
      sheetjs: [],
      oursCsv: [],
      csvParse: [],
      bomb: [],
      dense: [],
      writeOurs: [],
      writeSheetjs: [],
      writeOursCsv: [],
    };
    for (let r = 0; r < runs; r++) {
      results.ours!.push(runChild<ChildResult>('tables-child.ts', ['ours', xlsx], { exposeGc: true }));
      results.sheetjs!.push(runChild<ChildResult>('tables-child.ts', ['sheetjs', xlsx], { exposeGc: true }));
      results.oursCsv!.push(runChild<ChildResult>('tables-child.ts', ['ours', csv], { exposeGc: true }));
      results.csvParse!.push(
        runChild<ChildResult>('tables-child.ts', ['csv-parse', csv], { exposeGc: true }),
      );
      results.bomb!.push(runChild<ChildResult>('tables-child.ts', ['ours', bomb], { exposeGc: true }));
      results.dense!.push(runChild<ChildResult>('tables-child.ts', ['ours', dense], { exposeGc: true }));
      results.writeOurs!.push(
        runChild<ChildResult>('tables-child.ts', ['write-ours', xlsx], { exposeGc: true }),
      );
      results.writeSheetjs!.push(
        runChild<ChildResult>('tables-child.ts', ['write-sheetjs', xlsx], { exposeGc: true }),
      );
      results.writeOursCsv!.push(
        runChild<ChildResult>('tables-child.ts', ['write-ours', csv], { exposeGc: true }),
      );
    }
    const time = (v: string) => summarize(results[v]!.map((x) => x.ms));
    const rss = (v: string) => summarize(results[v]!.map((x) => x.peakRssMb));
    const same =
      results.ours![0]!.rows === size &&
      results.sheetjs![0]!.rows === size &&
      results.oursCsv![0]!.rows === size &&
      results.csvParse![0]!.rows === size;
    log(
      `table read 50k XLSX: ours ${fmtSummary(time('ours'), ' ms')}, SheetJS ${fmtSummary(time('sheetjs'), ' ms')}; CSV: ours ${fmtSummary(time('oursCsv'), ' ms')}, csv-parse ${fmtSummary(time('csvParse'), ' ms')}; all ${size} rows: ${same}`,
    );
    const mb = (v: string) => ((results[v]![0]!.outBytes ?? 0) / 2 ** 20).toFixed(1);
    log(
      `table write-back 50k XLSX: ours ${fmtSummary(time('writeOurs'), ' ms')} (${mb('writeOurs')} MiB file), SheetJS ${fmtSummary(time('writeSheetjs'), ' ms')} (${mb('writeSheetjs')} MiB file); CSV: ours ${fmtSummary(time('writeOursCsv'), ' ms')}`,
    );
    log(`lying zip (100 B declared, 300 MiB inside): ${results.bomb![0]!.refused ?? 'NOT refused'}`);
    log(`densest sheet in the cap: ${results.dense![0]!.refused ?? 'NOT refused'}`);
    const pair = (
      measure: string,
      a: string,
      b: string,
      name: string,
      f: (v: string) => ReturnType<typeof summarize>,
      digits: number,
      target: string,
      met: boolean | null,
    ): Row => ({
      benchmark:
        a === 'writeOurs'
          ? '7. Table write-back 50k XLSX'
          : `7. Table read 50k ${a === 'ours' ? 'XLSX' : 'CSV'}`,
      measure,
      ours: fmtSummary(f(a), '', digits),
      baseline: `${fmtSummary(f(b), '', digits)} ${name}`,
      ratio: `${(f(b).median / f(a).median).toFixed(1)}x`,
      target,
      met,
    });
    return [
      pair(
        'time ms, median (min–max)',
        'ours',
        'sheetjs',
        'SheetJS',
        time,
        0,
        '<= SheetJS',
        time('ours').median <= time('sheetjs').median,
      ),
      pair(
        'peak RSS MiB',
        'ours',
        'sheetjs',
        'SheetJS',
        rss,
        0,
        '<= SheetJS',
        rss('ours').median <= rss('sheetjs').median,
      ),
      pair('time ms, median (min–max)', 'oursCsv', 'csvParse', 'csv-parse', time, 0, '–', null),
      pair('peak RSS MiB', 'oursCsv', 'csvParse', 'csv-parse', rss, 0, '–', null),
      pair(
        'time ms, median (min–max)',
        'writeOurs',
        'writeSheetjs',
        'SheetJS',
        time,
        0,
        '<= SheetJS',
        time('writeOurs').median <= time('writeSheetjs').median,
      ),
      pair(
        'peak RSS MiB (read and write)',
        'writeOurs',
        'writeSheetjs',
        'SheetJS',
        rss,
        0,
        '<= SheetJS',
        rss('writeOurs').median <= rss('writeSheetjs').median,
      ),
      {
        benchmark: '7. Table write-back 50k CSV',
        measure: 'time ms, median (min–max); peak RSS MiB',
        ours: `${fmtSummary(time('writeOursCsv'), '', 0)}; ${fmt(rss('writeOursCsv').median, 0)} MiB`,
        baseline: '–',
        ratio: '–',
        target: '–',
        met: null,
      },
      {
        benchmark: '7. Lying zip (300 MiB inside)',
        measure: 'peak RSS MiB until refused; time ms',
        ours: `${fmt(rss('bomb').median, 0)} MiB; ${fmt(time('bomb').median, 0)} ms`,
        baseline: 'cap 64 MiB unpacked',
        ratio: '–',
        target: 'refused, peak < 400 MiB',
        met: results.bomb!.every((b) => b.refused !== undefined) && rss('bomb').median < 400,
      },
      {
        benchmark: '7. Densest sheet in the cap (0.3 MB)',
        measure: 'peak RSS MiB until refused; time ms',
        ours: `${fmt(rss('dense').median, 0)} MiB; ${fmt(time('dense').median, 0)} ms`,
        baseline: 'cap 3,000,000 cells',
        ratio: '–',
        target: 'refused, peak < 400 MiB',
        met: results.dense!.every((b) => b.refused !== undefined) && rss('dense').median < 400,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
