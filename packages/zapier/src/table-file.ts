import { inflateRawSync } from 'node:zlib';
import { InputError, readTable, type TableList } from '@evf/client';
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

function fileNameOf(url: URL, disposition: string | null): string {
  const quoted = disposition?.match(/filename\*?=(?:UTF-8'')?"?([^";]+)"?/i)?.[1];
  if (quoted) {
    try {
      return decodeURIComponent(quoted);
    } catch {
      return quoted;
    }
  }
  const last = url.pathname.split('/').filter(Boolean).pop();
  return last ? decodeURIComponent(last) : 'list.csv';
}

/**
 * Downloads the file a user mapped. Only the file's own URL is requested, with no credentials of this
 * app: the API key never travels to a file host.
 */
export async function downloadTableFile(z: ZObject, value: unknown, field = 'file'): Promise<TableFile> {
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
      'Map a file here: a CSV, TSV or XLSX file from an earlier step (e.g. Google Drive, Dropbox or an email attachment), with a header row. Nothing was sent or charged.',
    );
  }
  const response = await z.request({ url: url.href, method: 'GET', raw: true, skipThrowForStatus: true });
  if (response.status >= 400) {
    throw new InputError(
      field,
      'download',
      `The file could not be downloaded (HTTP ${response.status}). Check that the earlier step still gives the file, then run this step again. Nothing was sent or charged.`,
    );
  }
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > MAX_TABLE_FILE_BYTES) {
    throw new InputError(
      field,
      'size',
      `The file is ${(length / 1e6).toFixed(0)} MB; files up to ${MAX_TABLE_FILE_BYTES / 1e6} MB are read here. Split it, or upload it in the app's dashboard (up to 2,000,000 addresses). Nothing was sent or charged.`,
    );
  }
  const bytes = new Uint8Array(await response.buffer());
  return { bytes, fileName: fileNameOf(url, response.headers.get('content-disposition')) };
}

/**
 * The table in the file, with the address column the user named (or the one found), from the XLSX sheet
 * named (by its tab name or position; the first visible sheet when none is given).
 */
export function readTableFile(file: TableFile, column: unknown, sheet?: unknown): TableList {
  return readTable(file.bytes, {
    fileName: file.fileName,
    column: optionalString(column),
    sheet: optionalString(sheet),
    inflateRaw: (b) => inflateRawSync(b),
  });
}

/** `leads.xlsx` → `leads-verified.csv`. */
export function resultsFileName(sourceName: string): string {
  const base = sourceName.replace(/\.[A-Za-z0-9]{1,5}$/, '') || 'list';
  return `${base.slice(0, 120)}-verified.csv`;
}
