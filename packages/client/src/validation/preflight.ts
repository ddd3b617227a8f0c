import { LIMITS } from '../limits';
import { SCAN_OK_UPPER, SCAN_SEPARATOR, reasonFor, scanEmail } from './email';

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
  const firstByKey = new Map<string, number>();
  const unique: string[] = [];
  const uniqueSourceIndex: number[] = [];
  const duplicates: DuplicateAddress[] = [];
  const malformed: MalformedAddress[] = [];
  let received = 0;

  const take = (email: string, index: number, code: number): void => {
    received++;
    if (code < 0) {
      malformed.push({ email, index, reason: reasonFor(code) });
      return;
    }
    const key = code === SCAN_OK_UPPER ? email.toLowerCase() : email;
    const first = firstByKey.get(key);
    if (first !== undefined) {
      duplicates.push({ email, index, firstIndex: first });
      return;
    }
    firstByKey.set(key, index);
    unique.push(email);
    uniqueSourceIndex.push(index);
  };

  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (item === null || item === undefined) continue;
    const text = typeof item === 'string' ? item : String(item);
    const code = scanEmail(text);
    if (code !== SCAN_SEPARATOR) {
      if (text.length === 0) continue; // an empty cell is not an address
      take(text, index, code);
      continue;
    }
    for (const part of text.split(/[\s,;]+/)) if (part) take(part, index, scanEmail(part));
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
