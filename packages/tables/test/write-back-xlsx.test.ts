/**
 * A workbook written back is the same workbook with the result columns added, proven by an independent
 * reader in process (SheetJS, @e965/xlsx): every cell of every sheet keeps its value, type, number
 * format and formula; merges, widths and defined names stay; the new cells are typed. Byte level: every
 * part but the sheet and the styles is identical. openpyxl and LibreOffice check the same in
 * write-back-oracles.e2e.test.ts (they run as processes).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import * as XLSX from '@e965/xlsx';
import { preflightEmails, type ResultRow } from '@evf/client';
import { ANSWERED_AT_COLUMN, readTable, writeBackTable } from '../src/index';
import { ZipReader } from '../src/zip';

const inflateRaw = (b: Uint8Array, o: { maxOutputLength: number }): Uint8Array => inflateRawSync(b, o);
const answer = (email: string, label: string): ResultRow => ({
  email,
  status: 'valid',
  valid: label === 'valid',
  score: 0.9,
  reason: 'checked',
  details: { primary_label: label, tags: [], label_reasons: [] },
});

/** A workbook as SheetJS writes it: a cover sheet, the leads under a merged title, a third sheet, names and widths. */
function sheetjsWorkbook(): Uint8Array {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Cover'], ['made by a test']]), 'Cover');
  const leads = XLSX.utils.aoa_to_sheet([
    ['Leads from the May fair'],
    [],
    ['Name', 'Email', 'Phone', 'Signed Up', 'Total', 'Note'],
    ['Ada', 'ada@x.com', '00501', 45292, 5, '=SUM(1,2)'],
    ['Bob', 'bob@x.com', '+49 151 123', 45293.5, 7, 'Line_x000D_one'],
    ['Cy', 'not an address', '', '', 0, ''],
    ['Dee', 'ada@x.com', '', '', 1, 'copy'],
    ['Eve', 'eve@x.com', '', '', 2, 'no answer'],
  ]);
  leads['D4']!.z = 'yyyy-mm-dd';
  leads['D5']!.z = 'yyyy-mm-dd hh:mm';
  leads['E4'] = { t: 'n', v: 5, f: '2+3' };
  leads['!merges'] = [XLSX.utils.decode_range('A1:F1')];
  leads['!cols'] = [{ wch: 12 }, { wch: 30 }];
  XLSX.utils.book_append_sheet(wb, leads, 'Leads');
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['x', 1]]), 'Other');
  wb.Workbook = { ...wb.Workbook, Names: [{ Name: 'LeadList', Ref: 'Leads!$A$3:$F$8' }] };
  return new Uint8Array(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer);
}

const read = (bytes: Uint8Array): XLSX.WorkBook =>
  XLSX.read(bytes, { type: 'array', cellFormula: true, cellNF: true, cellStyles: true });

describe('a workbook written back, read by SheetJS', () => {
  const original = sheetjsWorkbook();
  const table = readTable(original, { inflateRaw, sheet: 'Leads', fileName: 'leads.xlsx' });
  const preflight = preflightEmails(table.emails);
  const written = writeBackTable(
    table,
    preflight,
    [answer('ada@x.com', 'valid'), answer('bob@x.com', 'catch_all')],
    { answeredAt: '2026-11-28T09:30:00Z', deflateRaw: deflateRawSync, notVerifiedReason: '=HYPERLINK("x")' },
  );
  const before = read(original);
  const after = read(written.bytes);

  it('is an XLSX named as one', () => {
    expect(written.format).toBe('xlsx');
    expect(written.mimeType).toMatch(/spreadsheetml\.sheet$/);
    expect(table.headerRow).toBe(3);
  });

  it('keeps every original cell of every sheet: value, type, number format and formula', () => {
    expect(after.SheetNames).toEqual(before.SheetNames);
    for (const name of before.SheetNames) {
      const a = before.Sheets[name]!;
      const b = after.Sheets[name]!;
      for (const ref of Object.keys(a).filter((k) => !k.startsWith('!'))) {
        const [x, y] = [a[ref] as XLSX.CellObject, b[ref] as XLSX.CellObject];
        expect({ ref, v: y.v, t: y.t, z: y.z, f: y.f }).toEqual({ ref, v: x.v, t: x.t, z: x.z, f: x.f });
      }
    }
    expect(after.Sheets.Leads!['!merges']).toEqual(before.Sheets.Leads!['!merges']);
    expect(after.Sheets.Leads!['!cols']?.slice(0, 2)).toEqual(before.Sheets.Leads!['!cols']?.slice(0, 2));
    expect(after.Workbook?.Names).toEqual(before.Workbook?.Names);
  });

  it('a text that looks like a formula stays text, in the user cells and in the new ones', () => {
    for (const ref of ['F4', 'C5']) {
      const cell = after.Sheets.Leads![ref] as XLSX.CellObject;
      expect([cell.t, cell.f]).toEqual(['s', undefined]);
    }
    // No new cell is a formula, whatever its text (a reason given as "=HYPERLINK(...)" included).
    const s = after.Sheets.Leads!;
    for (const ref of Object.keys(s).filter((k) => /^[G-L]\d+$/.test(k)))
      expect((s[ref] as XLSX.CellObject).f).toBeUndefined();
    expect((s.J8 as XLSX.CellObject).v).toBe('Not verified: =HYPERLINK("x")');
  });

  it('adds the result columns to the header row and typed cells to each data row', () => {
    const s = after.Sheets.Leads!;
    const row = (r: number): unknown[] =>
      ['G', 'H', 'I', 'J', 'K', 'L'].map((c) => (s[`${c}${r}`] as XLSX.CellObject | undefined)?.v);
    expect(row(3)).toEqual([
      'Category',
      'Group',
      'Safe to Send',
      'Reason',
      'Verification',
      ANSWERED_AT_COLUMN,
    ]);
    expect(row(4).slice(0, 5)).toEqual(['Valid', 'safe_to_send', true, 'checked', 'verified']);
    expect(row(5).slice(0, 3)).toEqual(['Catch-All', 'risky', false]);
    expect(row(6)[4]).toBe('skipped');
    expect(row(7)[4]).toBe('duplicate');
    expect((s.I4 as XLSX.CellObject).t).toBe('b');
    // The answer time is a date cell: a serial number in a date format, read back as the instant.
    const time = s.L4 as XLSX.CellObject;
    expect([time.t, time.z]).toEqual(['n', 'yyyy-mm-dd hh:mm:ss']);
    expect(time.v).toBeCloseTo(46_354 + 9.5 / 24, 8);
    expect(s['!ref']).toBe('A1:L8');
  });

  it('leaves every part but the sheet and the styles byte for byte as it was', () => {
    const a = new ZipReader(original, inflateRaw, 2 ** 28);
    const b = new ZipReader(written.bytes, inflateRaw, 2 ** 28);
    expect(b.list().map((e) => e.name)).toEqual(a.list().map((e) => e.name));
    const changed = a
      .list()
      .filter((e) => Buffer.compare(Buffer.from(a.bytes(e.name)!), Buffer.from(b.bytes(e.name)!)) !== 0)
      .map((e) => e.name);
    expect(changed.sort()).toEqual(['xl/styles.xml', 'xl/worksheets/sheet2.xml']);
  });

  it('reads back in this reader with the same rows and the results beside them', () => {
    const again = readTable(written.bytes, { inflateRaw, sheet: 'Leads' });
    expect(again.headerRow).toBe(3);
    expect(again.rows.map((r) => r.slice(0, 6))).toEqual(
      table.rows.map((r) => [...r, '', '', ''].slice(0, 6)),
    );
    expect(again.above).toEqual(table.above);
  });
});

describe('a workbook whose sheet has rows the results must create', () => {
  it('makes the rows the sheet lacks, in order', () => {
    const wb = XLSX.utils.book_new();
    const ws = XLSX.utils.aoa_to_sheet([['Email'], ['ada@x.com'], [], ['bob@x.com']]);
    XLSX.utils.book_append_sheet(wb, ws, 'S');
    const bytes = new Uint8Array(XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer);
    const table = readTable(bytes, { inflateRaw });
    const out = writeBackTable(table, preflightEmails(table.emails), [answer('ada@x.com', 'valid')]);
    const s = read(out.bytes).Sheets.S!;
    expect(['F2', 'F3', 'F4'].map((r) => (s[r] as XLSX.CellObject).v)).toEqual([
      'verified',
      'skipped',
      'not_verified',
    ]);
  });
});
