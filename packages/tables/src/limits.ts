import { InputError } from '@evf/client';

/** What reading may cost: every limit is checked while reading, before the memory is spent. */
export interface TableLimits {
  /** Bytes unpacked from an XLSX, all parts together (default 64 MiB: a 50,000-row, 6-column sheet is 16 MB). */
  maxUnpackedBytes: number;
  /** Rows, the header and blank rows included (default 1,048,576: Excel's sheet). */
  maxRows: number;
  /** Columns (default 16,384: Excel's sheet, XFD). */
  maxColumns: number;
  /**
   * Cells, counting each row to its last non-empty cell (default 3,000,000: 50,000 rows of 60
   * columns). With the 64 MiB cap, the densest file a reader can be given (a 0.26 MB XLSX of 4
   * million one-digit cells, or 60 MB of CSV) peaks near 315 MiB before it is refused (npm run bench).
   */
  maxCells: number;
}

export const DEFAULT_LIMITS: TableLimits = {
  maxUnpackedBytes: 64 * 2 ** 20,
  maxRows: 1_048_576,
  maxColumns: 16_384,
  maxCells: 3_000_000,
};

export function tooLarge(what: string, limit: number): InputError {
  return new InputError(
    'file',
    'size',
    `The file has more than ${limit.toLocaleString('en-US')} ${what}, more than this step reads. Split the list into smaller files (or remove the extra ${what}) and use those. Nothing was sent or charged.`,
  );
}
