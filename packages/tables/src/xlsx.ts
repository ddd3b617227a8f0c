/**
 * A sheet of an XLSX workbook as rows of text the way the spreadsheet shows them, with no dependency.
 * An XLSX file is a zip (zip.ts) of XML parts (xml.ts), found as ECMA-376 says rather than by their
 * usual names: _rels/.rels names the workbook part; the workbook's relationships name each sheet's
 * part, the shared strings and the styles; the workbook lists the sheets in tab order with their
 * state (hidden or not). Cells of type "s" point into the shared strings by index (an empty `<si/>` is
 * an entry too); numbers are shown through their style's number format (number-format.ts). Empty rows
 * are kept, so row numbers match what the spreadsheet shows.
 */
import { InputError } from '@evf/client';
import { columnLetter } from './columns';
import { DEFAULT_LIMITS, tooLarge, type TableLimits } from './limits';
import { builtInFormat, formatNumber } from './number-format';
import { Token, XmlCursor } from './xml';
import { isCompoundFile, unreadable, ZipReader, type InflateRaw } from './zip';

export { isZip, type InflateRaw } from './zip';

export interface SheetInfo {
  name: string;
  hidden: boolean;
}

/** A cell whose value could not be read, by its reference (`B7`), and why. */
export interface UnreadCell {
  cell: string;
  reason: string;
}

export interface XlsxSheet {
  rows: string[][];
  /** Cells shown empty or possibly stale because the file holds no value for them (formulas), at most MAX_UNREAD. */
  unread: UnreadCell[];
  /** How many such cells there are in all (past MAX_UNREAD too). */
  unreadCount: number;
  /** The sheet read, and every sheet of the workbook in tab order. */
  sheet: SheetInfo;
  sheets: SheetInfo[];
  /** The sheet's part name in the package (for writing it back). */
  sheetPart: string;
  /** Dates count from 1904 (a Mac workbook), not 1900. */
  date1904: boolean;
  /** Per row (index i is row i + 1): one past its last cell element, empty styled cells counted. */
  extents: number[];
}

interface SheetEntry extends SheetInfo {
  path?: string;
}

const dirOf = (path: string): string => path.slice(0, path.lastIndexOf('/') + 1);

/** A relationship's target as a part name (ECMA-376 Part 2, 9.3): relative to the source's folder, or absolute. */
function resolve(base: string, target: string): string {
  let t = target;
  try {
    t = decodeURIComponent(target);
  } catch {
    // Kept as written.
  }
  const segments = (t.startsWith('/') ? t.slice(1) : dirOf(base) + t).split('/');
  const out: string[] = [];
  for (const s of segments) {
    if (s === '..') out.pop();
    else if (s !== '.' && s !== '') out.push(s);
  }
  return out.join('/');
}

const relsOf = (part: string): string => `${dirOf(part)}_rels/${part.slice(part.lastIndexOf('/') + 1)}.rels`;

/** The relationships of a part: Id → { type, target part }. */
export function relationships(zip: ZipReader, part: string): Map<string, { type: string; target: string }> {
  const out = new Map<string, { type: string; target: string }>();
  const xml = zip.text(relsOf(part));
  if (!xml) return out;
  const cur = new XmlCursor(xml);
  for (let t = cur.next(); t !== Token.End; t = cur.next()) {
    if (t !== Token.Open || cur.name !== 'Relationship' || cur.attribute('TargetMode') === 'External')
      continue;
    const id = cur.attribute('Id');
    const target = cur.attribute('Target');
    if (id && target) out.set(id, { type: cur.attribute('Type') ?? '', target: resolve(part, target) });
  }
  return out;
}

export function workbookPath(zip: ZipReader): string {
  for (const rel of relationships(zip, '').values()) {
    if (/\/officeDocument$/.test(rel.type) && zip.has(rel.target)) return rel.target;
  }
  if (zip.has('xl/workbook.xml')) return 'xl/workbook.xml';
  throw unreadable('no workbook in it');
}

/**
 * ECMA-376's escape for characters XML cannot carry (Part 1, 22.9.2.19 ST_Xstring): `_xHHHH_` is the
 * UTF-16 code unit HHHH, and `_x005F_` an underscore, so `_x005F_x0041_` is the literal text `_x0041_`.
 * One pass left to right gives exactly that: the underscore decoded from `_x005F_` never starts a match.
 */
export function decodeEscapes(text: string): string {
  if (!text.includes('_x')) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Every `t` text of an `si` or `is` element (runs and plain text), without phonetic guides (rPh). */
function stringItem(cur: XmlCursor, end: string): string {
  if (cur.selfClosing) return '';
  let out = '';
  let inText = false;
  for (let t = cur.next(); t !== Token.End; t = cur.next()) {
    if (t === Token.Open) {
      if (cur.name === 'rPh' || cur.name === 'phoneticPr') cur.skipElement();
      else if (cur.name === 't') inText = !cur.selfClosing;
    } else if (t === Token.Text) {
      if (inText) out += cur.text;
    } else if (t === Token.Close) {
      if (cur.name === 't') inText = false;
      else if (cur.name === end) break;
    }
  }
  return decodeEscapes(out);
}

function sharedStrings(xml: string | undefined): string[] {
  const out: string[] = [];
  if (!xml) return out;
  const cur = new XmlCursor(xml);
  for (let t = cur.next(); t !== Token.End; t = cur.next())
    if (t === Token.Open && cur.name === 'si') out.push(stringItem(cur, 'si'));
  return out;
}

/** Each cell style's number format code, by the style's index (cellXfs, 18.8.10). */
function cellFormats(xml: string | undefined): (string | undefined)[] {
  if (!xml) return [];
  const custom = new Map<number, string>();
  const out: (string | undefined)[] = [];
  const cur = new XmlCursor(xml);
  let inCellXfs = false;
  for (let t = cur.next(); t !== Token.End; t = cur.next()) {
    if (t === Token.Open) {
      if (cur.name === 'numFmt')
        custom.set(Number(cur.attribute('numFmtId')), cur.attribute('formatCode') ?? 'General');
      else if (cur.name === 'cellXfs') inCellXfs = !cur.selfClosing;
      else if (cur.name === 'xf' && inCellXfs) {
        const id = Number(cur.attribute('numFmtId') ?? 0);
        out.push(custom.get(id) ?? builtInFormat(id));
      }
    } else if (t === Token.Close && cur.name === 'cellXfs') inCellXfs = false;
  }
  return out;
}

function chooseSheet(sheets: SheetEntry[], choice: string | number | undefined): SheetEntry {
  if (sheets.length === 0) throw unreadable('no worksheet in it');
  const wanted = choice === undefined ? '' : String(choice).trim();
  if (wanted === '') return sheets.find((s) => !s.hidden) ?? sheets[0]!;
  const norm = (s: string): string => s.trim().replace(/\s+/g, ' ').toLowerCase();
  const byName = sheets.find((s) => norm(s.name) === norm(wanted));
  if (byName) return byName;
  if (/^\d+$/.test(wanted) && Number(wanted) >= 1 && Number(wanted) <= sheets.length)
    return sheets[Number(wanted) - 1]!;
  const names = sheets.map((s, i) => `${i + 1} "${s.name}"${s.hidden ? ' (hidden)' : ''}`).join(', ');
  throw new InputError(
    'sheet',
    'not_found',
    `The workbook has no sheet "${wanted.slice(0, 60)}". Its sheets are: ${names}. Give a sheet name or its position (1 is the first). Nothing was sent or charged.`,
  );
}

function columnOf(ref: string | undefined): number | undefined {
  if (!ref) return undefined;
  let n = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i) & ~32;
    if (c < 65 || c > 90) break;
    n = n * 26 + (c - 64);
  }
  return i === 0 ? undefined : n - 1;
}

/** An ISO 8601 date-time (a cell of type "d", 18.18.11) as a serial day number in the workbook's system. */
function serialOf(iso: string, date1904: boolean): number | undefined {
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) || !iso.includes('T') ? iso : `${iso}Z`);
  if (Number.isNaN(ms)) return undefined;
  const days = ms / 86_400_000;
  if (date1904) return days + 24_107;
  const serial = days + 25_569;
  return serial < 61 ? serial - 1 : serial;
}

/**
 * A sheet's rows (by name or 1-based position; the first visible sheet by default), each cell as the
 * spreadsheet shows it; row i of the result is spreadsheet row i + 1.
 */
export function readXlsx(
  data: Uint8Array,
  inflateRaw: InflateRaw,
  sheetChoice?: string | number,
  limits: TableLimits = DEFAULT_LIMITS,
): XlsxSheet {
  if (isCompoundFile(data))
    throw unreadable(
      'it is encrypted with a password, or an old .xls file: open it, remove the password or save it as .xlsx',
    );
  const zip = new ZipReader(data, inflateRaw, limits.maxUnpackedBytes);
  try {
    return read(zip, sheetChoice, limits);
  } catch (error) {
    if (error instanceof SyntaxError) throw unreadable(`its XML is broken: ${error.message}`);
    throw error;
  }
}

function read(zip: ZipReader, sheetChoice: string | number | undefined, limits: TableLimits): XlsxSheet {
  const bookPath = workbookPath(zip);
  const rels = relationships(zip, bookPath);
  const book = new XmlCursor(zip.text(bookPath)!);
  const sheets: SheetEntry[] = [];
  let date1904 = false;
  let recalculate = false;
  for (let t = book.next(); t !== Token.End; t = book.next()) {
    if (t !== Token.Open) continue;
    if (book.name === 'workbookPr') date1904 = /^(1|true)$/.test(book.attribute('date1904') ?? '');
    // Asked to be recalculated on opening (XlsxWriter always asks): the values saved are placeholders.
    else if (book.name === 'calcPr') recalculate = /^(1|true)$/.test(book.attribute('fullCalcOnLoad') ?? '');
    else if (book.name === 'sheet') {
      const state = book.attribute('state');
      const rel = rels.get(book.attribute('id') ?? '');
      sheets.push({
        name: book.attribute('name') ?? '',
        hidden: state === 'hidden' || state === 'veryHidden',
        path: rel?.target,
      });
    }
  }
  if (sheets.length === 0 && zip.has('xl/worksheets/sheet1.xml'))
    sheets.push({ name: 'Sheet1', hidden: false, path: 'xl/worksheets/sheet1.xml' });
  const chosen = chooseSheet(sheets, sheetChoice);
  if (!chosen.path || !zip.has(chosen.path)) {
    throw unreadable(
      `sheet "${chosen.name}" is not a worksheet (a chart sheet or a missing part); choose another sheet`,
    );
  }
  const byType = (suffix: string, usual: string): string | undefined => {
    for (const rel of rels.values()) if (rel.type.endsWith(suffix) && zip.has(rel.target)) return rel.target;
    return zip.has(usual) ? usual : undefined;
  };
  const sstPath = byType('/sharedStrings', 'xl/sharedStrings.xml');
  const stylesPath = byType('/styles', 'xl/styles.xml');
  const shared = sharedStrings(sstPath ? zip.text(sstPath) : undefined);
  const formats = cellFormats(stylesPath ? zip.text(stylesPath) : undefined);
  const { rows, unread, unreadCount, extents } = sheetRows(
    zip.text(chosen.path)!,
    shared,
    formats,
    { date1904, recalculate },
    limits,
  );
  return {
    rows,
    unread,
    unreadCount,
    sheet: { name: chosen.name, hidden: chosen.hidden },
    sheetPart: chosen.path,
    date1904,
    extents,
    sheets: sheets.map(({ name, hidden }) => ({ name, hidden })),
  };
}

/** Cells listed one by one in `unread`; past this many only counted. */
export const MAX_UNREAD = 200;

const NO_VALUE =
  'a formula saved without its value (the program that wrote the file does not calculate formulas): open the file in Excel or LibreOffice, save it, and use that file';
const RECALCULATE =
  'a formula in a workbook saved to be recalculated when opened, so the value stored may not be its result: open the file in Excel or LibreOffice, save it, and use that file';

function sheetRows(
  xml: string,
  shared: string[],
  formats: (string | undefined)[],
  book: { date1904: boolean; recalculate: boolean },
  limits: TableLimits,
): { rows: string[][]; unread: UnreadCell[]; unreadCount: number; extents: number[] } {
  const { date1904, recalculate } = book;
  const rows: string[][] = [];
  const unread: UnreadCell[] = [];
  let unreadCount = 0;
  const extents: number[] = [];
  let extent = 0;
  let cells = 0;
  const cur = new XmlCursor(xml);
  let row: string[] | undefined;
  // The current cell.
  let col = -1;
  let type = '';
  let style = 0;
  let value: string | undefined;
  let inline = '';
  let inValue = false;
  let formula = false;
  for (let t = cur.next(); t !== Token.End; t = cur.next()) {
    if (t === Token.Open) {
      const name = cur.name;
      if (name === 'c' && row) {
        col = columnOf(cur.attribute('r')) ?? row.length;
        type = cur.attribute('t') ?? 'n';
        style = Number(cur.attribute('s') ?? 0);
        value = undefined;
        inline = '';
        formula = false;
        if (cur.selfClosing) endCell();
      } else if (name === 'v' && row) {
        inValue = !cur.selfClosing;
        if (cur.selfClosing) value = '';
      } else if (name === 'is' && row) inline = stringItem(cur, 'is');
      else if (name === 'f') {
        formula = true;
        cur.skipElement();
      } else if (name === 'row') {
        const r = Number(cur.attribute('r') ?? rows.length + 1);
        const at = Number.isInteger(r) && r > rows.length ? r : rows.length + 1;
        if (at > limits.maxRows) throw tooLarge('rows', limits.maxRows);
        while (rows.length < at - 1) rows.push(['']);
        while (extents.length < at - 1) extents.push(0);
        row = [];
        extent = 0;
        if (cur.selfClosing) endRow();
      }
    } else if (t === Token.Text) {
      if (inValue) value = (value ?? '') + cur.text;
    } else if (t === Token.Close) {
      if (cur.name === 'v') inValue = false;
      else if (cur.name === 'c' && row) endCell();
      else if (cur.name === 'row') endRow();
    }
  }
  return { rows, unread, unreadCount, extents };

  function endRow(): void {
    rows.push(row!.length ? row! : ['']);
    extents.push(extent);
    row = undefined;
  }

  function endCell(): void {
    const text = cellText();
    if (formula && (value === undefined || value === '' || recalculate) && type !== 'inlineStr') {
      unreadCount++;
      if (unread.length < MAX_UNREAD)
        unread.push({
          cell: `${columnLetter(col)}${rows.length + 1}`,
          reason: value ? RECALCULATE : NO_VALUE,
        });
    }
    if (col >= limits.maxColumns) throw tooLarge('columns', limits.maxColumns);
    if (col + 1 > extent) extent = col + 1;
    if (text === '' && col >= row!.length) return;
    if (col + 1 - row!.length + cells > limits.maxCells) throw tooLarge('cells', limits.maxCells);
    cells += Math.max(0, col + 1 - row!.length);
    while (row!.length < col) row!.push('');
    row![col] = text;
  }

  function cellText(): string {
    switch (type) {
      case 's':
        return shared[Number(value)] ?? '';
      case 'inlineStr':
        return inline || (value ?? '');
      case 'str':
        return decodeEscapes(value ?? '');
      case 'e':
        return value ?? '';
      case 'b':
        return value === '1' || value === 'true' ? 'TRUE' : value === '0' || value === 'false' ? 'FALSE' : '';
      case 'd': {
        const serial = value === undefined ? undefined : serialOf(value, date1904);
        const format = formats[style];
        return serial === undefined || !format
          ? (value ?? '')
          : formatNumber(serial, value!, format, date1904);
      }
      default: {
        if (value === undefined || value === '') return '';
        const format = formats[style];
        const n = Number(value);
        return format && !Number.isNaN(n) ? formatNumber(n, value, format, date1904) : value;
      }
    }
  }
}

/** The first visible sheet's rows, each cell as text; row i of the result is spreadsheet row i + 1. */
export function readXlsxFirstSheet(data: Uint8Array, inflateRaw: InflateRaw): string[][] {
  return readXlsx(data, inflateRaw).rows;
}
