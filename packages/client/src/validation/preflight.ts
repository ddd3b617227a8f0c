import { LIMITS } from '../limits';
import { LIST_SEPARATORS, SCAN_SEPARATOR, lastScanHash, reasonFor, sameAddressIgnoringCase, scanEmail } from './email';

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

export interface PreflightReport {
  /** Addresses found in the input (after splitting pasted text). */
  received: number;
  /** Unique, well-formed addresses in first-seen order and first spelling: what will be charged. */
  unique: string[];
  /** For each unique address, the index of the input item it came from (maps results back to rows). */
  uniqueSourceIndex: number[];
  duplicates: DuplicateAddress[];
  malformed: MalformedAddress[];
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
export function preflightEmails(input: string | readonly unknown[], options: PreflightOptions = {}): PreflightReport {
  const maxPerJob = options.maxPerJob ?? LIMITS.maxEmailsPerJob;
  if (!Number.isInteger(maxPerJob) || maxPerJob < 1 || maxPerJob > LIMITS.maxEmailsPerJob) {
    throw new RangeError(`maxPerJob must be an integer from 1 to ${LIMITS.maxEmailsPerJob}`);
  }
  const items: readonly unknown[] = typeof input === 'string' ? input.split(/\r?\n/) : input;
  const unique: string[] = [];
  const uniqueSourceIndex: number[] = [];
  const duplicates: DuplicateAddress[] = [];
  const malformed: MalformedAddress[] = [];
  let received = 0;

  // Dedupe through an open-addressing table keyed by the case-folded hash that scanEmail computed while
  // checking the syntax: no lower-cased copies, no Map, one look at each character. Each slot is a pair
  // [hash, position in unique + 1] side by side, so a probe touches one cache line (0 = empty). Sized
  // from the input so that a list of simple cells never needs a rehash; grown when half full.
  let capacity = 1024;
  while (capacity < items.length * 2) capacity *= 2;
  let table = new Int32Array(capacity * 2);
  let mask = capacity - 1;
  const grow = (): void => {
    const old = table;
    capacity *= 2;
    mask = capacity - 1;
    table = new Int32Array(capacity * 2);
    for (let j = 0; j < old.length; j += 2) {
      if (old[j + 1] === 0) continue;
      let i = old[j]! & mask;
      while (table[i * 2 + 1] !== 0) i = (i + 1) & mask;
      table[i * 2] = old[j]!;
      table[i * 2 + 1] = old[j + 1]!;
    }
  };

  const take = (email: string, index: number, code: number): void => {
    received++;
    if (code < 0) {
      malformed.push({ email, index, reason: reasonFor(code) });
      return;
    }
    const h = lastScanHash();
    let i = h & mask;
    for (let u = table[i * 2 + 1]!; u !== 0; u = table[i * 2 + 1]!) {
      if (table[i * 2] === h && sameAddressIgnoringCase(unique[u - 1]!, email)) {
        duplicates.push({ email, index, firstIndex: uniqueSourceIndex[u - 1]! });
        return;
      }
      i = (i + 1) & mask;
    }
    unique.push(email);
    uniqueSourceIndex.push(index);
    table[i * 2] = h;
    table[i * 2 + 1] = unique.length;
    if (unique.length * 2 > capacity) grow();
  };

  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (item === null || item === undefined) continue;
    const text = typeof item === 'string' ? item : String(item);
    const code = scanEmail(text);
    // The scan stops at the first error, which may come before a separator ("a@@x.com, b@y.com"), so a
    // refused cell is looked at again for separators: valid addresses after a bad one are never lost.
    if (code >= 0 || (code !== SCAN_SEPARATOR && !HAS_LIST_SEPARATOR.test(text))) {
      if (text.length === 0) continue; // an empty cell is not an address
      take(text, index, code);
      continue;
    }
    // A cell or line holding several addresses, or padded with spaces: split it, trim each part.
    // A space inside a part stays an error: "Anna Smith anna@x.com" is not an address.
    for (const part of text.split(LIST_SEPARATORS)) {
      const trimmed = part.trim();
      if (trimmed) take(trimmed, index, scanEmail(trimmed));
    }
  }

  const chunks: string[][] = [];
  for (let i = 0; i < unique.length; i += maxPerJob) chunks.push(unique.slice(i, i + maxPerJob));
  return { received, unique, uniqueSourceIndex, duplicates, malformed, chunks };
}

/** A one-line summary users see in outputs. */
export function summarizePreflight(report: PreflightReport): string {
  const parts = [`${report.unique.length} unique address(es) to verify`];
  if (report.duplicates.length) parts.push(`${report.duplicates.length} duplicate(s) removed`);
  if (report.malformed.length) parts.push(`${report.malformed.length} malformed address(es) skipped (not charged)`);
  if (report.chunks.length > 1) parts.push(`split into ${report.chunks.length} jobs of at most ${LIMITS.maxEmailsPerJob}`);
  return parts.join('; ');
}
