import { createHash } from 'node:crypto';

/**
 * A stable name for "this list, submitted under this name": the same addresses (any order, any case)
 * and name give the same key. A platform stores the jobs it made under it, so running a step again
 * with the same list finds them instead of submitting (and charging) the list twice.
 */
export function listFingerprint(unique: readonly string[], name = ''): string {
  const sorted = unique.map((e) => e.toLowerCase()).sort();
  const hash = createHash('sha256');
  hash.update(`${name}\n`);
  for (const email of sorted) hash.update(`${email}\n`);
  return hash.digest('hex').slice(0, 32);
}
