/** Tables users keep their lists in (CSV, TSV, XLSX): read with a header row, and written back with results. */
export { readTable } from './read-table';
export type { TableList, TableFormat, ReadTableOptions, UnusableRow, TableText } from './read-table';
export { DEFAULT_LIMITS } from './limits';
export type { TableLimits } from './limits';
export type { TextEncoding } from './encoding';
export type { SheetInfo } from './xlsx';
export { parseDelimited, writeDelimited, detectDelimiter, DELIMITERS } from './delimited';
export type { Delimiter, DelimitedRecord, DelimitedText } from './delimited';
export { chooseColumn, columnLetter, columnIndex } from './columns';
export type { ChosenColumn } from './columns';
export { readXlsxFirstSheet } from './xlsx';
export type { InflateRaw } from './xlsx';
export { writeBackTable, rowNumberOf, ANSWERED_AT_COLUMN } from './write-back';
export type { WriteBackOptions, WrittenBack, WrittenFormat } from './write-back';
export type { DeflateRaw } from './zip-write';
export type { UnreadCell } from './xlsx';
export type { WorkbookSource } from './read-table';
export { downloadedFileName } from './file-name';
