import { LIMITS } from '../limits';
import {
  LIST_SEPARATORS,
  SCAN_SEPARATOR,
  reasonFor,
  sameAddressIgnoringCase,
  scanEmail,
  unwrapAddress,
  type ScanHash,
  type UnwrapKind,
} from './email';

const HAS_LIST_SEPARATOR = /[\r\n,;\t]/;

export interface DuplicateAddress {
  email: string;
  /** Position of this copy in the input. */
  index: number;
  /** Position of the copy that was kept (the first spelling). */
  firstIndex: number;
}

export interface MalformedAddress {
  email: string;
  index: number;
  reason: string;
}

/** A cell that held an address in a pasted form, and the address taken from it. */
export interface UnwrappedAddress {
  /** What the cell (or its part) said, e.g. `Ada <ada@x.com>` or `mailto:ada@x.com`. */
  input: string;
  email: string;
  index: number;
  how: UnwrapKind;
}

export interface PreflightReport {
  /** Addresses found in the input (after splitting pasted text). */
  received: number;
  /** Unique, well-formed addresses in first-seen order and first spelling: what will be charged. */
  unique: string[];
  /** For each unique address, the index of the input item it came from (maps results back to rows). */
  uniqueSourceIndex: number[];
  duplicates: DuplicateAddress[];
  malformed: MalformedAddress[];
  /** Addresses taken out of `Name <address>` and `mailto:` cells (they are verified like the rest). */
  unwrapped: UnwrappedAddress[];
  /** `unique` cut into lists the service accepts in one call. */
  chunks: string[][];
}

export interface PreflightOptions {
  maxPerJob?: number;
}

/**
 * Everything that can be known about a list before a request: syntax, duplicates ignoring case (the
 * service's own rule, so the charge is predictable), and the split into jobs of at most 50,000.
 * Malformed addresses are reported, never sent: one of them would make the service refuse the whole call.
 *
 * Input items are indexes: an item holding several addresses ("a@x.com, b@y.com") gives them all its index.
 */
export function preflightEmails(
  input: string | readonly unknown[],
  options: PreflightOptions = {},
): PreflightReport {
  const maxPerJob = options.maxPerJob ?? LIMITS.maxEmailsPerJob;
  if (!Number.isInteger(maxPerJob) || maxPerJob < 1 || maxPerJob > LIMITS.maxEmailsPerJob) {
    throw new RangeError(`maxPerJob must be an integer from 1 to ${LIMITS.maxEmailsPerJob}`);
  }
  const items: readonly unknown[] = typeof input === 'string' ? input.split(/\r?\n/) : input;

  const malformed: MalformedAddress[] = [];
  const unwrapped: UnwrappedAddress[] = [];
  // Each accepted scan leaves its address's hash here for `take`, which runs right after it.
  const scanned: ScanHash = { hash: 0 };

  // Pass 1, in input order: the syntax scan, which also yields each address's case-folded hash. A
  // candidate is an input item, or a part of an item that held several addresses (kept in `parts`).
  let candItem = new Int32Array(Math.max(16, items.length));
  let candHash = new Int32Array(candItem.length);
  const parts = new Map<number, string>();
  let m = 0;
  let received = 0;
  const take = (email: string, index: number, code: number, isPart: boolean): void => {
    received++;
    if (code < 0) {
      const inner = unwrapAddress(email, scanned);
      if (!inner) {
        malformed.push({ email, index, reason: reasonFor(code) });
        return;
      }
      unwrapped.push({ input: email, email: inner.email, index, how: inner.how });
      email = inner.email;
      isPart = true;
    }
    if (m === candItem.length) {
      const grow = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      candItem = grow(candItem);
      candHash = grow(candHash);
    }
    if (isPart) parts.set(m, email);
    candItem[m] = index;
    candHash[m] = scanned.hash;
    m++;
  };
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (item === null || item === undefined) continue;
    const text = typeof item === 'string' ? item : String(item);
    const code = scanEmail(text, scanned);
    // A whole cell in a pasted form ("Lovelace, Ada" <ada@x.com>) is one address, commas and all.
    if (code < 0 && unwrapAddress(text)) {
      take(text, index, code, false);
      continue;
    }
    // The scan stops at the first error, which may come before a separator ("a@@x.com, b@y.com"), so a
    // refused cell is looked at again for separators: valid addresses after a bad one are never lost.
    if (code >= 0 || (code !== SCAN_SEPARATOR && !HAS_LIST_SEPARATOR.test(text))) {
      if (text.length === 0) continue; // an empty cell is not an address
      take(text, index, code, false);
      continue;
    }
    // A cell or line holding several addresses, or padded with spaces: split it, trim each part.
    // A space inside a part stays an error: "Anna Smith anna@x.com" is not an address.
    for (const part of text.split(LIST_SEPARATORS)) {
      const trimmed = part.trim();
      if (trimmed) take(trimmed, index, scanEmail(trimmed, scanned), true);
    }
  }
  // Most lists hold one address per cell: then no candidate is a part and no look-up is needed.
  const emailOf =
    parts.size === 0
      ? (k: number): string => items[candItem[k]!] as string
      : (k: number): string => parts.get(k) ?? (items[candItem[k]!] as string);

  // Pass 2: candidates grouped by the top bits of their hash (a stable counting sort, so each group
  // keeps input order). Pass 3 then dedupes one group at a time in a table small enough to stay in
  // cache: a single table over millions of addresses would miss the cache on nearly every probe.
  const bits = Math.min(12, Math.max(0, Math.ceil(Math.log2(m / 1024))));
  const shift = 30 - bits;
  const groups = 1 << bits;
  const starts = new Int32Array(groups + 1);
  for (let k = 0; k < m; k++) starts[(candHash[k]! >>> shift) + 1]!++;
  for (let g = 0; g < groups; g++) starts[g + 1]! += starts[g]!;
  // Each group's hashes are copied next to its candidates so pass 3 reads them in sequence, not by
  // jumping around the whole list.
  const order = new Int32Array(m);
  const orderedHash = new Int32Array(m);
  const next = starts.slice(0, groups);
  for (let k = 0; k < m; k++) {
    const h = candHash[k]!;
    const o = next[h >>> shift]!++;
    order[o] = k;
    orderedHash[o] = h;
  }

  const firstOf = new Int32Array(m).fill(-1); // the candidate each duplicate repeats
  let table = new Int32Array(16);
  for (let g = 0; g < groups; g++) {
    const from = starts[g]!;
    const to = starts[g + 1]!;
    let capacity = 16;
    while (capacity < (to - from) * 2) capacity *= 2;
    if (table.length < capacity) table = new Int32Array(capacity);
    else table.fill(0, 0, capacity);
    const mask = capacity - 1;
    for (let o = from; o < to; o++) {
      const h = orderedHash[o]!;
      let slot = h & mask;
      let first = -1;
      // Slots hold a position in `order` + 1 (0 = empty).
      for (let c = table[slot]!; c !== 0; c = table[slot]!) {
        if (orderedHash[c - 1] === h && sameAddressIgnoringCase(emailOf(order[c - 1]!), emailOf(order[o]!))) {
          first = order[c - 1]!;
          break;
        }
        slot = (slot + 1) & mask;
      }
      if (first === -1) table[slot] = o + 1;
      else firstOf[order[o]!] = first;
    }
  }

  // Pass 4, in input order again: the report.
  const unique: string[] = [];
  const uniqueSourceIndex: number[] = [];
  const duplicates: DuplicateAddress[] = [];
  for (let k = 0; k < m; k++) {
    const first = firstOf[k]!;
    if (first === -1) {
      unique.push(emailOf(k));
      uniqueSourceIndex.push(candItem[k]!);
    } else duplicates.push({ email: emailOf(k), index: candItem[k]!, firstIndex: candItem[first]! });
  }

  const chunks: string[][] = [];
  for (let i = 0; i < unique.length; i += maxPerJob) chunks.push(unique.slice(i, i + maxPerJob));
  return { received, unique, uniqueSourceIndex, duplicates, malformed, unwrapped, chunks };
}

/**
 * For each of `items` input items, the addresses taken from it as they are sent: after splitting and
 * unwrapping `Name <address>` and `mailto:` cells, duplicates included, malformed ones left out (empty for
 * an item with no valid address). Results answer these, ignoring case, so rows are matched back by what
 * was sent, never by the cell as typed; writeBackTable reads the same indexes of the report.
 */
export function addressesByItem(report: PreflightReport, items: number): string[][] {
  const out: string[][] = Array.from({ length: items }, () => []);
  report.unique.forEach((email, k) => out[report.uniqueSourceIndex[k]!]?.push(email));
  for (const d of report.duplicates) out[d.index]?.push(d.email);
  return out;
}

/** A one-line summary users see in outputs. */
export function summarizePreflight(report: PreflightReport): string {
  const parts = [`${report.unique.length} unique address(es) to verify`];
  if (report.duplicates.length) parts.push(`${report.duplicates.length} duplicate(s) removed`);
  if (report.malformed.length)
    parts.push(`${report.malformed.length} malformed address(es) skipped (not charged)`);
  if (report.unwrapped.length)
    parts.push(`${report.unwrapped.length} taken from "Name <address>" or mailto: cells`);
  if (report.chunks.length > 1) {
    const largest = Math.max(...report.chunks.map((c) => c.length));
    parts.push(`split into ${report.chunks.length} jobs of at most ${largest}`);
  }
  return parts.join('; ');
}
