import {
  rowVerdicts,
  RESULT_COLUMNS,
  type PreflightReport,
  type ResultRow,
  type WriteBackCounts,
} from '@evf/client';
import type { TableList } from './read-table';
import { writeRecord, type Delimiter } from './delimited';
import { encodeText, fitsWindows1252, type TextEncoding } from './encoding';
import { writeWorkbookBack, type NewCell } from './xlsx-write';
import type { DeflateRaw } from './zip-write';

/** The column written after RESULT_COLUMNS in a file: when the row's answer was made (UTC). */
export const ANSWERED_AT_COLUMN = 'Verified At (UTC)';

export interface WriteBackOptions {
  /** Why rows without a verdict have none, for their Reason cell (e.g. the job failed part way). */
  notVerifiedReason?: string;
  /** Text files: default, the delimiter the file came with. */
  delimiter?: Delimiter;
  /**
   * When a row's answer was made (ISO 8601): a time for every answer (the job's end), or one per answer.
   * Default: the answer's own `processed_at` when it has one. A row without a time has an empty cell.
   */
  answeredAt?: string | ((answer: ResultRow) => string | undefined);
  /**
   * XLSX: raw DEFLATE compression for the two parts rewritten (node:zlib's deflateRawSync, passed as it
   * is); without it they are stored uncompressed, which every reader opens but is larger.
   */
  deflateRaw?: DeflateRaw;
}

/** The file written: its own format (XLSX in, XLSX out; text in, text out). */
export type WrittenFormat = 'xlsx' | 'csv' | 'tsv' | 'txt';

const MIME_TYPES: Record<WrittenFormat, string> = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  txt: 'text/plain',
};

export interface WrittenBack {
  /** What the file is, and so its extension (`.xlsx`, `.csv`, `.tsv`, `.txt`) and media type. */
  format: WrittenFormat;
  mimeType: string;
  /** Text files: the table with the result columns added, as RFC 4180 text. */
  text?: string;
  /** The file to save: the workbook, or the text in the encoding the file came in (or UTF-8 with a byte order mark). */
  bytes: Uint8Array;
  /** Text files: the encoding written, and whether with a byte order mark. */
  encoding?: TextEncoding;
  bom?: boolean;
  /** The source file's encoding was told from its bytes (no byte order mark said it). */
  encodingGuessed: boolean;
  /** One sentence for the user: how the file was written (the encoding, or the workbook kept) and why. */
  encodingNote: string;
  /** What the user should know about the file's cells (values the file does not hold), in sentences. */
  notes: string[];
  counts: WriteBackCounts;
}

/**
 * An added cell as text no spreadsheet reads as a formula: one that begins with `=`, `+`, `-`, `@` or a
 * tab gets a leading apostrophe (OWASP's advice for CSV injection). The user's own cells are written as
 * they came: the file held them so.
 */
function inert(cell: string): string {
  const c = cell.charCodeAt(0);
  return c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === 13 ? `'${cell}` : cell;
}

/** The format a table is written back in, from what it was read as and the name it came with. */
function writtenFormat(table: TableList): WrittenFormat {
  if (table.format === 'xlsx') return 'xlsx';
  if ((table.delimiter ?? ',') !== '\t') return 'csv';
  // Excel's "Unicode Text" is tab-delimited UTF-16 named .txt: kept .txt; any other tab file is a TSV.
  return table.extension === 'txt' ? 'txt' : 'tsv';
}

/** Cells the file holds no value for, in one sentence, or nothing. */
function unreadNote(table: TableList): string[] {
  if (!table.unreadCount) return [];
  const shown = table.unread.slice(0, 10).map((u) => u.cell);
  const more = table.unreadCount - shown.length;
  const reasons = [...new Set(table.unread.map((u) => u.reason))].join('; or ');
  return [
    `${table.unreadCount} cell(s) of the sheet could not be read: ${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}. Each holds ${reasons}.`,
  ];
}

/** When each answer was made, as the option says, else its own processed_at. */
function answerTime(options: WriteBackOptions): (answer: ResultRow | undefined) => Date | undefined {
  const given = options.answeredAt;
  return (answer) => {
    if (!answer) return undefined;
    const iso =
      typeof given === 'function'
        ? given(answer)
        : (given ?? (answer as { processed_at?: unknown }).processed_at);
    if (typeof iso !== 'string') return undefined;
    const ms = Date.parse(iso);
    return Number.isNaN(ms) ? undefined : new Date(ms);
  };
}

/**
 * The encoding to write back in: the one the file came in, so the program that made it opens the
 * results the same way. UTF-8 with a byte order mark: Excel recognises UTF-8 only by it and otherwise
 * reads the Windows code page ("MÃ¼ller"; hilton.org.uk/blog/csv-excel). Beside Excel's `sep=` line a
 * UTF-8 file is kept as it came, since Excel is widely reported to show that line as a row when a mark
 * precedes it (reported, not checked here). UTF-16 with its mark. XLSX, and text given as a string,
 * as UTF-8 with a mark. Windows-1252 unless the results hold a character it has not (then UTF-8).
 */
function outputEncoding(
  table: TableList,
  text: string,
): { encoding: TextEncoding; bom: boolean; note: string } {
  const source = table.text;
  const guessed = source?.guessed ? ' (told from its bytes: the file has no byte order mark)' : '';
  if (!source)
    return {
      encoding: 'utf-8',
      bom: true,
      note: 'Written as UTF-8 with a byte order mark, which Excel and Google Sheets both open with accents intact.',
    };
  if (source.encoding === 'windows-1252') {
    if (fitsWindows1252(text))
      return {
        encoding: 'windows-1252',
        bom: false,
        note: `Written in Windows-1252, the encoding the file came in${guessed}.`,
      };
    return {
      encoding: 'utf-8',
      bom: true,
      note: `The file came in Windows-1252${guessed}, but the results hold characters it cannot store, so they are written as UTF-8 with a byte order mark.`,
    };
  }
  if (source.encoding === 'utf-8') {
    const bom = source.bom || !source.sepLine;
    return {
      encoding: 'utf-8',
      bom,
      note: `Written as UTF-8${bom ? ' with a byte order mark, so Excel shows accented names right' : ' without a byte order mark, as it came, so Excel still reads its sep= line'}${guessed}.`,
    };
  }
  return {
    encoding: source.encoding,
    bom: true,
    note: `Written in ${source.encoding.toUpperCase()} with a byte order mark, the encoding the file came in${guessed}.`,
  };
}

/**
 * The user's table with every row's answer beside it (rowVerdicts), in the file's own format: a workbook
 * comes back as the same workbook with the result columns added to its sheet (xlsx-write.ts); a text
 * file as text in its encoding, delimiter and line breaks, the rows above the header as they were.
 * Every data row is written once, in the order read, with the time its answer was made.
 */
export function writeBackTable(
  table: TableList,
  preflight: PreflightReport,
  results: Iterable<ResultRow>,
  options: WriteBackOptions = {},
): WrittenBack {
  const rowCount = table.rows.length;
  const unusable = new Map<number, string>();
  const firstDataRow = table.headerRow + 1;
  for (const u of table.unusable) unusable.set(u.row - firstDataRow, u.reason);
  const verdicts = rowVerdicts(preflight, results, rowCount, {
    notVerifiedReason: options.notVerifiedReason,
    unusable,
    rowName: (index) => rowNumberOf(table, index),
  });
  const timeOf = answerTime(options);
  const format = writtenFormat(table);
  const notes = unreadNote(table);
  // Every row's results start in the same column: past the header, and past any row wider than it.
  let width = table.header.length;
  for (const r of table.rows) if (r.length > width) width = r.length;
  const columns = [...RESULT_COLUMNS, ANSWERED_AT_COLUMN];
  if (format === 'xlsx' && table.workbook) {
    // Past every cell element of the header and data rows, empty styled ones too: cells stay in order.
    const extents = table.workbook.extents;
    for (let r = table.headerRow - 1; r < extents.length; r++) if (extents[r]! > width) width = extents[r]!;
    const bytes = writeWorkbookBack(
      table.workbook,
      {
        headerRow: table.headerRow,
        firstColumn: width,
        header: columns,
        rowCount,
        cellsOf: (i): NewCell[] => {
          const cells: NewCell[] = verdicts.cellsOf(i);
          // Safe to Send as a boolean cell, as a spreadsheet types TRUE and FALSE.
          if (cells[2] === 'TRUE' || cells[2] === 'FALSE') cells[2] = cells[2] === 'TRUE';
          cells.push(timeOf(verdicts.answerOf(i)));
          return cells;
        },
      },
      options.deflateRaw,
    );
    return {
      format,
      mimeType: MIME_TYPES[format],
      bytes,
      encodingGuessed: false,
      encodingNote: `Written as the same workbook: sheet "${table.sheet?.name ?? ''}" has the result columns added, and every other sheet, style and formula is as it came.`,
      notes,
      counts: verdicts.counts,
    };
  }
  const header =
    table.header.length < width
      ? [...table.header, ...new Array<string>(width - table.header.length).fill('')]
      : table.header;
  const delimiter = options.delimiter ?? table.delimiter ?? ',';
  const lineEnd = table.text?.lineEnd ?? '\r\n';
  // Written line by line: 50,000 rows as arrays of arrays first would mostly keep the garbage collector busy.
  const lines: string[] = table.text?.sepLine ? [`sep=${delimiter}`] : [];
  // The rows above the header (titles, empty rows) stay as they were, so every row keeps its number.
  for (const row of table.above)
    lines.push(row.length === 1 && row[0] === '' ? '' : writeRecord(row, delimiter));
  lines.push(writeRecord([...header, ...columns], delimiter));
  for (let i = 0; i < table.rows.length; i++) {
    const cells =
      table.rows[i]!.length >= width
        ? table.rows[i]!.slice()
        : [...table.rows[i]!, ...new Array<string>(width - table.rows[i]!.length).fill('')];
    for (const cell of verdicts.cellsOf(i)) cells.push(inert(cell));
    const at = timeOf(verdicts.answerOf(i));
    cells.push(at ? at.toISOString().replace(/\.\d{3}Z$/, 'Z') : '');
    lines.push(writeRecord(cells, delimiter));
  }
  const text = `${lines.join(lineEnd)}${table.text?.finalLineEnd === false ? '' : lineEnd}`;
  const out = outputEncoding(table, text);
  return {
    format,
    mimeType: MIME_TYPES[format],
    text,
    bytes: encodeText(text, out.encoding, out.bom),
    encoding: out.encoding,
    bom: out.bom,
    encodingGuessed: table.text?.guessed ?? false,
    encodingNote: out.note,
    notes,
    counts: verdicts.counts,
  };
}

/** The spreadsheet row number of data row `index`. */
export function rowNumberOf(table: TableList, index: number): number {
  return table.headerRow + 1 + index;
}
