/**
 * Delimited text (CSV, TSV) as RFC 4180 describes it, read the way spreadsheet programs read it: quoted
 * fields may hold delimiters, quotes ("" inside quotes) and line breaks; records end at CRLF, LF or a
 * lone CR; a byte order mark is dropped. Exports from real tools break the RFC in small ways (a quote
 * inside an unquoted field, text after a closing quote): those characters are kept as written, like
 * Google Sheets and Excel do. A quote that never closes would swallow the rest of the file, so that one
 * record is reported as broken and reading goes on at the next line.
 */

/** The delimiters told apart when none is given, in the order a tie is broken. */
export const DELIMITERS = [',', '\t', ';', '|'] as const;
export type Delimiter = (typeof DELIMITERS)[number];

export interface DelimitedRecord {
  fields: string[];
  /** Set when the record's quoting was broken: its fields are not what the file meant. */
  broken?: string;
}

export interface DelimitedText {
  records: DelimitedRecord[];
  delimiter: Delimiter;
}

import { tooLarge, type TableLimits } from './limits';

const QUOTE = 34;
const CR = 13;
const LF = 10;

/** Reads records starting at `start`; `literalQuote` is a position whose quote is read as a plain character. */
function readRecord(
  text: string,
  start: number,
  delim: number,
  literalQuote: number,
  maxFields = Infinity,
): { fields: string[]; next: number; unclosedAt?: number } {
  const fields: string[] = [];
  let i = start;
  const n = text.length;
  for (;;) {
    // One field.
    let value = '';
    if (i < n && text.charCodeAt(i) === QUOTE && i !== literalQuote) {
      const opened = i;
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        if (q < 0) return { fields, next: n, unclosedAt: opened };
        value += text.slice(i, q);
        if (text.charCodeAt(q + 1) === QUOTE) {
          value += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      // Text after the closing quote, up to the delimiter, is kept as written (spreadsheets do the same).
      const from = i;
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c === delim || c === CR || c === LF) break;
        i++;
      }
      value += text.slice(from, i);
    } else {
      const from = i;
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c === delim || c === CR || c === LF) break;
        i++;
      }
      value = text.slice(from, i);
    }
    fields.push(value);
    if (fields.length > maxFields) throw tooLarge('columns', maxFields);
    if (i >= n) return { fields, next: n };
    const c = text.charCodeAt(i);
    if (c === delim) {
      i++;
      continue;
    }
    // End of record: CRLF, LF or a lone CR.
    i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    return { fields, next: i };
  }
}

function endOfLine(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === LF) return i + 1;
    if (c === CR) return text.charCodeAt(i + 1) === LF ? i + 2 : i + 1;
  }
  return text.length;
}

function parseWith(
  text: string,
  delimiter: Delimiter,
  maxRecords = Infinity,
  limits?: TableLimits,
): DelimitedRecord[] {
  const delim = delimiter.charCodeAt(0);
  const records: DelimitedRecord[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let cells = 0;
  while (i < text.length && records.length < maxRecords) {
    const read = readRecord(text, i, delim, -1, limits?.maxColumns);
    if (limits) {
      // Checked record by record, so a file of a million delimiters is refused before it is all held.
      if (records.length >= limits.maxRows) throw tooLarge('rows', limits.maxRows);
      if (read.fields.length > limits.maxColumns) throw tooLarge('columns', limits.maxColumns);
      cells += read.fields.length;
      if (cells > limits.maxCells) throw tooLarge('cells', limits.maxCells);
    }
    if (read.unclosedAt === undefined) {
      records.push({ fields: read.fields });
      i = read.next;
      continue;
    }
    // The quote never closes: read this record again with that quote as a plain character, up to the
    // end of its line at most, and mark it broken. The next records are read normally.
    const lineEnd = endOfLine(text, read.unclosedAt);
    const again = readRecord(text.slice(0, lineEnd), i, delim, read.unclosedAt);
    records.push({ fields: again.fields, broken: 'a quote in this row is never closed' });
    i = lineEnd;
  }
  return records;
}

/**
 * Guesses the delimiter from the first records: the candidate that splits the header into the most
 * fields with the most later records agreeing. A file with one column (a plain list) reads with any of
 * them; a comma is then assumed.
 */
export function detectDelimiter(text: string): Delimiter {
  const sample = text.length > 65_536 ? text.slice(0, endOfLine(text, 65_536)) : text;
  let best: Delimiter = ',';
  let bestScore = [0, 0];
  for (const candidate of DELIMITERS) {
    const records = parseWith(sample, candidate, 50).filter((r) => !r.broken);
    const width = records[0]?.fields.length ?? 0;
    if (width < 2) continue;
    const agreeing = records.filter((r) => r.fields.length === width).length;
    const score = [agreeing, width];
    if (score[0]! > bestScore[0]! || (score[0] === bestScore[0] && score[1]! > bestScore[1]!)) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

/** Reads delimited text; without a delimiter, it is detected. A last line break ends the last record. */
export function parseDelimited(text: string, delimiter?: Delimiter, limits?: TableLimits): DelimitedText {
  const chosen = delimiter ?? detectDelimiter(text);
  return { records: parseWith(text, chosen, Infinity, limits), delimiter: chosen };
}

/** A field as RFC 4180 writes it: quoted when it holds the delimiter, a quote or a line break. */
function writeField(value: string, delimiter: string): string {
  if (value.includes(delimiter) || /["\r\n]/.test(value)) return `"${value.replace(/"/g, '""')}"`;
  return value;
}

/**
 * Writes records as RFC 4180 text (CRLF between records). A record of one empty field is written as
 * `""` so that it reads back as a record, not as a blank line.
 */
export function writeDelimited(records: readonly (readonly string[])[], delimiter: Delimiter = ','): string {
  const lines: string[] = [];
  for (const fields of records) lines.push(writeRecord(fields, delimiter));
  return lines.length ? `${lines.join('\r\n')}\r\n` : '';
}

/** One record as a line (without its line break), as writeDelimited writes it. */
export function writeRecord(fields: readonly string[], delimiter: Delimiter = ','): string {
  if (fields.length === 1 && fields[0] === '') return '""';
  let line = '';
  for (let k = 0; k < fields.length; k++) line += (k ? delimiter : '') + writeField(fields[k]!, delimiter);
  return line;
}
