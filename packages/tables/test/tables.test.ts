import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { InputError, preflightEmails, type ResultRow } from '@evf/client';
import {
  columnIndex,
  columnLetter,
  detectDelimiter,
  parseDelimited,
  readTable,
  readXlsxFirstSheet,
  writeBackTable,
  writeDelimited,
  DEFAULT_LIMITS,
  type Delimiter,
  type InflateRaw,
} from '../src/index';
import { formatNumber } from '../src/number-format';
import { zip } from './support/zip';
import { decodeText, encodeText } from '../src/encoding';

const inflateRaw = (b: Uint8Array): Uint8Array => inflateRawSync(b);
const fields = (text: string, d?: Delimiter): string[][] =>
  parseDelimited(text, d).records.map((r) => r.fields);

describe('delimited text (RFC 4180 as spreadsheets read it)', () => {
  it('reads quoted delimiters, doubled quotes and line breaks inside quotes; CRLF, LF and CR all end a record', () => {
    const text =
      'name,email\r\n"Lovelace, Ada","ada@x.com"\n"He said ""hi""",b@x.com\r"two\r\nlines",c@x.com\r\n';
    expect(fields(text)).toEqual([
      ['name', 'email'],
      ['Lovelace, Ada', 'ada@x.com'],
      ['He said "hi"', 'b@x.com'],
      ['two\r\nlines', 'c@x.com'],
    ]);
  });

  it('drops a byte order mark and keeps stray quotes in unquoted fields as written', () => {
    expect(fields('\uFEFFemail,note\na@x.com,5" screen\n')).toEqual([
      ['email', 'note'],
      ['a@x.com', '5" screen'],
    ]);
  });

  it('a quote that never closes breaks only its own row; the rows after it are read', () => {
    const parsed = parseDelimited('email,name\n"a@x.com,Ann\nb@x.com,Bob\n', ',');
    expect(parsed.records[1]).toMatchObject({ broken: expect.stringMatching(/never closed/) });
    expect(parsed.records[2]).toEqual({ fields: ['b@x.com', 'Bob'] });
  });

  it('detects comma, tab, semicolon and pipe from the header and the rows under it', () => {
    expect(detectDelimiter('a\tb\tc\n1\t2\t3\n')).toBe('\t');
    expect(detectDelimiter('email;name\na@x.com;"Doe, J"\n')).toBe(';');
    expect(detectDelimiter('email|name\na@x.com|x\n')).toBe('|');
    expect(detectDelimiter('"Doe; J",email\nx,a@x.com\n')).toBe(',');
    // One column: any delimiter reads it; a comma is assumed.
    expect(detectDelimiter('email\na@x.com\n')).toBe(',');
  });

  const cell = fc.string({
    unit: fc.constantFrom('a', 'Z', '@', '.', ' ', ',', ';', '\t', '|', '"', '\n', '\r', 'é', '😀'),
    maxLength: 8,
  });
  const table = fc
    .integer({ min: 1, max: 5 })
    .chain((width) =>
      fc.array(fc.array(cell, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 12 }),
    );

  it('property: what writeDelimited writes, parseDelimited reads back unchanged (every delimiter)', () => {
    fc.assert(
      fc.property(table, fc.constantFrom<Delimiter>(',', '\t', ';', '|'), (rows, d) => {
        expect(fields(writeDelimited(rows, d), d)).toEqual(rows);
      }),
      { numRuns: 500 },
    );
  });

  it('property: a table whose cells hold no delimiter reads back right with the delimiter detected', () => {
    const plain = fc.string({
      unit: fc.constantFrom('a', 'b', '@', '.', ' ', '"', 'é'),
      minLength: 1,
      maxLength: 6,
    });
    const rect = fc
      .integer({ min: 2, max: 5 })
      .chain((w) =>
        fc.array(fc.array(plain, { minLength: w, maxLength: w }), { minLength: 2, maxLength: 10 }),
      );
    fc.assert(
      fc.property(rect, fc.constantFrom<Delimiter>(',', '\t', ';', '|'), (rows, d) => {
        const parsed = parseDelimited(writeDelimited(rows, d));
        expect(parsed.delimiter).toBe(d);
        expect(parsed.records.map((r) => r.fields)).toEqual(rows);
      }),
      { numRuns: 300 },
    );
  });

  it('property: any text parses without throwing, and LF, CRLF and a BOM give the same records', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', ',', '"', '\n', ';', '\t', ' '), maxLength: 60 }),
        (text) => {
          const lf = parseDelimited(text, ',').records;
          expect(parseDelimited(`\uFEFF${text}`, ',').records).toEqual(lf);
          // Quoted line breaks keep their own form, so compare only texts without quotes for CRLF.
          if (!text.includes('"'))
            expect(parseDelimited(text.replace(/\n/g, '\r\n'), ',').records).toEqual(lf);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('columns', () => {
  it('letters and indexes are inverse, like a spreadsheet names columns', () => {
    expect([0, 25, 26, 51, 701, 702].map(columnLetter)).toEqual(['A', 'Z', 'AA', 'AZ', 'ZZ', 'AAA']);
    fc.assert(fc.property(fc.integer({ min: 0, max: 18_000 }), (i) => columnIndex(columnLetter(i)) === i));
    expect(columnIndex('a1')).toBeUndefined();
  });
});

describe('readTable', () => {
  const csv = 'Name,Work Email,Company\nAda,ada@x.com,X\nBob,,Y\n,,\nCy,cy@x.com,Z\n';

  it('picks the column by header name (any case and spacing), by letter, or by its header when none is given', () => {
    expect(readTable(csv, { column: ' work  EMAIL ' }).column).toMatchObject({
      index: 1,
      letter: 'B',
      by: 'name',
    });
    expect(readTable(csv, { column: 'b' }).column).toMatchObject({
      index: 1,
      name: 'Work Email',
      by: 'letter',
    });
    // No header says exactly "email": the column holding addresses is found from its content.
    expect(readTable(csv).column).toMatchObject({ index: 1, by: 'detected' });
    expect(readTable('id,E-mail\n1,a@x.com\n').column).toMatchObject({ index: 1, by: 'detected' });
  });

  it('reports rows without an address by their spreadsheet row number, skips blank rows, keeps indexes aligned', () => {
    const t = readTable(csv, { column: 'Work Email' });
    expect(t.emails).toEqual(['ada@x.com', '', '', 'cy@x.com']);
    expect(t.unusable).toEqual([{ row: 3, reason: 'no address in "Work Email"' }]);
    expect(t.blankRows).toBe(1);
  });

  it('refuses, before anything is sent, an unknown column, an empty file, a header-less list and an .xls file', () => {
    const refusal = (f: () => unknown): InputError => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(InputError);
        expect((e as Error).message).toMatch(/Nothing was sent or charged/);
        return e as InputError;
      }
      throw new Error('expected a refusal');
    };
    expect(refusal(() => readTable(csv, { column: 'Phone' })).message).toMatch(
      /A "Name", B "Work Email", C "Company"/,
    );
    expect(refusal(() => readTable('\n\n')).rule).toBe('empty');
    expect(refusal(() => readTable('email\n')).rule).toBe('empty');
    expect(refusal(() => readTable('ada@x.com\nbob@x.com\n')).rule).toBe('header');
    expect(refusal(() => readTable(new Uint8Array([1, 2]), { fileName: 'leads.xls' })).rule).toBe('format');
    expect(refusal(() => readTable('a,b\n1,2\n')).rule).toBe('required');
  });

  it('reads UTF-16 text with a byte order mark (Excel "Unicode text") and UTF-8 bytes', () => {
    const text = 'email\tname\nzoë@x.com\tZoë\n';
    const utf16 = new Uint8Array([0xff, 0xfe, ...Buffer.from(text, 'utf16le')]);
    expect(readTable(utf16, { format: 'tsv' }).emails).toEqual(['zoë@x.com']);
    expect(readTable(new TextEncoder().encode(text)).emails).toEqual(['zoë@x.com']);
  });

  it('reads the first sheet of an XLSX made by SheetJS (shared strings, numbers, booleans, an empty row)', () => {
    // test/fixtures/leads-sheetjs.xlsx was written by SheetJS 0.18.5 (XLSX.writeFile, bookSST, compressed).
    const file = new Uint8Array(readFileSync(join(__dirname, 'fixtures', 'leads-sheetjs.xlsx')));
    expect(readXlsxFirstSheet(file, inflateRaw)).toEqual([
      ['Name', 'Email', 'Score'],
      ['Ada Lovelace', 'ada@acme-corp.com', '1'],
      ['Bob & Co <sales>', 'bob@acme-corp.com', '2.5'],
      [''],
      ['Zoë', 'zoe@exämple.com', 'TRUE'],
      ['No Address', '', '3'],
      ['Dup', 'ADA@acme-corp.com', '4'],
    ]);
    const t = readTable(file, { fileName: 'leads.xlsx', inflateRaw });
    expect(t.format).toBe('xlsx');
    expect(t.column).toMatchObject({ letter: 'B', name: 'Email' });
    expect(t.unusable).toEqual([{ row: 6, reason: 'no address in "Email"' }]);
    expect(t.blankRows).toBe(1);
    // Without the injected decompressor the file is refused with a way out, not misread.
    expect(() => readTable(file, { fileName: 'leads.xlsx' })).toThrow(/save the sheet as CSV/);
  });
});

describe('the table into pre-flight and back: every row once, nothing charged for rows not sent', () => {
  const row = (email: string, label: string): ResultRow => ({
    email,
    status: 'valid',
    valid: label === 'valid',
    score: 0.9,
    reason: `because ${label}`,
    details: { primary_label: label as ResultRow['details']['primary_label'], tags: [], label_reasons: [] },
  });

  it('verified, duplicate, malformed, empty, unreadable and unanswered rows each say what happened', () => {
    const text =
      'email,name\nada@x.com,Ada\nADA@x.com,Ada again\nbad@,Bad\n,None\n"open@x.com,Open\nbob@x.com,Bob\ncy@x.com,Cy\n';
    const table = readTable(text);
    const preflight = preflightEmails(table.emails);
    expect(preflight.unique).toEqual(['ada@x.com', 'bob@x.com', 'cy@x.com']);
    const back = writeBackTable(
      table,
      preflight,
      [row('ada@x.com', 'valid'), row('BOB@x.com', 'catch_all')],
      {
        notVerifiedReason: 'the job stopped before this address',
      },
    );
    const out = parseDelimited(back.text!, ',').records.map((r) => r.fields);
    expect(out[0]).toEqual([
      'email',
      'name',
      'Category',
      'Group',
      'Safe to Send',
      'Reason',
      'Verification',
      'Verified At (UTC)',
    ]);
    expect(out.slice(1).map((r) => r[6])).toEqual([
      'verified',
      'duplicate',
      'skipped',
      'skipped',
      'skipped',
      'verified',
      'not_verified',
    ]);
    expect(out[2]!.slice(2, 5)).toEqual(['Valid', 'safe_to_send', 'TRUE']);
    expect(out[6]!.slice(2, 5)).toEqual(['Catch-All', 'risky', 'FALSE']);
    expect(out[3]![5]).toMatch(/^Not sent \(not charged\): malformed address/);
    expect(out[5]![5]).toMatch(/never closed/);
    expect(out[7]![5]).toBe('Not verified: the job stopped before this address');
    expect(back.counts).toEqual({
      rows: 7,
      verified: 2,
      duplicates: 1,
      skipped: 3,
      notVerified: 1,
      blank: 0,
    });
  });

  it('keeps the rows above the header as they were, so every row keeps its number', () => {
    const table = readTable('\n,\nemail,name\nada@x.com,Ada\n');
    expect(table.headerRow).toBe(3);
    const back = writeBackTable(table, preflightEmails(table.emails), []);
    expect(back.text!.startsWith('\n,\nemail,name,Category')).toBe(true);
    const out = parseDelimited(back.text!, ',').records.map((r) => r.fields);
    expect(out.slice(0, 3).map((r) => r.slice(0, 2))).toEqual([[''], ['', ''], ['email', 'name']]);
    expect(out[3]!.slice(0, 2)).toEqual(['ada@x.com', 'Ada']);
  });

  it('property: every data row is written back exactly once, in order, with its own cells unchanged', () => {
    const address = fc.constantFrom('a@x.com', 'A@X.com', 'b@y.org', 'bad@', '', 'c@z.net', 'not an address');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(address, fc.string({ maxLength: 5 })), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        (pairs, answered) => {
          const rows = [['Email', 'Note'], ...pairs.map(([e, n]) => [e, n])];
          const table = readTable(writeDelimited(rows), { column: 'Email' });
          const preflight = preflightEmails(table.emails);
          const results = answered ? preflight.unique.map((e) => row(e, 'valid')) : [];
          const back = writeBackTable(table, preflight, results);
          const out = parseDelimited(back.text!, ',').records.map((r) => r.fields);
          const dataOut = out
            .slice(1)
            .filter(
              (r) => !(r.slice(0, 2).every((c) => c.trim() === '') && r[6] === 'skipped' && r[5] === ''),
            );
          const dataIn = table.rows.filter((r) => r.some((c) => c.trim() !== ''));
          expect(dataOut.map((r) => r.slice(0, 2))).toEqual(dataIn.map((r) => [r[0] ?? '', r[1] ?? '']));
          const c = back.counts;
          expect(c.verified + c.duplicates + c.skipped + c.notVerified).toBe(table.rows.length);
          expect(c.verified + c.notVerified).toBe(preflight.unique.length);
          expect(answered ? c.notVerified : c.verified).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('XLSX written by other tools', () => {
  const workbook = '<workbook><sheets><sheet name="Leads" sheetId="1" r:id="rId7"/></sheets></workbook>';
  const rels =
    '<Relationships><Relationship Id="rId7" Type="worksheet" Target="/xl/worksheets/leads.xml"/></Relationships>';
  const sheet =
    '<worksheet><sheetData>' +
    '<row><c t="inlineStr"><is><t>Email</t></is></c><c t="inlineStr"><is><r><t>Na</t></r><r><t>me</t></r></is></c></row>' +
    '<row r="3"><c r="A3" t="str"><v>ada@x.com</v></c><c r="C3" t="inlineStr"><is><t xml:space="preserve"> A &amp; B </t></is></c></row>' +
    '</sheetData></worksheet>';

  it('inline strings, formula text, rows and cells without references, a sheet part named by its relationship, stored entries', () => {
    for (const stored of [false, true]) {
      const file = zip(
        { 'xl/workbook.xml': workbook, 'xl/_rels/workbook.xml.rels': rels, 'xl/worksheets/leads.xml': sheet },
        { stored },
      );
      expect(readXlsxFirstSheet(file, inflateRaw)).toEqual([
        ['Email', 'Name'],
        [''],
        ['ada@x.com', '', ' A & B '],
      ]);
      const table = readTable(file, { inflateRaw });
      expect(table).toMatchObject({ format: 'xlsx', emails: ['', 'ada@x.com'], blankRows: 1 });
    }
  });

  it('reads the first visible sheet by default, and the sheet named or numbered by the "sheet" option', () => {
    const book =
      '<workbook><sheets><sheet name="Old" sheetId="1" state="hidden" r:id="rId1"/><sheet name="Leads" sheetId="2" r:id="rId2"/>' +
      '<sheet name="Other List" sheetId="3" r:id="rId3"/></sheets></workbook>';
    const links =
      '<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Target="worksheets/sheet2.xml"/>' +
      '<Relationship Id="rId3" Target="worksheets/sheet3.xml"/></Relationships>';
    const one = (email: string): string =>
      `<worksheet><sheetData><row><c t="inlineStr"><is><t>Email</t></is></c></row><row><c t="inlineStr"><is><t>${email}</t></is></c></row></sheetData></worksheet>`;
    const file = zip({
      'xl/workbook.xml': book,
      'xl/_rels/workbook.xml.rels': links,
      'xl/worksheets/sheet1.xml': one('old@x.com'),
      'xl/worksheets/sheet2.xml': one('lead@x.com'),
      'xl/worksheets/sheet3.xml': one('other@x.com'),
    });
    expect(readTable(file, { inflateRaw }).emails).toEqual(['lead@x.com']);
    expect(readTable(file, { inflateRaw, sheet: ' other  LIST ' }).emails).toEqual(['other@x.com']);
    expect(readTable(file, { inflateRaw, sheet: 1 }).emails).toEqual(['old@x.com']);
    expect(readTable(file, { inflateRaw, sheet: '3' }).emails).toEqual(['other@x.com']);
    expect(() => readTable(file, { inflateRaw, sheet: 'Nope' })).toThrow(
      /no sheet "Nope". Its sheets are: 1 "Old" \(hidden\), 2 "Leads", 3 "Other List"/,
    );
  });

  it('caps inflation by the bytes it produces, not the sizes the zip declares (a lying central directory)', () => {
    // 64 MiB of zeros packs to about 64 KB; the directory says the sheet is 100 bytes.
    const huge = '<worksheet><sheetData>' + ' '.repeat(64 * 2 ** 20) + '</sheetData></worksheet>';
    const bomb = zip(
      { 'xl/workbook.xml': workbook, 'xl/_rels/workbook.xml.rels': rels, 'xl/worksheets/leads.xml': huge },
      { declaredSize: 100 },
    );
    expect(bomb.length).toBeLessThan(200_000);
    const cap = 2 * 2 ** 20;
    const produced: number[] = [];
    const limited: InflateRaw = (data, options) => {
      try {
        const out = inflateRawSync(data, options);
        produced.push(out.length);
        return out;
      } catch (error) {
        produced.push(-1);
        throw error;
      }
    };
    expect(() => readTable(bomb, { inflateRaw: limited, limits: { maxUnpackedBytes: cap } })).toThrow(
      /unpacks to more than 2 MiB/,
    );
    // Every part inflated stayed within what was left of the cap; the sheet's inflate was stopped by zlib at it.
    expect(produced[produced.length - 1]).toBe(-1);
    expect(produced.filter((n) => n > 0).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(cap);
    // A decompressor that ignores the limit is still refused once its output is measured.
    expect(() =>
      readTable(bomb, { inflateRaw: (d) => inflateRawSync(d), limits: { maxUnpackedBytes: cap } }),
    ).toThrow(/unpacks to more than 2 MiB/);
    // The default cap is what zlib is told.
    const told: number[] = [];
    readTable(
      zip({
        'xl/workbook.xml': workbook,
        'xl/_rels/workbook.xml.rels': rels,
        'xl/worksheets/leads.xml': sheet,
      }),
      {
        inflateRaw: (d, o) => (told.push(o.maxOutputLength), inflateRawSync(d, o)),
      },
    );
    expect(told[0]).toBe(DEFAULT_LIMITS.maxUnpackedBytes);
    expect(() => readTable(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0]), { inflateRaw })).toThrow(
      /could not be read \(no zip directory\)/,
    );
  });

  it('refuses more rows, columns or cells than the limits, with what to do', () => {
    const rowsCsv = 'email\n' + 'a@x.com\n'.repeat(20);
    expect(() => readTable(rowsCsv, { limits: { maxRows: 10 } })).toThrow(
      /more than 10 rows, more than this step reads. Split the list/,
    );
    expect(() =>
      readTable('email' + ',x'.repeat(50) + '\na@x.com\n', { limits: { maxColumns: 20 } }),
    ).toThrow(/more than 20 columns/);
    expect(() => readTable('email,b,c\n' + 'a@x.com,1,2\n'.repeat(20), { limits: { maxCells: 30 } })).toThrow(
      /more than 30 cells/,
    );
    const wide = zip({
      'xl/workbook.xml': workbook,
      'xl/_rels/workbook.xml.rels': rels,
      'xl/worksheets/leads.xml': sheet,
    });
    expect(() => readTable(wide, { inflateRaw, limits: { maxRows: 2 } })).toThrow(/more than 2 rows/);
    expect(() => readTable(wide, { inflateRaw, limits: { maxColumns: 2 } })).toThrow(/more than 2 columns/);
  });
});

describe('number formats, as LibreOffice 7.4 shows them', () => {
  it('rounds half-way decimals on their decimal digits, as LibreOffice and Excel do (SheetJS rounds the binary value)', () => {
    // LibreOffice's CSV export "as shown" of these cells in '#,##0.00': 23,351.55 49,100.91 40,487.40 1.01 0.13 2.68.
    expect(
      [23351.545, 49100.905, 40487.395, 1.005, 0.125, 2.675].map((v) =>
        formatNumber(v, String(v), '#,##0.00'),
      ),
    ).toEqual(['23,351.55', '49,100.91', '40,487.40', '1.01', '0.13', '2.68']);
  });

  it('dates, times, zero padding, sections, literal text, scaling and General kept raw', () => {
    expect(formatNumber(45292, '45292', 'yyyy-mm-dd')).toBe('2024-01-01');
    expect(formatNumber(45356.60416666666, '45356.60416666666', 'm/d/yyyy h:mm AM/PM')).toBe(
      '3/5/2024 2:30 PM',
    );
    expect(formatNumber(45356.60416666666, '45356.60416666666', 'dddd, mmmm d')).toBe('Tuesday, March 5');
    expect(formatNumber(1.5, '1.5', '[h]:mm')).toBe('36:00');
    expect(formatNumber(60, '60', 'yyyy-mm-dd')).toBe('1900-02-29');
    expect(formatNumber(0, '0', 'yyyy-mm-dd', true)).toBe('1904-01-01');
    expect(formatNumber(2134, '2134', '00000')).toBe('02134');
    expect(formatNumber(5551234567, '5551234567', '(###) ###-####')).toBe('(555) 123-4567');
    expect(formatNumber(-12, '-12', '#,##0.00;(#,##0.00)')).toBe('(12.00)');
    expect(formatNumber(0, '0', '0;-0;"zero"')).toBe('zero');
    expect(formatNumber(1234567, '1234567', '#,##0,"K"')).toBe('1,235K');
    expect(formatNumber(0.0123, '0.0123', '0.00E+00')).toBe('1.23E-02');
    expect(formatNumber(1.25, '1.25', '# ?/?')).toBe('1 1/4');
    expect(formatNumber(12.5, '12.5', '[$€-407] #,##0.00')).toBe('€ 12.50');
    expect(formatNumber(45356.604166666664, '45356.604166666664', 'General')).toBe('45356.604166666664');
    expect(formatNumber(447912345678, '447912345678', 'General')).toBe('447912345678');
  });
});

describe('encodings told from the bytes', () => {
  it('Windows-1252: every byte decodes as the WHATWG index says and encodes back to itself', () => {
    const all = new Uint8Array(256).map((_, i) => i);
    // Invalid UTF-8 (a lone 0x80), so the bytes are read as Windows-1252.
    const decoded = decodeText(all);
    expect(decoded).toMatchObject({ encoding: 'windows-1252', guessed: true });
    expect(decoded.text.slice(0x80, 0x8c)).toBe('€\u0081‚ƒ„…†‡ˆ‰Š‹');
    expect(decoded.text.slice(0xe4, 0xe5)).toBe('ä');
    expect([...encodeText(decoded.text, 'windows-1252', false)]).toEqual([...all]);
  });

  it('property: UTF-8 and UTF-16 (with and without a mark) decode back to the text', () => {
    // Without a mark UTF-16 is told by its zero bytes, so the text is mostly Latin, as a sheet's is.
    const latin = fc.constantFrom('e', 'm', 'a', 'i', 'l', ',', '\n', 'ü', '€', 'x', '@', '.', '1');
    const unit = fc.oneof(
      { arbitrary: latin, weight: 19 },
      { arbitrary: fc.constantFrom('😀', '中'), weight: 1 },
    );
    fc.assert(
      fc.property(fc.string({ unit, minLength: 8, maxLength: 40 }), (text) => {
        for (const [encoding, bom] of [
          ['utf-8', true],
          ['utf-16le', true],
          ['utf-16be', true],
          ['utf-16le', false],
          ['utf-16be', false],
        ] as const) {
          const d = decodeText(encodeText(`email,${text}`, encoding, bom));
          expect(d.text).toBe(`email,${text}`);
          expect(d.encoding).toBe(encoding);
          expect(d.guessed).toBe(!bom);
        }
      }),
      { numRuns: 200 },
    );
  });
});
