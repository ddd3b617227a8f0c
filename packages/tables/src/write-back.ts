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

export interface WriteBackOptions {
  /** Why rows without a verdict have none, for their Reason cell (e.g. the job failed part way). */
  notVerifiedReason?: string;
  /** Default: the delimiter the file came with (a comma for XLSX). */
  delimiter?: Delimiter;
}

export interface WrittenBack {
  /** The user's table with the result columns added, as RFC 4180 text. */
  text: string;
  /** The text as the file to save: in the encoding the file came in, or UTF-8 with a byte order mark. */
  bytes: Uint8Array;
  encoding: TextEncoding;
  bom: boolean;
  /** The source file's encoding was told from its bytes (no byte order mark said it). */
  encodingGuessed: boolean;
  /** One sentence for the user: the encoding written and why. */
  encodingNote: string;
  counts: WriteBackCounts;
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
 * The user's table with every row's answer beside it (rowVerdicts): every data row is written once, in
 * the order read.
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
  // Every row's results start in the same column: past the header, and past any row wider than it.
  let width = table.header.length;
  for (const r of table.rows) if (r.length > width) width = r.length;
  const header =
    table.header.length < width
      ? [...table.header, ...new Array<string>(width - table.header.length).fill('')]
      : table.header;
  const delimiter = options.delimiter ?? table.delimiter ?? ',';
  // Written line by line: 50,000 rows as arrays of arrays first would mostly keep the garbage collector busy.
  const lines: string[] = table.text?.sepLine ? [`sep=${delimiter}`] : [];
  // Empty rows above the header stay, so every row keeps the number the user knows it by.
  const empty = writeRecord(new Array<string>(width + RESULT_COLUMNS.length).fill(''), delimiter);
  for (let k = 1; k < table.headerRow; k++) lines.push(empty);
  lines.push(writeRecord([...header, ...RESULT_COLUMNS], delimiter));
  for (let i = 0; i < table.rows.length; i++) {
    const cells =
      table.rows[i]!.length >= width
        ? table.rows[i]!.slice()
        : [...table.rows[i]!, ...new Array<string>(width - table.rows[i]!.length).fill('')];
    cells.push(...verdicts.cellsOf(i));
    lines.push(writeRecord(cells, delimiter));
  }
  const text = `${lines.join('\r\n')}\r\n`;
  const out = outputEncoding(table, text);
  return {
    text,
    bytes: encodeText(text, out.encoding, out.bom),
    encoding: out.encoding,
    bom: out.bom,
    encodingGuessed: table.text?.guessed ?? false,
    encodingNote: out.note,
    counts: verdicts.counts,
  };
}

/** The spreadsheet row number of data row `index`. */
export function rowNumberOf(table: TableList, index: number): number {
  return table.headerRow + 1 + index;
}
