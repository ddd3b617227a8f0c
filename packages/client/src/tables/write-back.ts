import { categorize } from '../categories';
import type { PreflightReport } from '../validation/preflight';
import type { ResultRow } from '../types';
import type { TableList } from './read-table';
import { writeDelimited, type Delimiter } from './delimited';

/** The columns added beside the user's own, in this order. */
export const RESULT_COLUMNS = ['Category', 'Group', 'Safe to Send', 'Reason', 'Verification'] as const;

/** What the Verification column says about a row. */
export type RowOutcome = 'verified' | 'duplicate' | 'skipped' | 'not_verified';

export interface WriteBackCounts {
  /** Data rows in the table (blank rows included). */
  rows: number;
  /** Rows with a verdict of their own. */
  verified: number;
  /** Rows repeating an address of an earlier row: they carry that row's verdict, charged once. */
  duplicates: number;
  /** Rows never sent: no address, malformed address, unreadable row (not charged). */
  skipped: number;
  /** Rows sent for verification that have no verdict (the job stopped before them, or reading stopped). */
  notVerified: number;
  /** Data rows that were wholly empty (among `skipped`). */
  blank: number;
}

export interface WriteBackOptions {
  /** Why rows without a verdict have none, for their Reason cell (e.g. the job failed part way). */
  notVerifiedReason?: string;
  delimiter?: Delimiter;
}

export interface WrittenBack {
  /** The user's table with the result columns added, as RFC 4180 text. */
  text: string;
  counts: WriteBackCounts;
}

/**
 * The user's table with every row's answer beside it: the verdict for a verified row; the first copy's
 * verdict for a duplicate (the same address, charged once); a reason for a row that was never sent
 * (not charged) or sent but not answered. Every data row is written once, in the order read.
 */
export function writeBackTable(
  table: TableList,
  preflight: PreflightReport,
  results: Iterable<ResultRow>,
  options: WriteBackOptions = {},
): WrittenBack {
  const byEmail = new Map<string, ResultRow>();
  for (const row of results) byEmail.set(row.email.toLowerCase(), row);
  // A cell may hold several addresses ("a@x.com; b@y.com"): each is verified, the row shows them all.
  const addressOf = new Map<number, string[]>();
  preflight.unique.forEach((email, k) => {
    const index = preflight.uniqueSourceIndex[k]!;
    const list = addressOf.get(index);
    if (list) list.push(email);
    else addressOf.set(index, [email]);
  });
  const duplicateOf = new Map<number, number>();
  for (const d of preflight.duplicates) duplicateOf.set(d.index, d.firstIndex);
  const malformed = new Map<number, string>();
  for (const m of preflight.malformed) if (!malformed.has(m.index)) malformed.set(m.index, m.reason);
  const unusable = new Map<number, string>();
  const firstDataRow = table.headerRow + 1;
  for (const u of table.unusable) unusable.set(u.row - firstDataRow, u.reason);

  const counts: WriteBackCounts = { rows: table.rows.length, verified: 0, duplicates: 0, skipped: 0, notVerified: 0, blank: 0 };
  const notVerified = options.notVerifiedReason ?? 'sent for verification, but no answer was read';
  const width = table.header.length;
  const verdictCells = (index: number): string[] | undefined => {
    const found = (addressOf.get(index) ?? []).map((email) => byEmail.get(email.toLowerCase()));
    if (found.length === 0 || found.some((row) => row === undefined)) return undefined;
    const verdicts = (found as ResultRow[]).map((row) => ({ ...categorize(row.details), reason: row.reason ?? '' }));
    const join = (pick: (v: (typeof verdicts)[number]) => string): string => verdicts.map(pick).join(' | ');
    return [join((v) => v.category), join((v) => v.group), join((v) => (v.safeToSend ? 'TRUE' : 'FALSE')), join((v) => v.reason)];
  };
  const out: string[][] = [[...table.header, ...RESULT_COLUMNS]];
  for (let i = 0; i < table.rows.length; i++) {
    const cells = table.rows[i]!.slice(0, Math.max(width, table.rows[i]!.length));
    while (cells.length < width) cells.push('');
    let added: string[];
    if (addressOf.has(i)) {
      const verdict = verdictCells(i);
      if (verdict) {
        counts.verified++;
        added = [...verdict, 'verified'];
      } else {
        counts.notVerified++;
        added = ['', '', '', `Not verified: ${notVerified}`, 'not_verified'];
      }
    } else if (duplicateOf.has(i)) {
      const first = duplicateOf.get(i)!;
      const verdict = verdictCells(first);
      counts.duplicates++;
      added = verdict
        ? [...verdict, 'duplicate']
        : ['', '', '', `Same address as row ${rowNumberOf(table, first)}, which was not verified: ${notVerified}`, 'duplicate'];
    } else {
      counts.skipped++;
      const reason = malformed.get(i) ?? unusable.get(i);
      if (reason === undefined) counts.blank++;
      added = ['', '', '', reason === undefined ? '' : `Not sent (not charged): ${malformed.has(i) ? `malformed address, ${reason}` : reason}`, 'skipped'];
    }
    out.push([...cells, ...added]);
  }
  return { text: writeDelimited(out, options.delimiter ?? ','), counts };
}

/** The spreadsheet row number of data row `index`. */
export function rowNumberOf(table: TableList, index: number): number {
  return table.headerRow + 1 + index;
}
