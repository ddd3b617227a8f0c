/**
 * Workbooks from several producers (openpyxl and XlsxWriter, made at test time by oracles/oracle.py;
 * SheetJS, made here; LibreOffice, its own save of the openpyxl file; and the committed corpus) go in and
 * come back as XLSX. Two independent readers check each: openpyxl (every cell of every sheet keeps its
 * value, type, number format and cached value; merges, defined names and widths stay; the new cells are
 * typed) and LibreOffice (it opens the written file headless and saves it again, and shows every
 * original cell as it shows the original file's). Needs Debian's python3-openpyxl, python3-xlsxwriter
 * and libreoffice-calc (the whole run is two LibreOffice starts and two Python runs).
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import * as XLSX from '@e965/xlsx';
import { preflightEmails, RESULT_COLUMNS, type ResultRow } from '@evf/client';
import { ANSWERED_AT_COLUMN, readTable, writeBackTable, type TableList } from '../src/index';
import { describeWhenPresent } from '../../../test/support/optional-suite';

const PYTHON = '/usr/bin/python3';
const ORACLE = join(__dirname, 'oracles', 'oracle.py');
const CORPUS = join(__dirname, 'fixtures', 'tables');

function missing(): string | undefined {
  const py = spawnSync(PYTHON, ['-c', 'import openpyxl, xlsxwriter'], { encoding: 'utf8' });
  if (py.status !== 0)
    return 'openpyxl and XlsxWriter are not installed (Debian: apt-get install python3-openpyxl python3-xlsxwriter)';
  if (spawnSync('soffice', ['--version'], { encoding: 'utf8' }).status !== 0)
    return 'LibreOffice is not installed (Debian: apt-get install libreoffice-calc)';
  return undefined;
}

type Cell = [value: string | null, type: string, format: string, cached: string | null];
interface Dumped {
  sheets: Record<string, { cells: Record<string, Cell>; merged: string[]; widths: Record<string, number> }>;
  names: Record<string, string>;
}

function run(cmd: string, args: string[]): string {
  const out = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 2 ** 20, timeout: 120_000 });
  if (out.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${out.stderr}`);
  return out.stdout;
}

const dump = (files: string[]): Record<string, Dumped> =>
  JSON.parse(run(PYTHON, [ORACLE, 'dump', ...files])) as Record<string, Dumped>;

/** LibreOffice opens each file and saves it as XLSX into `out` (one start for all files, its own profile). */
function libreOffice(files: string[], out: string, profile: string): void {
  run('soffice', [
    `-env:UserInstallation=file://${profile}`,
    '--headless',
    '--norestore',
    '--convert-to',
    'xlsx',
    '--outdir',
    out,
    ...files,
  ]);
}

const answer = (email: string, label: string): ResultRow => ({
  email,
  status: 'valid',
  valid: label === 'valid',
  score: 0.9,
  reason: 'checked',
  details: { primary_label: label, tags: [], label_reasons: [] },
});

function sheetjsWorkbook(): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['Made by SheetJS']]), 'Cover');
  const ws = XLSX.utils.aoa_to_sheet([
    ['Leads from the May fair'],
    [],
    ['Name', 'Email', 'Phone', 'Signed Up', 'Total', 'Note'],
    ['Ada', 'ada@x.com', '00501', 45292, 5, '=SUM(1,2)'],
    ['Bob', 'bob@x.com', '+49 151 123', 45293.5, 10, 'two\r\nlines'],
    ['Eve', 'eve@x.com', '', '', 2.5, 'no answer'],
  ]);
  ws.D4!.z = 'yyyy-mm-dd';
  ws.D5!.z = 'yyyy-mm-dd hh:mm';
  ws.E4 = { t: 'n', v: 5, f: '2+3' };
  ws['!merges'] = [XLSX.utils.decode_range('A1:F1')];
  ws['!cols'] = [{ wch: 14 }, { wch: 28 }];
  XLSX.utils.book_append_sheet(wb, ws, 'Leads');
  return XLSX.write(wb, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
}

describeWhenPresent('workbooks written back, read by openpyxl and LibreOffice', missing(), () => {
  let dir: string;
  const tables = new Map<string, TableList>();
  let openpyxlSees: Record<string, Dumped>;
  let libreOfficeSees: Record<string, Dumped>;
  const ANSWERED = '2026-11-28T09:30:00Z';

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'evf-tables-oracles-'));
    const inputs = join(dir, 'in');
    const written = join(dir, 'written');
    const lo = join(dir, 'lo');
    for (const d of [inputs, written, lo]) mkdirSync(d);
    run(PYTHON, [ORACLE, 'make', inputs]);
    writeFileSync(join(inputs, 'sheetjs-made.xlsx'), sheetjsWorkbook());
    for (const f of readdirSync(CORPUS).filter((n) => n.endsWith('.xlsx')))
      copyFileSync(join(CORPUS, f), join(inputs, `corpus-${f}`));
    // LibreOffice as a producer: its own save of the openpyxl workbook.
    libreOffice([join(inputs, 'openpyxl.xlsx')], lo, join(dir, 'profile'));
    copyFileSync(join(lo, 'openpyxl.xlsx'), join(inputs, 'libreoffice-made.xlsx'));
    rmSync(join(lo, 'openpyxl.xlsx'));

    const names = readdirSync(inputs);
    for (const name of names) {
      const bytes = new Uint8Array(readFileSync(join(inputs, name)));
      // The leads are on a sheet named Leads where the producer made several; else the first sheet.
      let table: TableList;
      try {
        table = readTable(bytes, { inflateRaw: inflateRawSync, fileName: name, sheet: 'Leads' });
      } catch {
        table = readTable(bytes, { inflateRaw: inflateRawSync, fileName: name });
      }
      tables.set(name, table);
      const preflight = preflightEmails(table.emails);
      const answers = preflight.unique
        .filter((e) => !e.startsWith('eve@'))
        .map((e, i) => answer(e, i % 2 ? 'catch_all' : 'valid'));
      const back = writeBackTable(table, preflight, answers, {
        answeredAt: ANSWERED,
        deflateRaw: deflateRawSync,
      });
      writeFileSync(join(written, `written-${name}`), back.bytes);
    }
    const all = [...names.map((n) => join(inputs, n)), ...names.map((n) => join(written, `written-${n}`))];
    openpyxlSees = dump(all);
    // LibreOffice opens the originals and the written files alike and saves them again; what it saved
    // is read by openpyxl, values as LibreOffice computed and showed them.
    libreOffice(all, lo, join(dir, 'profile'));
    libreOfficeSees = dump(readdirSync(lo).map((n) => join(lo, n)));
  }, 180_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const producers = (): string[] => [...tables.keys()];

  it('has workbooks from openpyxl, XlsxWriter, SheetJS, LibreOffice and the corpus', () => {
    expect(producers()).toEqual(
      expect.arrayContaining([
        'openpyxl.xlsx',
        'xlsxwriter.xlsx',
        'sheetjs-made.xlsx',
        'libreoffice-made.xlsx',
      ]),
    );
    expect(producers().filter((n) => n.startsWith('corpus-')).length).toBeGreaterThanOrEqual(5);
  });

  it('openpyxl: every original cell of every sheet keeps its value, type, number format and cached value', () => {
    let compared = 0;
    for (const name of producers()) {
      const a = openpyxlSees[name]!;
      const b = openpyxlSees[`written-${name}`]!;
      expect(Object.keys(b.sheets)).toEqual(Object.keys(a.sheets));
      expect(b.names).toEqual(a.names);
      for (const [sheet, { cells, merged, widths }] of Object.entries(a.sheets)) {
        for (const [ref, cell] of Object.entries(cells)) {
          compared++;
          expect([name, sheet, ref, b.sheets[sheet]!.cells[ref]]).toEqual([name, sheet, ref, cell]);
        }
        expect(b.sheets[sheet]!.merged).toEqual(merged);
        for (const [col, width] of Object.entries(widths)) expect(b.sheets[sheet]!.widths[col]).toBe(width);
      }
    }
    // Not a vacuous pass: the producers' sheets hold a few hundred cells between them.
    expect(compared).toBeGreaterThan(300);
  });

  it('openpyxl: the result columns are right, typed, and formula-looking text is text', () => {
    for (const name of producers()) {
      const table = tables.get(name)!;
      const sheet = table.sheet!.name;
      const cells = openpyxlSees[`written-${name}`]!.sheets[sheet]!.cells;
      const again = readTable(new Uint8Array(readFileSync(join(dir, 'written', `written-${name}`))), {
        inflateRaw: inflateRawSync,
        sheet,
        headerRow: table.headerRow,
      });
      const first = again.header.indexOf(RESULT_COLUMNS[0]);
      const letter = (k: number): string => XLSX.utils.encode_col(first + k);
      const header = [...RESULT_COLUMNS, ANSWERED_AT_COLUMN].map(
        (_, k) => cells[`${letter(k)}${table.headerRow}`]?.[0],
      );
      expect([name, header]).toEqual([name, [...RESULT_COLUMNS, ANSWERED_AT_COLUMN]]);
      table.rows.forEach((_, i) => {
        const r = table.headerRow + 1 + i;
        const verification = cells[`${letter(4)}${r}`];
        expect([name, r, verification?.[0]]).toEqual([name, r, again.rows[i]![first + 4]]);
        if (verification?.[0] === 'verified') {
          expect([name, r, cells[`${letter(2)}${r}`]?.[1]]).toEqual([name, r, 'b']);
          const time = cells[`${letter(5)}${r}`];
          // The hand-made corpus workbooks have no styles part, so no date format: the time is text there.
          const styled = !name.startsWith('corpus-crafted-');
          expect([name, r, time?.slice(0, 3)]).toEqual([
            name,
            r,
            styled ? ['2026-11-28T09:30:00', 'd', 'yyyy-mm-dd hh:mm:ss'] : [ANSWERED, 's', 'General'],
          ]);
        }
        for (let k = 0; k < 6; k++) expect(cells[`${letter(k)}${r}`]?.[1] ?? 's').not.toBe('f');
      });
    }
  });

  it('LibreOffice opens every written workbook and shows every original cell as in the original', () => {
    for (const name of producers()) {
      const a = libreOfficeSees[name];
      const b = libreOfficeSees[`written-${name}`];
      expect([name, b === undefined]).toEqual([name, false]);
      const sheet = tables.get(name)!.sheet!.name;
      for (const [s, { cells }] of Object.entries(a!.sheets))
        for (const [ref, cell] of Object.entries(cells))
          expect([name, s, ref, b!.sheets[s]!.cells[ref]?.[3]]).toEqual([name, s, ref, cell[3]]);
      const header = Object.values(b!.sheets[sheet]!.cells).map((c) => c[0]);
      expect(header).toEqual(expect.arrayContaining([...RESULT_COLUMNS, ANSWERED_AT_COLUMN, 'verified']));
    }
  });
});
