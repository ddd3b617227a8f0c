import { InputError } from '../errors';
import { isEmailSyntaxValid } from '../validation/email';
import { chooseColumn, type ChosenColumn } from './columns';
import { parseDelimited, type Delimiter, type DelimitedRecord } from './delimited';
import { isZip, readXlsxSheet, type InflateRaw } from './xlsx';

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
  /** Used to guess the format when none is given. */
  fileName?: string;
  /**
   * Raw DEFLATE decompression (node:zlib's inflateRawSync), needed for XLSX only. Injected, so the
   * client itself imports nothing platform-specific.
   */
  inflateRaw?: InflateRaw;
}

/** A data row that gives no address to verify, and why. Rows are numbered as a spreadsheet shows them: the header is row 1. */
export interface UnusableRow {
  row: number;
  reason: string;
}

export interface TableList {
  format: TableFormat;
  delimiter?: Delimiter;
  header: string[];
  /** The header's row number as the spreadsheet shows it (1 unless rows above it were empty). */
  headerRow: number;
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
}

function decode(data: string | Uint8Array): string {
  if (typeof data === 'string') return data;
  // Excel's "Unicode text" export is UTF-16 little-endian with a byte order mark.
  if (data[0] === 0xff && data[1] === 0xfe) return new TextDecoder('utf-16le').decode(data.subarray(2));
  if (data[0] === 0xfe && data[1] === 0xff) return new TextDecoder('utf-16be').decode(data.subarray(2));
  return new TextDecoder('utf-8').decode(data);
}

function formatOf(data: string | Uint8Array, options: ReadTableOptions): TableFormat {
  if (options.format) return options.format;
  const ext = options.fileName?.toLowerCase().match(/\.([a-z0-9]+)(?:\?.*)?$/)?.[1];
  if (ext === 'xlsx' || ext === 'tsv' || ext === 'csv') return ext;
  if (typeof data !== 'string' && isZip(data)) return 'xlsx';
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
 * Reads a table file (CSV, TSV, or the first sheet of an XLSX) with a header row and takes the address
 * column out of it, keeping every row so results can be written back beside it. What it returns goes
 * to the client's pre-flight (`emails`), which reports malformed and duplicate addresses: this only
 * says which rows gave no address at all.
 */
export function readTable(data: string | Uint8Array, options: ReadTableOptions = {}): TableList {
  const format = formatOf(data, options);
  let records: DelimitedRecord[];
  let delimiter: Delimiter | undefined;
  if (format === 'xlsx') {
    if (typeof data === 'string') {
      throw new InputError('file', 'format', 'An XLSX file must be given as bytes, not text. Nothing was sent or charged.');
    }
    if (!options.inflateRaw) {
      throw new InputError('file', 'format', 'XLSX files cannot be read here; save the sheet as CSV and use that file. Nothing was sent or charged.');
    }
    records = readXlsxSheet(data, options.inflateRaw, options.sheet).map((fields) => ({ fields }));
  } else {
    const parsed = parseDelimited(decode(data), format === 'tsv' ? '\t' : undefined);
    records = parsed.records;
    delimiter = parsed.delimiter;
  }
  const headerAt = records.findIndex((r) => r.fields.some((f) => f.trim() !== ''));
  if (headerAt < 0) {
    throw new InputError('file', 'empty', 'The file holds no rows: it needs a header row, then one row per address. Nothing was sent or charged.');
  }
  const header = records[headerAt]!.fields.map((f) => f.trim());
  const dataRecords = records.slice(headerAt + 1);
  const rows = dataRecords.map((r) => r.fields);
  if (rows.length === 0) {
    throw new InputError('file', 'empty', 'The file has a header row but no rows under it. Nothing was sent or charged.');
  }
  const column = chooseColumn(header, rows, options.column);
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
  for (let i = 0; i < rows.length; i++) {
    const record = dataRecords[i]!;
    const cell = (record.fields[column.index] ?? '').trim();
    emails[i] = '';
    if (record.broken) {
      unusable.push({ row: firstDataRow + i, reason: `${record.broken}, so the row could not be read (fix the quotes and submit it again)` });
    } else if (cell !== '') {
      emails[i] = cell;
    } else if (record.fields.every((f) => f.trim() === '')) {
      blankRows++;
    } else {
      unusable.push({ row: firstDataRow + i, reason: `no address in ${columnName}` });
    }
  }
  return { format, delimiter, header, headerRow: headerAt + 1, column, rows, emails, unusable, blankRows };
}
