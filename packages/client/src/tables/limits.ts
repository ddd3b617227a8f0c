import { InputError } from '../errors';

/** What reading may cost: every limit is checked while reading, before the memory is spent. */
export interface TableLimits {
  /** Bytes unpacked from an XLSX, all parts together (default 128 MiB: a 50,000-row sheet is a few MB). */
  maxUnpackedBytes: number;
  /** Rows, the header and blank rows included (default 1,048,576: Excel's sheet). */
  maxRows: number;
  /** Columns (default 16,384: Excel's sheet, XFD). */
  maxColumns: number;
  /** Cells, counting each row to its last non-empty cell (default 10,000,000). */
  maxCells: number;
}

export const DEFAULT_LIMITS: TableLimits = { maxUnpackedBytes: 128 * 2 ** 20, maxRows: 1_048_576, maxColumns: 16_384, maxCells: 10_000_000 };

export function tooLarge(what: string, limit: number): InputError {
  return new InputError(
    'file',
    'size',
    `The file has more than ${limit.toLocaleString('en-US')} ${what}, more than this step reads. Split the list into smaller files (or remove the extra ${what}) and use those. Nothing was sent or charged.`,
  );
}
