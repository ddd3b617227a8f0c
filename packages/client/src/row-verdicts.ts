/**
 * The one rule for what each row of a list gets beside it (the result columns), shared by the file
 * write-back (@evf/tables) and by platforms that put the verdicts beside their own rows (n8n).
 */
import { categorize } from './categories';
import type { PreflightReport } from './validation/preflight';
import type { ResultRow } from './types';

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

export interface RowVerdictOptions {
  /** Why rows without a verdict have none, for their Reason cell (e.g. the job failed part way). */
  notVerifiedReason?: string;
  /** Rows that could not be read, by row index, and why (never sent, not charged). */
  unusable?: ReadonlyMap<number, string>;
  /** How the Reason cell names row `index` (a duplicate's first copy). Default: index + 1. */
  rowName?: (index: number) => string | number;
  /**
   * Addresses a list stopped part way left unsent (the allowance, paused new jobs), and when they can go
   * (ISO 8601): their rows say "Not sent yet" and stay open for the next run.
   */
  notSent?: { emails: Iterable<string>; after?: string };
  /**
   * A copy of a row that has no answer stays open with it (not_verified) instead of a settled
   * duplicate, so a rerun that sends the open rows answers both. For flows that rerun by the
   * Verification column; a copy of a row not sent yet is always kept open.
   */
  keepCopiesOpen?: boolean;
}

/** Every row's result cells, by the one rule tables and platforms share. */
export interface RowVerdicts {
  /** The cells of RESULT_COLUMNS for row `index` (each row asked once, in any order). */
  cellsOf(index: number): string[];
  /** Tallied as rows are asked. */
  counts: WriteBackCounts;
  /** The answer row `index` shows: its own, or for a duplicate its first copy's (the first of several addresses). */
  answerOf(index: number): ResultRow | undefined;
}

/**
 * What each row of a list gets beside it, given the list's pre-flight report (one entry per row) and
 * the result rows read: the verdict for a verified row; the first copy's verdict for a duplicate (the
 * same address, charged once); a reason for a row never sent (not charged), not sent yet, or sent but
 * not answered. writeBackTable writes these into a file; a platform puts them beside its own rows.
 */
export function rowVerdicts(
  preflight: PreflightReport,
  results: Iterable<ResultRow>,
  rowCount: number,
  options: RowVerdictOptions = {},
): RowVerdicts {
  const byEmail = new Map<string, ResultRow>();
  for (const row of results) byEmail.set(row.email.toLowerCase(), row);
  // Per data row: its unique address (an index into preflight.unique), or -1; typed arrays, since maps of
  // 50,000 small entries keep the garbage collector busy. A cell may hold several addresses ("a@x.com;
  // b@y.com"): each is verified, and the row shows them all (the rare extra ones are kept in `more`).
  const uniqueAt = new Int32Array(rowCount).fill(-1);
  const more = new Map<number, number[]>();
  preflight.uniqueSourceIndex.forEach((index, k) => {
    if (index < 0 || index >= rowCount) return;
    if (uniqueAt[index] === -1) uniqueAt[index] = k;
    else more.set(index, [...(more.get(index) ?? []), k]);
  });
  const duplicateOf = new Int32Array(rowCount).fill(-1);
  for (const d of preflight.duplicates) if (d.index < rowCount) duplicateOf[d.index] = d.firstIndex;
  const malformed = new Map<number, string>();
  for (const m of preflight.malformed) if (!malformed.has(m.index)) malformed.set(m.index, m.reason);
  const unusable = options.unusable ?? new Map<number, string>();
  const notSent = new Set<string>();
  for (const email of options.notSent?.emails ?? []) notSent.add(email.toLowerCase());
  const notSentReason = `Not sent yet: the list stopped part way (the API allowance or paused new jobs)${
    options.notSent?.after ? `; runs again after ${options.notSent.after}` : ''
  }`;
  const rowName = options.rowName ?? ((index: number) => index + 1);

  const counts: WriteBackCounts = {
    rows: rowCount,
    verified: 0,
    duplicates: 0,
    skipped: 0,
    notVerified: 0,
    blank: 0,
  };
  const notVerified = options.notVerifiedReason ?? 'sent for verification, but no answer was read';
  const verdictOf = (row: ResultRow): string[] => {
    const { category, group, safeToSend } = categorize(row.details);
    return [category, group, safeToSend ? 'TRUE' : 'FALSE', row.reason ?? ''];
  };
  const answerOf = (k: number): ResultRow | undefined => byEmail.get(preflight.unique[k]!.toLowerCase());
  const isNotSent = (index: number): boolean =>
    notSent.size > 0 &&
    [uniqueAt[index]!, ...(more.get(index) ?? [])].some((k) =>
      notSent.has(preflight.unique[k]!.toLowerCase()),
    );
  const verdictCells = (index: number): string[] | undefined => {
    const k = uniqueAt[index]!;
    if (k < 0) return undefined;
    const extra = more.get(index);
    if (!extra) {
      const row = answerOf(k);
      return row ? verdictOf(row) : undefined;
    }
    const found = [k, ...extra].map(answerOf);
    if (found.some((row) => row === undefined)) return undefined;
    const verdicts = (found as ResultRow[]).map(verdictOf);
    return [0, 1, 2, 3].map((c) => verdicts.map((v) => v[c]).join(' | '));
  };
  const cellsOf = (i: number): string[] => {
    if (uniqueAt[i]! >= 0) {
      const verdict = verdictCells(i);
      if (verdict) {
        counts.verified++;
        return [...verdict, 'verified'];
      }
      counts.notVerified++;
      if (isNotSent(i)) return ['', '', '', notSentReason, 'not_verified'];
      return ['', '', '', `Not verified: ${notVerified}`, 'not_verified'];
    }
    if (duplicateOf[i]! >= 0) {
      const first = duplicateOf[i]!;
      const verdict = verdictCells(first);
      counts.duplicates++;
      if (verdict) return [...verdict, 'duplicate'];
      // A copy of a row not sent yet stays open with it: the next run sends the address once for both.
      if (isNotSent(first))
        return ['', '', '', `Same address as row ${rowName(first)}, which was not sent yet`, 'not_verified'];
      return [
        '',
        '',
        '',
        `Same address as row ${rowName(first)}, which was not verified: ${notVerified}`,
        options.keepCopiesOpen ? 'not_verified' : 'duplicate',
      ];
    }
    counts.skipped++;
    const reason = malformed.get(i) ?? unusable.get(i);
    if (reason === undefined) counts.blank++;
    return [
      '',
      '',
      '',
      reason === undefined
        ? ''
        : `Not sent (not charged): ${malformed.has(i) ? `malformed address, ${reason}` : reason}`,
      'skipped',
    ];
  };
  const rowAnswer = (index: number): ResultRow | undefined => {
    const own = uniqueAt[index]!;
    const first = own >= 0 ? index : duplicateOf[index]!;
    const k = first >= 0 ? uniqueAt[first]! : -1;
    return k >= 0 ? answerOf(k) : undefined;
  };
  return { cellsOf, counts, answerOf: rowAnswer };
}

/**
 * Whether a row still needs an answer, by its Verification cell as written beside it: new rows (empty)
 * and rows left not_verified. Verified, duplicate and skipped rows are settled and never sent again.
 */
export function isOpenRow(verification: unknown): boolean {
  const cell = verification === undefined || verification === null ? '' : String(verification).trim();
  return cell === '' || cell === 'not_verified';
}
