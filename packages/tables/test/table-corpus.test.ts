/**
 * The table corpus (test/fixtures/tables, made by scripts/make-table-corpus.py with LibreOffice,
 * openpyxl, xlsxwriter and SheetJS) read by the client and by two independent readers, SheetJS
 * (@e965/xlsx) and csv-parse, and written back. Where the readers disagree, the difference is one
 * listed in src/ORACLES.md; any other fails here.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import * as XLSX from '@e965/xlsx';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { preflightEmails, RESULT_COLUMNS, type ResultRow } from '@evf/client';
import {
  ANSWERED_AT_COLUMN,
  parseDelimited,
  readTable,
  writeBackTable,
  writeDelimited,
  type Delimiter,
  type TableList,
} from '../src/index';
import { decodeText } from '../src/encoding';
import { readXlsx } from '../src/xlsx';

const DIR = join(__dirname, 'fixtures', 'tables');
const bytesOf = (name: string): Uint8Array => new Uint8Array(readFileSync(join(DIR, name)));
const csvRows = (text: string, delimiter = ','): string[][] =>
  parse(text, { delimiter, bom: true, relax_column_count: true, relax_quotes: true }) as string[][];
/** What LibreOffice shows for a workbook's sheet: its own CSV export, cells as shown. */
const shown = (name: string): string[][] => csvRows(readFileSync(join(DIR, name), 'utf8'));

const XLSX_FILES = readdirSync(DIR).filter((f) => f.endsWith('.xlsx'));
const TEXT_FILES: Record<
  string,
  { encoding: string; bom: boolean; guessed: boolean; delimiter: Delimiter; sepLine?: boolean }
> = {
  'utf8.csv': { encoding: 'utf-8', bom: false, guessed: true, delimiter: ',' },
  'utf8-bom.csv': { encoding: 'utf-8', bom: true, guessed: false, delimiter: ',' },
  'utf16le-bom.txt': { encoding: 'utf-16le', bom: true, guessed: false, delimiter: '\t' },
  'utf16le-no-bom.csv': { encoding: 'utf-16le', bom: false, guessed: true, delimiter: ',' },
  'utf16be-bom.csv': { encoding: 'utf-16be', bom: true, guessed: false, delimiter: ',' },
  'windows-1252.csv': { encoding: 'windows-1252', bom: false, guessed: true, delimiter: ',' },
  'windows-1252-semicolon-sep.csv': {
    encoding: 'windows-1252',
    bom: false,
    guessed: true,
    delimiter: ';',
    sepLine: true,
  },
  'tab.tsv': { encoding: 'utf-8', bom: false, guessed: true, delimiter: '\t' },
  'google-sheets.csv': { encoding: 'utf-8', bom: false, guessed: true, delimiter: ',' },
  'libreoffice-semicolon-1252.csv': { encoding: 'windows-1252', bom: false, guessed: true, delimiter: ';' },
  'libreoffice-unicode.txt': { encoding: 'utf-16le', bom: true, guessed: false, delimiter: '\t' },
};

/** Disagreements with SheetJS, each a row of ORACLES.md: file → "row,column" → why. */
const SHEETJS_DIFFERS: Record<string, Record<string, string>> = {
  // SheetJS shows General numbers to 11 significant digits; the cell holds 447912345678.
  ...Object.fromEntries(
    ['libreoffice.xlsx', 'openpyxl.xlsx', 'sheetjs.xlsx', 'xlsxwriter.xlsx', 'xlsxwriter-inline.xlsx'].map(
      (f) => [f, { '2,7': 'general', '4,7': 'general' }],
    ),
  ),
  // SheetJS skips the empty shared string <si/>, so every later string shifts by one.
  'crafted-quotes-cdata.xlsx': { '3,1': 'si', '3,2': 'si' },
};

function sheetjsRows(bytes: Uint8Array): string[][] {
  const wb = XLSX.read(bytes);
  const first = Math.max(0, wb.Workbook?.Sheets?.findIndex((s) => !s.Hidden) ?? 0);
  return XLSX.utils.sheet_to_json<string[]>(wb.Sheets[wb.SheetNames[first]!]!, {
    header: 1,
    raw: false,
    defval: '',
    blankrows: true,
  });
}

const pad = (rows: string[][], width: number): string[][] =>
  rows.map((r) => [...r, ...new Array<string>(Math.max(0, width - r.length)).fill('')]);

describe('the XLSX corpus: each cell as the program that made it shows it', () => {
  it.each(XLSX_FILES)('%s reads as LibreOffice shows it', (name) => {
    const { rows, sheet } = readXlsx(bytesOf(name), inflateRawSync);
    const expected = shown(name.replace(/\.xlsx$/, '.shown.csv'));
    const width = Math.max(...expected.map((r) => r.length), ...rows.map((r) => r.length));
    expect(pad(rows, width)).toEqual(pad(expected, width));
    expect(sheet.hidden).toBe(false);
  });

  it.each(XLSX_FILES)('%s: SheetJS agrees, but for the differences ORACLES.md lists', (name) => {
    const bytes = bytesOf(name);
    const ours = readXlsx(bytes, inflateRawSync).rows;
    const theirs = sheetjsRows(bytes);
    const differ: Record<string, string> = {};
    for (let r = 0; r < Math.max(ours.length, theirs.length); r++) {
      for (let c = 0; c < Math.max(ours[r]?.length ?? 0, theirs[r]?.length ?? 0); c++) {
        if ((ours[r]?.[c] ?? '') !== (theirs[r]?.[c] ?? '')) differ[`${r + 1},${c + 1}`] = '';
      }
    }
    expect(Object.keys(differ).sort()).toEqual(Object.keys(SHEETJS_DIFFERS[name] ?? {}).sort());
  });

  it('the openpyxl workbook: the hidden first sheet is skipped; the others are read by name or position', () => {
    const file = bytesOf('openpyxl.xlsx');
    const t = readTable(file, { inflateRaw: inflateRawSync, fileName: 'leads.xlsx' });
    expect(t.sheet).toEqual({ name: 'Leads', hidden: false });
    expect(t.sheets).toEqual([
      { name: 'Archive', hidden: true },
      { name: 'Leads', hidden: false },
      { name: 'Notes', hidden: false },
    ]);
    expect(readTable(file, { inflateRaw: inflateRawSync, sheet: 'archive' }).emails).toEqual([
      'old@example.com',
    ]);
    // The zip code kept as text, the one padded by its format, the 12-digit phone, the date and date-time.
    expect(t.rows[0]!.slice(2, 7)).toEqual([
      '2024-01-02',
      '2024-03-07 14:30:00',
      '00501',
      '02134',
      '447912345678',
    ]);
  });
});

describe('the CSV and TSV corpus: encodings, delimiters and sep= lines', () => {
  const expected = shown('libreoffice.shown.csv');

  it.each(Object.keys(TEXT_FILES))(
    '%s reads with its encoding and delimiter, and csv-parse agrees',
    (name) => {
      const want = TEXT_FILES[name]!;
      const t = readTable(bytesOf(name), { fileName: name.replace(/\.txt$/, '.tsv') });
      expect(t.text).toEqual({
        encoding: want.encoding,
        bom: want.bom,
        guessed: want.guessed,
        sepLine: want.sepLine ?? false,
        // The line break the file uses, kept for writing it back.
        lineEnd: /\r\n|\n|\r/.exec(decodeText(bytesOf(name)).text)![0],
        finalLineEnd: true,
      });
      expect(t.delimiter).toBe(want.delimiter);
      expect([t.header, ...t.rows]).toEqual(expected);
      // csv-parse, given the decoded text and the delimiter, reads the same records.
      const text = decodeText(bytesOf(name)).text.replace(/^sep=.\r?\n/, '');
      expect(csvRows(text, want.delimiter)).toEqual(
        parseDelimited(text, want.delimiter).records.map((r) => r.fields),
      );
    },
  );
});

const verdict = (email: string, i: number): ResultRow => ({
  email,
  status: 'valid',
  valid: i % 2 === 0,
  score: 0.9,
  reason: 'checked',
  details: { primary_label: i % 2 === 0 ? 'valid' : 'catch_all', tags: [], label_reasons: [] },
});

const COLUMNS = [...RESULT_COLUMNS, ANSWERED_AT_COLUMN];
const ANSWERED = '2026-11-28T12:00:00Z';

function roundTrip(table: TableList): { out: string[][]; back: ReturnType<typeof writeBackTable> } {
  const preflight = preflightEmails(table.emails);
  const back = writeBackTable(table, preflight, preflight.unique.map(verdict), {
    answeredAt: ANSWERED,
    deflateRaw: deflateRawSync,
  });
  if (back.format === 'xlsx') {
    // Read back by this reader here; the independent readers are in write-back-oracles.test.ts.
    const again = readTable(back.bytes, {
      format: 'xlsx',
      inflateRaw: inflateRawSync,
      sheet: table.sheet!.name,
      headerRow: table.headerRow,
    });
    const width = again.header.length;
    return { out: pad([again.header, ...again.rows], width), back };
  }
  const decoded = decodeText(back.bytes);
  expect(decoded.encoding).toBe(back.encoding);
  const text = table.text?.sepLine ? decoded.text.replace(/^sep=.\r\n/, '') : decoded.text;
  return { out: csvRows(text, table.delimiter ?? ','), back };
}

describe('round trip: every corpus file written back with its cells as shown, and the results beside them', () => {
  it.each([...XLSX_FILES, ...Object.keys(TEXT_FILES)])('%s', (name) => {
    const isXlsx = name.endsWith('.xlsx');
    const table = readTable(bytesOf(name), {
      fileName: name.replace(/\.txt$/, '.tsv'),
      inflateRaw: inflateRawSync,
    });
    const { out, back } = roundTrip(table);
    const expected = shown(isXlsx ? name.replace(/\.xlsx$/, '.shown.csv') : 'libreoffice.shown.csv');
    const width = Math.max(table.header.length, ...table.rows.map((r) => r.length));
    expect(out[0]).toEqual([...pad([expected[0]!], width)[0]!, ...COLUMNS]);
    expect(out.slice(1).map((r) => r.slice(0, width))).toEqual(pad(expected.slice(1), width));
    expect(out.slice(1).every((r) => r.length === width + COLUMNS.length)).toBe(true);
    // Each verified row carries its answer's time: a date cell in a workbook, ISO 8601 in text.
    const answered = out.slice(1).filter((r) => r[width + COLUMNS.length - 2] === 'verified');
    expect(answered.length).toBeGreaterThan(0);
    // A workbook without a styles part has no date format to give the cell: the time is written as text.
    const noStyles = name.startsWith('crafted-');
    expect(new Set(answered.map((r) => r[width + COLUMNS.length - 1]))).toEqual(
      new Set([isXlsx && !noStyles ? '2026-11-28 12:00:00' : ANSWERED]),
    );
    expect(back.format).toBe(
      isXlsx ? 'xlsx' : name.endsWith('.txt') ? 'tsv' : TEXT_FILES[name]!.delimiter === '\t' ? 'tsv' : 'csv',
    );
    if (isXlsx) {
      expect(back.encodingNote).toMatch(/^Written as the same workbook/);
      return;
    }
    // Written in the encoding it came in; UTF-8 as UTF-8 with a byte order mark.
    const source = TEXT_FILES[name]!;
    expect(back.encoding).toBe(source.encoding);
    expect(back.bom).toBe(
      source.encoding !== 'windows-1252' && !(source.encoding === 'utf-8' && source.sepLine),
    );
    expect(back.encodingGuessed).toBe(source.guessed);
    expect(back.encodingNote).toMatch(/^(Written|The file came)/);
  });

  it('a Windows-1252 file whose results need a character it lacks is written as UTF-8 with a byte order mark, and says so', () => {
    const table = readTable(bytesOf('windows-1252.csv'));
    const preflight = preflightEmails(table.emails);
    const back = writeBackTable(table, preflight, [], { notVerifiedReason: 'the job stopped (ジョブ)' });
    expect([back.encoding, back.bom]).toEqual(['utf-8', true]);
    expect(back.encodingNote).toMatch(
      /came in Windows-1252 \(told from its bytes.*written as UTF-8 with a byte order mark/,
    );
  });
});

describe('property: the client reader and the oracles agree on tables they all can write', () => {
  const text = fc.string({
    unit: fc.constantFrom('a', 'Z', '@', '.', ' ', ',', ';', '"', '\n', 'é', 'ü', '€', '0', '<', '&'),
    maxLength: 8,
  });

  it('a workbook SheetJS writes (strings and numbers, some with formats) reads the same in SheetJS and in ours', () => {
    // Up to 2 decimals: a half-way third decimal (23351.545) rounds on its binary value in SheetJS and
    // on its decimal digits in ours, LibreOffice and Excel (ORACLES.md; tables.test.ts pins ours).
    const number = fc.oneof(
      fc.integer({ min: -1e6, max: 1e6 }),
      fc.integer({ min: 0, max: 6_000_000 }).map((n) => n / 100),
    );
    const cell = fc.oneof(
      text.filter((s) => s.trim() !== ''),
      number,
    );
    const format = fc.constantFrom(
      undefined,
      '0',
      '0.00',
      '#,##0',
      '#,##0.00',
      '0%',
      '00000',
      'yyyy-mm-dd',
      'd-mmm-yy',
      'h:mm:ss',
      'dd/mm/yyyy hh:mm',
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.tuple(cell, format), { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.boolean(),
        (grid, sst) => {
          const ws = XLSX.utils.aoa_to_sheet(grid.map((r) => r.map(([v]) => v)));
          grid.forEach((r, ri) =>
            r.forEach(([v, z], ci) => {
              // General numbers are compared raw: SheetJS fits them in 11 characters (ORACLES.md).
              if (typeof v === 'number') ws[XLSX.utils.encode_cell({ r: ri, c: ci })]!.z = z ?? '0.########';
              // A negative date: Excel shows ####, SheetJS nothing, we the number (ORACLES.md).
              if (typeof v === 'number' && v < 0 && z && /[dyh]/.test(z))
                ws[XLSX.utils.encode_cell({ r: ri, c: ci })]!.z = '0';
            }),
          );
          const wb = XLSX.utils.book_new();
          XLSX.utils.book_append_sheet(wb, ws, 'S');
          const bytes = new Uint8Array(
            XLSX.write(wb, { type: 'buffer', bookType: 'xlsx', bookSST: sst, compression: true }) as Buffer,
          );
          const ours = readXlsx(bytes, inflateRawSync).rows;
          expect(pad(ours, 4)).toEqual(pad(sheetjsRows(bytes), 4));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('CSV our writer writes, csv-parse reads as we do; and stray quotes inside fields read alike', () => {
    const delimiter = fc.constantFrom<Delimiter>(',', ';', '\t', '|');
    fc.assert(
      fc.property(
        fc.array(fc.array(text, { minLength: 2, maxLength: 4 }), { minLength: 1, maxLength: 8 }),
        delimiter,
        (rows, d) => {
          const written = writeDelimited(rows, d);
          expect(csvRows(written, d)).toEqual(rows.map((r) => (r.length === 1 && r[0] === '' ? [''] : r)));
          expect(parseDelimited(written, d).records.map((r) => r.fields)).toEqual(rows);
        },
      ),
      { numRuns: 300 },
    );
    const unquoted = fc
      .string({ unit: fc.constantFrom('a', 'b', '"', ' ', '@'), minLength: 1, maxLength: 6 })
      .filter((s) => !s.startsWith('"'));
    fc.assert(
      fc.property(
        fc.array(fc.array(unquoted, { minLength: 2, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
        (rows) => {
          const raw = rows.map((r) => r.join(',')).join('\n');
          expect(parseDelimited(raw, ',').records.map((r) => r.fields)).toEqual(csvRows(raw, ','));
        },
      ),
      { numRuns: 300 },
    );
  });
});
