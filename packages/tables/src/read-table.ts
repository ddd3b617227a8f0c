import { InputError, isEmailSyntaxValid } from '@evf/client';
import { chooseColumn, columnIndex, isEmailHeader, normalise, type ChosenColumn } from './columns';
import { DELIMITERS, parseDelimited, type Delimiter, type DelimitedRecord } from './delimited';
import { decodeText, type TextEncoding } from './encoding';
import { DEFAULT_LIMITS, type TableLimits } from './limits';
import { isZip, readXlsx, type InflateRaw, type SheetInfo, type UnreadCell } from './xlsx';
import { isCompoundFile } from './zip';

export type TableFormat = 'csv' | 'tsv' | 'xlsx';

export interface ReadTableOptions {
  /** The column holding the addresses: a header name or a column letter. Default: found from the header or content. */
  column?: string;
  /** Default: from the file name, else from the content (a zip is XLSX; text is CSV with its delimiter detected). */
  format?: TableFormat;
  /**
   * The XLSX sheet to read: its name (case and spacing ignored) or its position (1 is the first tab,
   * hidden ones counted). Default: the first visible sheet. Ignored for CSV and TSV.
   */
  sheet?: string | number;
  /**
   * The header's row number as the spreadsheet shows it (1 is the first row). Default: found, the
   * first non-empty row unless a title stands above the real header (see findHeader).
   */
  headerRow?: number;
  /** Used to guess the format when none is given. */
  fileName?: string;
  /**
   * Raw DEFLATE decompression with an output limit: node:zlib's inflateRawSync itself, passed as it is
   * (`inflateRaw: inflateRawSync`). Needed for XLSX only; injected, so the client itself imports
   * nothing platform-specific.
   */
  inflateRaw?: InflateRaw;
  /** What reading may cost (rows, columns, cells, bytes unpacked); each default is in DEFAULT_LIMITS. */
  limits?: Partial<TableLimits>;
}

/** How a text table's bytes were read, so it can be written back the same way. */
export interface TableText {
  encoding: TextEncoding;
  /** The file began with a byte order mark. */
  bom: boolean;
  /** No byte order mark said the encoding: it was told from the bytes (see encoding.ts). */
  guessed: boolean;
  /** The file's first line was Excel's `sep=;` (naming the delimiter), not a row. */
  sepLine: boolean;
  /** The line break the file's records end with (the first one found; CRLF when there is none). */
  lineEnd: '\r\n' | '\n' | '\r';
  /** The last record ended with a line break. */
  finalLineEnd: boolean;
}

/** A data row that gives no address to verify, and why. Rows are numbered as a spreadsheet shows them: the header is row 1. */
export interface UnusableRow {
  row: number;
  reason: string;
}

export interface TableList {
  format: TableFormat;
  /** The extension of the name the file came with (lower case, without the dot), if any. */
  extension?: string;
  delimiter?: Delimiter;
  /** CSV and TSV: the encoding read, whether it was guessed, Excel's `sep=` line. */
  text?: TableText;
  /** XLSX: the sheet read, and every sheet of the workbook in tab order. */
  sheet?: SheetInfo;
  sheets?: SheetInfo[];
  header: string[];
  /** The header's row number as the spreadsheet shows it (1 unless titles or empty rows stand above it). */
  headerRow: number;
  /** The rows above the header (titles, empty rows), as read, so they are written back as they were. */
  above: string[][];
  column: ChosenColumn;
  /** Data rows (every row after the header), cells as read. */
  rows: string[][];
  /**
   * The chosen column's cell for each data row (index i is row i + 2), '' for a row that gives none:
   * the list the client's pre-flight takes, so its indexes are data-row indexes.
   */
  emails: string[];
  /** Rows that give no address (blank cell, broken quoting); never sent, never charged. */
  unusable: UnusableRow[];
  /** Wholly empty rows (skipped, not reported one by one). */
  blankRows: number;
  /** XLSX: cells the file holds no value for (formulas saved without one), by reference and why. */
  unread: UnreadCell[];
  /** How many such cells in all (`unread` lists the first ones). */
  unreadCount: number;
  /** XLSX: what writing the workbook back needs (the file as it came, the sheet's part). */
  workbook?: WorkbookSource;
}

/** The workbook as it came, for writing it back in its own format (xlsx-write.ts). */
export interface WorkbookSource {
  data: Uint8Array;
  inflateRaw: InflateRaw;
  /** The chosen sheet's part name, e.g. `xl/worksheets/sheet1.xml`. */
  sheetPart: string;
  /** Dates count from 1904, not 1900. */
  date1904: boolean;
  /** Per sheet row (index i is row i + 1): one past its last cell element, empty styled cells counted. */
  extents: number[];
}

function decode(data: string | Uint8Array): { text: string; info: TableText } {
  if (typeof data === 'string')
    return {
      text: data.replace(/^\uFEFF/, ''),
      info: {
        encoding: 'utf-8',
        bom: data.charCodeAt(0) === 0xfeff,
        guessed: false,
        sepLine: false,
        ...lineEnds(data),
      },
    };
  const d = decodeText(data);
  return {
    text: d.text,
    info: { encoding: d.encoding, bom: d.bom, guessed: d.guessed, sepLine: false, ...lineEnds(d.text) },
  };
}

/** The first line break outside quotes, and whether the text ends with one. */
function lineEnds(text: string): Pick<TableText, 'lineEnd' | 'finalLineEnd'> {
  let quoted = false;
  let lineEnd: TableText['lineEnd'] = '\r\n';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) quoted = !quoted;
    else if (!quoted && (c === 10 || c === 13)) {
      lineEnd = c === 10 ? '\n' : text.charCodeAt(i + 1) === 10 ? '\r\n' : '\r';
      break;
    }
  }
  return { lineEnd, finalLineEnd: /[\r\n]$/.test(text) };
}

/** How many of the first non-empty rows are looked through for the header. */
const HEADER_SEARCH = 30;

const isEmpty = (fields: readonly string[]): boolean => fields.every((f) => f.trim() === '');

/**
 * The header's index among the records: the row chosen, else the first non-empty row unless a title
 * stands above the real header. Within the first non-empty rows, the header is the first row that holds
 * the column asked for by name, else the first with a cell naming an address column ("Email"), else the
 * non-empty row right above the first row holding an address. A sheet none of that fits keeps its
 * first non-empty row, as before.
 */
function findHeader(records: DelimitedRecord[], chosen: number | undefined, column?: string): number {
  if (chosen !== undefined) {
    if (!Number.isInteger(chosen) || chosen < 1) {
      throw new InputError(
        'header_row',
        'invalid',
        `Header Row must be a row number (1 is the first row); got ${String(chosen).slice(0, 20)}. Nothing was sent or charged.`,
      );
    }
    if (chosen > records.length) {
      throw new InputError(
        'header_row',
        'not_found',
        `Header Row ${chosen} is past the end of the sheet, which holds ${records.length} rows. Leave Header Row empty to find the header, or give the row number the spreadsheet shows. Nothing was sent or charged.`,
      );
    }
    return chosen - 1;
  }
  const first = records.findIndex((r) => !isEmpty(r.fields));
  if (first < 0) return -1;
  const rows: number[] = [];
  for (let i = first; i < records.length && rows.length < HEADER_SEARCH; i++)
    if (!isEmpty(records[i]!.fields)) rows.push(i);
  const wanted = column?.trim();
  if (wanted && columnIndex(wanted) === undefined) {
    const named = rows.find((i) => records[i]!.fields.some((f) => normalise(f) === normalise(wanted)));
    if (named !== undefined) return named;
  }
  const headed = rows.find((i) => records[i]!.fields.some(isEmailHeader));
  if (headed !== undefined) return headed;
  for (let k = 0; k < rows.length; k++) {
    if (records[rows[k]!]!.fields.some((f) => isEmailSyntaxValid(f.trim()))) return rows[Math.max(0, k - 1)]!;
  }
  return first;
}

/** A record that is one empty field: an empty line. */
const isLastLineEmpty = (r: DelimitedRecord): boolean =>
  !r.broken && r.fields.length === 1 && r.fields[0] === '';

/** Excel's first line `sep=;` names the delimiter; it is not a row. */
function sepLineOf(text: string): { delimiter: Delimiter; rest: string } | undefined {
  const m = /^sep=(.)(\r\n|\n|\r|$)/.exec(text);
  if (!m || !(DELIMITERS as readonly string[]).includes(m[1]!)) return undefined;
  return { delimiter: m[1] as Delimiter, rest: text.slice(m[0].length) };
}

const extensionOf = (name: string | undefined): string | undefined =>
  name?.toLowerCase().match(/\.([a-z0-9]+)(?:\?.*)?$/)?.[1];

function formatOf(data: string | Uint8Array, options: ReadTableOptions): TableFormat {
  if (options.format) return options.format;
  const ext = extensionOf(options.fileName);
  if (ext === 'xlsx' || ext === 'tsv' || ext === 'csv') return ext;
  if (typeof data !== 'string' && (isZip(data) || isCompoundFile(data))) return 'xlsx';
  if (ext === 'xls' || ext === 'ods' || ext === 'numbers') {
    throw new InputError(
      'file',
      'format',
      `"${options.fileName}" is a .${ext} file, which is not read here. Save it as CSV, TSV or XLSX (with a header row) and use that file. Nothing was sent or charged.`,
    );
  }
  return 'csv';
}

/**
 * Reads a table file (CSV, TSV, or one sheet of an XLSX) with a header row and takes the address
 * column out of it, keeping every row so results can be written back beside it. What it returns goes
 * to the client's pre-flight (`emails`), which reports malformed and duplicate addresses: this only
 * says which rows gave no address at all. The rules it holds, each where its code is:
 * - the column: by header name or letter, else found from the header or content (columns.ts);
 * - text: the encoding told from the bytes, and said when guessed (encoding.ts); Excel's `sep=` line;
 * - XLSX: the first visible sheet or `sheet` by name or position, cells as the spreadsheet shows them
 *   (xlsx.ts, number-format.ts); it needs the injected `inflateRaw` (node:zlib's inflateRawSync, which
 *   takes the unpacking cap);
 * - cost: rows, columns, cells and unpacked bytes capped while reading (limits.ts).
 */
export function readTable(data: string | Uint8Array, options: ReadTableOptions = {}): TableList {
  const format = formatOf(data, options);
  let records: DelimitedRecord[];
  let delimiter: Delimiter | undefined;
  let text: TableText | undefined;
  let sheet: SheetInfo | undefined;
  let sheets: SheetInfo[] | undefined;
  let unread: UnreadCell[] = [];
  let unreadCount = 0;
  let workbook: WorkbookSource | undefined;
  const limits: TableLimits = { ...DEFAULT_LIMITS, ...options.limits };
  if (format === 'xlsx') {
    if (typeof data === 'string') {
      throw new InputError(
        'file',
        'format',
        'An XLSX file must be given as bytes, not text. Nothing was sent or charged.',
      );
    }
    if (!options.inflateRaw) {
      throw new InputError(
        'file',
        'format',
        'XLSX files cannot be read here; save the sheet as CSV and use that file. Nothing was sent or charged.',
      );
    }
    const book = readXlsx(data, options.inflateRaw, options.sheet, limits);
    records = book.rows.map((fields) => ({ fields }));
    sheet = book.sheet;
    sheets = book.sheets;
    unread = book.unread;
    unreadCount = book.unreadCount;
    workbook = {
      data,
      inflateRaw: options.inflateRaw,
      sheetPart: book.sheetPart,
      date1904: book.date1904,
      extents: book.extents,
    };
  } else {
    const decoded = decode(data);
    text = decoded.info;
    let body = decoded.text;
    const sep = sepLineOf(body);
    if (sep) {
      body = sep.rest;
      text.sepLine = true;
    }
    const parsed = parseDelimited(body, sep?.delimiter ?? (format === 'tsv' ? '\t' : undefined), limits);
    records = parsed.records;
    delimiter = parsed.delimiter;
    // An empty line at the end is the end of the file, not a row (a spreadsheet shows none).
    while (records.length && isLastLineEmpty(records[records.length - 1]!)) records.pop();
  }
  // Said of a workbook: which sheet was read, the others it has, and the field that picks one.
  const whichSheet = (): string =>
    sheet && sheets
      ? ` This is sheet "${sheet.name}" of the workbook; its sheets are: ${sheets
          .map((s, i) => `${i + 1} "${s.name}"${s.hidden ? ' (hidden)' : ''}`)
          .join(', ')}. To read another, name it (or its position) in the Sheet field.`
      : '';
  const inSheet = (error: InputError): InputError =>
    sheets && sheets.length > 1
      ? new InputError('sheet', error.rule, `${error.message}${whichSheet()}`)
      : error;
  const headerAt = findHeader(records, options.headerRow, options.column);
  if (headerAt < 0) {
    throw inSheet(
      new InputError(
        'file',
        'empty',
        'The file holds no rows: it needs a header row, then one row per address. Nothing was sent or charged.',
      ),
    );
  }
  // Kept as written, so it is written back unchanged; names are compared trimmed.
  const header = records[headerAt]!.fields;
  const dataRecords = records.slice(headerAt + 1);
  const rows = dataRecords.map((r) => r.fields);
  if (rows.length === 0) {
    throw inSheet(
      new InputError(
        'file',
        'empty',
        `The file has a header row (row ${headerAt + 1}) but no rows under it. Nothing was sent or charged.`,
      ),
    );
  }
  let column: ChosenColumn;
  try {
    column = chooseColumn(header, rows, options.column);
  } catch (error) {
    throw error instanceof InputError ? inSheet(error) : error;
  }
  if (isEmailSyntaxValid(column.name)) {
    throw new InputError(
      'file',
      'header',
      `The first row holds an address ("${column.name.slice(0, 60)}") where a header is expected. Add a header row (e.g. "Email") above the addresses. Nothing was sent or charged.`,
    );
  }
  const firstDataRow = headerAt + 2;
  const emails: string[] = new Array<string>(rows.length);
  const unusable: UnusableRow[] = [];
  let blankRows = 0;
  const columnName = column.name ? `"${column.name}"` : `column ${column.letter}`;
  // Address cells the file holds no value for: their rows say so, never read as a blank cell.
  const unreadAddress = new Map<number, UnreadCell>();
  for (const u of unread) {
    const m = /^([A-Z]+)(\d+)$/.exec(u.cell);
    if (m && m[1] === column.letter) unreadAddress.set(Number(m[2]), u);
  }
  for (let i = 0; i < rows.length; i++) {
    const record = dataRecords[i]!;
    const cell = (record.fields[column.index] ?? '').trim();
    emails[i] = '';
    const noValue = unreadAddress.get(firstDataRow + i);
    if (noValue && cell === '') {
      unusable.push({ row: firstDataRow + i, reason: `${noValue.cell} holds ${noValue.reason}` });
    } else if (record.broken) {
      unusable.push({
        row: firstDataRow + i,
        reason: `${record.broken}, so the row could not be read (fix the quotes and submit it again)`,
      });
    } else if (cell !== '') {
      emails[i] = cell;
    } else if (record.fields.every((f) => f.trim() === '')) {
      blankRows++;
    } else {
      unusable.push({ row: firstDataRow + i, reason: `no address in ${columnName}` });
    }
  }
  // Excel shows no row for a `sep=` line, so the numbering starts under it.
  return {
    format,
    extension: extensionOf(options.fileName),
    delimiter,
    text,
    sheet,
    sheets,
    header,
    headerRow: headerAt + 1,
    above: records.slice(0, headerAt).map((r) => r.fields),
    column,
    rows,
    emails,
    unusable,
    blankRows,
    unread,
    unreadCount,
    workbook,
  };
}
