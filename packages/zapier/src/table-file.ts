import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { InputError, type PreflightReport, type ResultRow } from '@evf/client';
import {
  downloadedFileName,
  readTable,
  writeBackTable,
  type TableList,
  type WriteBackOptions,
  type WrittenBack,
  type WrittenFormat,
} from '@evf/tables';
import type { ZObject } from 'zapier-platform-core';
import { optionalString } from './fields/coerce';

/**
 * Zapier hands a file field to the app as a URL and the app downloads it ("Files are referenced by URL
 * and fetched as needed by the receiving action", Zapier's operating constraints); Zapier warns that
 * files past about 100 MB can kill the step ("Hydration/dehydration limits"), so larger ones are refused
 * with a way out. A 50,000-row export is a few MB.
 */
export const MAX_TABLE_FILE_BYTES = 100 * 1000 * 1000;

export interface TableFile {
  bytes: Uint8Array;
  fileName: string;
}

/** A download that takes longer leaves too little of the step's 25 s to read, submit and write. */
export const DOWNLOAD_TIMEOUT_MS = 10_000;

export interface DownloadLimits {
  timeoutMs?: number;
  maxBytes?: number;
}

const NOTHING_SENT = 'Nothing was sent or charged.';

/** node-fetch's failure (FetchError: a type and, for socket errors, a code) in words for the user. */
function downloadFailure(field: string, error: unknown, limits: Required<DownloadLimits>): InputError {
  const e = (error ?? {}) as { type?: string; code?: string; errno?: string };
  const code = e.code ?? e.errno;
  const words: Record<string, string> = {
    'request-timeout': `the file's host did not send it within ${limits.timeoutMs / 1000} seconds; try again, or use a smaller file`,
    'body-timeout': `the file's host did not send it within ${limits.timeoutMs / 1000} seconds; try again, or use a smaller file`,
    'max-size': `the file is larger than ${limits.maxBytes / 1e6} MB; split it, or upload it in the app's dashboard (up to 2,000,000 addresses)`,
    ENOTFOUND: "the file's host name was not found; check that the earlier step gives a file link",
    EAI_AGAIN: "the file's host name could not be looked up just now; run this step again",
    ECONNREFUSED: "the file's host refused the connection; run this step again later",
    ECONNRESET: "the connection to the file's host dropped; run this step again",
    ETIMEDOUT: "the file's host did not answer; run this step again later",
    CERT_HAS_EXPIRED: "the file's host has an expired certificate",
  };
  const why =
    words[e.type ?? ''] ??
    words[code ?? ''] ??
    `the download failed${code ? ` (${code})` : ''}; run this step again`;
  return new InputError(field, 'download', `The file could not be downloaded: ${why}. ${NOTHING_SENT}`);
}

/**
 * Downloads the file a user mapped. Only the file's own URL is requested, with no credentials of this
 * app: the API key never travels to a file host. The size cap holds while the body streams (node-fetch's
 * `size`), whether or not the host sends Content-Length, and the whole download has a timeout.
 */
export async function downloadTableFile(
  z: ZObject,
  value: unknown,
  field = 'file',
  options: DownloadLimits = {},
): Promise<TableFile> {
  const limits = {
    timeoutMs: options.timeoutMs ?? DOWNLOAD_TIMEOUT_MS,
    maxBytes: options.maxBytes ?? MAX_TABLE_FILE_BYTES,
  };
  const text = optionalString(value);
  let url: URL | undefined;
  try {
    url = text === undefined ? undefined : new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new InputError(
      field,
      'file',
      `Map a file here: a CSV, TSV or XLSX file from an earlier step (e.g. Google Drive, Dropbox or an email attachment), with a header row. ${NOTHING_SENT}`,
    );
  }
  let response;
  try {
    response = await z.request({
      url: url.href,
      method: 'GET',
      raw: true,
      skipThrowForStatus: true,
      timeout: limits.timeoutMs,
      size: limits.maxBytes,
    });
  } catch (error) {
    throw downloadFailure(field, error, limits);
  }
  if (response.status >= 400) {
    throw new InputError(
      field,
      'download',
      `The file could not be downloaded (HTTP ${response.status}). Check that the earlier step still gives the file, then run this step again. ${NOTHING_SENT}`,
    );
  }
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > limits.maxBytes) throw downloadFailure(field, { type: 'max-size' }, limits);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await response.buffer());
  } catch (error) {
    throw downloadFailure(field, error, limits);
  }
  return { bytes, fileName: downloadedFileName(response.headers.get('content-disposition'), url) };
}

/** Files people map by mistake, told by their first bytes, with the way to the table they meant. */
function notATable(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 512))
    .toString('latin1')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (head.startsWith('%pdf-')) {
    return `The file is a PDF, not a table: a PDF's rows cannot be read back. Export the sheet as CSV or XLSX (in Excel: Save As; in Google Sheets: File, Download) and map that file. ${NOTHING_SENT}`;
  }
  if (head.startsWith('<!doctype html') || head.startsWith('<html') || head.startsWith('<head')) {
    return `The file is a web page, not a table: the earlier step gave a page's link (such as a sharing or web view link) instead of the file. Map the step's file field; for a native Google Sheet, use a Google Drive step that exports it as CSV or XLSX. ${NOTHING_SENT}`;
  }
  return undefined;
}

/** The Header Row field of a file step: the row holding the column names, when finding it is not enough. */
export const HEADER_ROW_FIELD = {
  key: 'header_row',
  label: 'Header Row',
  type: 'integer',
  required: false,
  helpText:
    'The row number holding the column names (e.g. `3` when a title and an empty row stand above them). Leave empty to find it: the first row naming an address column (such as "Email"), or the row above the first addresses.',
} as const;

/** The Header Row field's value: a row number, or undefined when left empty. */
function headerRowOf(value: unknown): number | undefined {
  const text = optionalString(value);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) {
    throw new InputError(
      'header_row',
      'invalid',
      `Header Row must be a row number (1 is the first row); got "${text.slice(0, 20)}". ${NOTHING_SENT}`,
    );
  }
  return n;
}

/**
 * The table in the file, with the address column the user named (or the one found), from the XLSX sheet
 * named (by its tab name or position; the first visible sheet when none is given), under the header row
 * given (or found below titles and empty rows).
 */
export function readTableFile(
  file: TableFile,
  column: unknown,
  sheet?: unknown,
  headerRow?: unknown,
): TableList {
  const wrong = notATable(file.bytes);
  if (wrong) throw new InputError('file', 'format', wrong);
  return readTable(file.bytes, {
    fileName: file.fileName,
    column: optionalString(column),
    sheet: optionalString(sheet),
    headerRow: headerRowOf(headerRow),
    // Node's own signature takes the output cap the reader passes; a wrapper would drop it.
    inflateRaw: inflateRawSync,
  });
}

/** `leads.xlsx` → `leads-verified.xlsx`; `list.txt` (tabs) → `list-verified.txt`: named by what it is. */
export function resultsFileName(sourceName: string, format: WrittenFormat = 'csv'): string {
  const base = sourceName.replace(/\.[A-Za-z0-9]{1,5}$/, '') || 'list';
  return `${base.slice(0, 120)}-verified.${format}`;
}

/**
 * The results file: the user's table written back in its own format (a workbook as the same workbook,
 * text in its encoding and delimiter), with each row's answer and the time it was made, and its name.
 */
export function writeResultsFile(
  table: TableList,
  preflight: PreflightReport,
  rows: Iterable<ResultRow>,
  options: Pick<WriteBackOptions, 'notVerifiedReason' | 'answeredAt'> & { sourceName?: string },
): WrittenBack & { fileName: string } {
  const written = writeBackTable(table, preflight, rows, {
    notVerifiedReason: options.notVerifiedReason,
    answeredAt: options.answeredAt,
    // The two rewritten parts of a workbook compressed as the rest are.
    deflateRaw: deflateRawSync,
  });
  return { ...written, fileName: resultsFileName(options.sourceName ?? 'list.csv', written.format) };
}
