/**
 * Reading a table as the spreadsheet shows it: ECMA-376's `_xHHHH_` escapes in strings, the header row
 * found below a title and empty rows (or chosen), a trailing empty line of a CSV that is no row, formulas
 * saved without their value said rather than read as empty, a refusal that names the sheets; and a text file
 * written back with its cells as they came, no added cell a formula.
 */
import { inflateRawSync } from 'node:zlib';
import { InputError, preflightEmails } from '@evf/client';
import { readTable, writeBackTable } from '../src/index';
import { zip } from './support/zip';

const inflateRaw = (b: Uint8Array, o: { maxOutputLength: number }): Uint8Array => inflateRawSync(b, o);

const rels = (sheets: number): string =>
  '<Relationships>' +
  Array.from(
    { length: sheets },
    (_, i) => `<Relationship Id="rId${i + 1}" Type="worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
  ).join('') +
  '<Relationship Id="rIdS" Type="http://x/sharedStrings" Target="sharedStrings.xml"/></Relationships>';

/** A workbook of sheets given as their sheetData rows, shared strings given as `si` bodies. */
function book(sheets: Record<string, string>, shared: string[] = [], workbookExtra = ''): Uint8Array {
  const names = Object.keys(sheets);
  const parts: Record<string, string> = {
    'xl/workbook.xml':
      '<workbook><sheets>' +
      names.map((n, i) => `<sheet name="${n}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('') +
      `</sheets>${workbookExtra}</workbook>`,
    'xl/_rels/workbook.xml.rels': rels(names.length),
    'xl/sharedStrings.xml': `<sst>${shared.map((s) => `<si>${s}</si>`).join('')}</sst>`,
  };
  names.forEach((n, i) => {
    parts[`xl/worksheets/sheet${i + 1}.xml`] = `<worksheet><sheetData>${sheets[n]}</sheetData></worksheet>`;
  });
  return zip(parts);
}

const s = (ref: string, index: number): string => `<c r="${ref}" t="s"><v>${index}</v></c>`;
const text = (ref: string, value: string): string =>
  `<c r="${ref}" t="inlineStr"><is><t>${value}</t></is></c>`;

describe('ECMA-376 escapes in strings (_xHHHH_)', () => {
  it('decodes _x000D_ and other escapes, and _x005F_ as a literal underscore, in shared and inline strings', () => {
    const file = book(
      {
        Leads:
          `<row r="1">${s('A1', 0)}${s('B1', 1)}</row>` +
          `<row r="2">${s('A2', 2)}${s('B2', 3)}</row>` +
          `<row r="3">${text('A3', 'bob@x.com')}${text('B3', 'tab_x0009_here _x005f_x0041_')}</row>`,
      },
      [
        '<t>Email</t>',
        '<t>Note</t>',
        '<t>ada@x.com</t>',
        // As XlsxWriter writes "Windows\r\nbreak" and a literal "_x0041_".
        '<t>Windows_x000D_\nbreak _x005F_x0041_</t>',
      ],
    );
    const table = readTable(file, { inflateRaw });
    expect(table.rows).toEqual([
      ['ada@x.com', 'Windows\r\nbreak _x0041_'],
      ['bob@x.com', 'tab\there _x0041_'],
    ]);
  });
});

describe('the header row', () => {
  const titled = book({
    Leads:
      `<row r="1">${text('A1', 'Leads from the May fair')}</row>` +
      `<row r="3">${text('A3', 'Name')}${text('B3', 'Email')}${text('C3', 'Company')}</row>` +
      `<row r="4">${text('A4', 'Ada')}${text('B4', 'ada@x.com')}${text('C4', 'X')}</row>` +
      `<row r="5">${text('A5', 'Bob')}${text('B5', 'bob@x.com')}${text('C5', 'Y')}</row>`,
  });

  it('is found below a title and empty rows', () => {
    const table = readTable(titled, { inflateRaw });
    expect(table.headerRow).toBe(3);
    expect(table.header).toEqual(['Name', 'Email', 'Company']);
    expect(table.emails).toEqual(['ada@x.com', 'bob@x.com']);
    expect(table.unusable).toEqual([]);
    expect(table.above).toEqual([['Leads from the May fair'], ['']]);
  });

  it('lets the address column be named by the header the sheet shows there', () => {
    expect(readTable(titled, { inflateRaw, column: 'email' }).column).toMatchObject({ letter: 'B' });
    expect(readTable(titled, { inflateRaw, column: 'Company' }).column).toMatchObject({ letter: 'C' });
  });

  it('is found in text files too, and can be chosen by its row number', () => {
    const csv = 'Export of 2026-05-01\n\nName,Email\nAda,ada@x.com\n';
    expect(readTable(csv)).toMatchObject({ headerRow: 3, emails: ['ada@x.com'] });
    const chosen = readTable('Email,Name\nNote,here\nada@x.com,Ada\n', { headerRow: 2 });
    expect(chosen).toMatchObject({ headerRow: 2, header: ['Note', 'here'] });
    expect(() => readTable(csv, { headerRow: 9 })).toThrow(/Header Row 9.*holds 4 rows/);
  });

  it('keeps row 1 as the header of a plain list', () => {
    expect(readTable('Email\nada@x.com\n')).toMatchObject({ headerRow: 1, emails: ['ada@x.com'] });
    expect(readTable('\n\nEmail\nada@x.com\n')).toMatchObject({ headerRow: 3, emails: ['ada@x.com'] });
  });
});

describe('a trailing empty line', () => {
  it('is not a row', () => {
    for (const csv of [
      'Email\r\nada@x.com\r\n\r\n',
      'Email\nada@x.com\n\n\n',
      'Email,Name\nada@x.com,Ada\n,\n',
    ]) {
      const table = readTable(csv);
      expect({ rows: table.rows.length, blank: table.blankRows }).toEqual({
        rows: csv.endsWith(',\n') ? 2 : 1,
        blank: csv.endsWith(',\n') ? 1 : 0,
      });
    }
  });
});

describe('formulas saved without their value', () => {
  it('are said, by cell and why, and an address cell among them makes its row unusable', () => {
    const file = book({
      Leads:
        `<row r="1">${text('A1', 'Email')}${text('B1', 'Total')}</row>` +
        `<row r="2">${text('A2', 'ada@x.com')}<c r="B2"><f>SUM(1,2)</f></c></row>` +
        `<row r="3"><c r="A3" t="str"><f>LOWER("BOB@X.COM")</f></c><c r="B3"><f>1+1</f><v>2</v></c></row>`,
    });
    const table = readTable(file, { inflateRaw });
    expect(table.unread).toEqual([
      { cell: 'B2', reason: expect.stringMatching(/formula saved without its value/) },
      { cell: 'A3', reason: expect.stringMatching(/formula saved without its value/) },
    ]);
    expect(table.rows[1]![1]).toBe('2');
    expect(table.unusable).toEqual([
      { row: 3, reason: expect.stringMatching(/A3 holds a formula saved without its value/) },
    ]);
  });

  it('a workbook that asks to be recalculated on opening (XlsxWriter) has no trustworthy cached values', () => {
    const file = book(
      {
        Leads:
          `<row r="1">${text('A1', 'Email')}${text('B1', 'Total')}</row>` +
          `<row r="2">${text('A2', 'ada@x.com')}<c r="B2"><f>SUM(1,2)</f><v>0</v></c></row>`,
      },
      [],
      '<calcPr fullCalcOnLoad="1"/>',
    );
    const table = readTable(file, { inflateRaw });
    expect(table.unread).toEqual([{ cell: 'B2', reason: expect.stringMatching(/recalculated/) }]);
  });
});

describe('a workbook with no addresses where it looked', () => {
  it('names its sheets and the Sheet field', () => {
    const file = book({
      Summary: `<row r="1">${text('A1', 'Total')}</row><row r="2"><c r="A2"><v>3</v></c></row>`,
      Leads: `<row r="1">${text('A1', 'Email')}</row><row r="2">${text('A2', 'ada@x.com')}</row>`,
    });
    let error: unknown;
    try {
      readTable(file, { inflateRaw });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(
      /sheet "Summary".*sheets are: 1 "Summary", 2 "Leads".*Sheet field/,
    );
    expect(readTable(file, { inflateRaw, sheet: 'Leads' }).emails).toEqual(['ada@x.com']);
  });
});

describe('a text file written back', () => {
  it('keeps the user cells as they came, and no added cell reads as a formula', () => {
    const table = readTable('Email,Note\nada@x.com,=SUM(1,2)\nbob@x.com,+49 151 123\n');
    const back = writeBackTable(table, preflightEmails(table.emails), [], {
      notVerifiedReason: 'ignored',
    });
    expect(back.text).toContain('ada@x.com,=SUM(1,2),');
    expect(back.text).toContain('bob@x.com,+49 151 123,');
    const custom = writeBackTable(table, preflightEmails(table.emails), [
      {
        email: 'ada@x.com',
        status: 'valid',
        valid: true,
        score: 1,
        reason: '=HYPERLINK("http://x")',
        details: { primary_label: 'valid', tags: [], label_reasons: [] },
      },
    ]);
    expect(custom.text).toContain(`'=HYPERLINK(""http://x"")`);
  });
});
