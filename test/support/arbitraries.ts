/**
 * fast-check generators for the property suites: lists a user might paste (valid addresses of every
 * outcome, case-variant duplicates, malformed rows, as an array or as text), fault schedules for the
 * sandbox, and the independent oracle of what the service must end up with for a list.
 */
import fc from 'fast-check';
import type { FailNextSpec } from '@evf/sandbox';
import { MALFORMED_ADDRESSES } from './bad-inputs';

/** Local-part prefixes of the sandbox's outcome table, so every outcome (refunded ones included) occurs. */
const OUTCOME_PREFIXES = [
  'valid',
  'invalid',
  'catchall',
  'unknown',
  'notverified',
  'info',
  'sales',
  'temp',
  'trap',
  'full',
  'disabled',
];
const DOMAINS = ['example.com', 'example.org', 'mail.example.net', 'corp.example.io'];

const token = fc.stringMatching(/^[a-z0-9]{1,6}$/);

export const validAddress: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...OUTCOME_PREFIXES),
    fc.constantFrom('.', '_', '-', '+'),
    token,
    fc.constantFrom(...DOMAINS),
  )
  .map(([prefix, sep, t, domain]) => `${prefix}${sep}${t}@${domain}`);

/**
 * Malformed rows that stay one row whatever the splitter does: rows holding a separator (space, comma,
 * semicolon) would be split into pieces, some of them valid, and the oracle would have to split too.
 */
export const malformedAddress: fc.Arbitrary<string> = fc.constantFrom(
  ...MALFORMED_ADDRESSES.filter((m) => m !== '' && !/[\s,;]/.test(m)),
);

function randomCase(email: string, mask: number[]): string {
  return [...email]
    .map((ch, i) => (mask[i % mask.length]! % 2 ? ch.toUpperCase() : ch.toLowerCase()))
    .join('');
}

/** A list with duplicates that differ only in case, malformed rows, in any order. */
export const emailList: fc.Arbitrary<string[]> = fc
  .tuple(
    fc.array(validAddress, { minLength: 0, maxLength: 30 }),
    fc.array(fc.tuple(fc.nat(), fc.array(fc.nat(3), { minLength: 1, maxLength: 8 })), { maxLength: 10 }),
    fc.array(malformedAddress, { maxLength: 5 }),
    fc.array(fc.nat(), { maxLength: 50 }),
  )
  .map(([valid, dupPicks, malformed, shuffle]) => {
    const dups = valid.length
      ? dupPicks.map(([pick, mask]) => randomCase(valid[pick % valid.length]!, mask))
      : [];
    const all = [...valid, ...dups, ...malformed];
    // A deterministic shuffle driven by the generated numbers, so shrinking still works.
    for (let i = all.length - 1; i > 0; i--) {
      const j = (shuffle[i % Math.max(1, shuffle.length)] ?? 0) % (i + 1);
      [all[i], all[j]] = [all[j]!, all[i]!];
    }
    return all;
  })
  .filter((list) => list.some((e) => !MALFORMED_ADDRESSES.includes(e)));

/**
 * As a user hands it over: an array of cells, cells that each hold a few addresses (a sheet column
 * with "a@x.com, b@y.com" in a cell), or text pasted with newlines, commas or semicolons.
 */
export const listInput: fc.Arbitrary<{ list: string[]; input: string | string[] }> = fc
  .tuple(
    emailList,
    fc.constantFrom('array', 'cells', 'newline', 'comma', 'semicolon-crlf'),
    fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 8 }),
  )
  .map(([list, form, sizes]) => {
    if (form === 'array') return { list, input: list };
    if (form === 'cells') {
      const cells: string[] = [];
      for (let i = 0, k = 0; i < list.length; k++) {
        const n = sizes[k % sizes.length]!;
        cells.push(list.slice(i, i + n).join(', '));
        i += n;
      }
      return { list, input: cells };
    }
    return { list, input: list.join(form === 'newline' ? '\n' : form === 'comma' ? ', ' : ';\r\n') };
  });

/** The oracle: what must be verified, by first spelling, in order of first appearance. */
export function expectedUnique(list: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const email of list) {
    if (MALFORMED_ADDRESSES.includes(email)) continue;
    const key = email.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(email);
  }
  return out;
}

export type FaultTarget = 'job' | 'results' | 'bulk';

export interface ScheduledFault {
  target: FaultTarget;
  spec: FailNextSpec;
}

const JOB_PATH = /^\/v1\/jobs\/[^/]+$/;
const RESULTS_PATH = /^\/v1\/jobs\/[^/]+\/results$/;

const readFault = fc.oneof(
  fc
    .constantFrom(500, 502, 503, 504, 429)
    .map((status): Omit<FailNextSpec, 'path'> => ({ status, method: 'GET', retryAfterSeconds: 1 })),
  fc
    .constantFrom('before-response' as const, 'mid-body' as const)
    .map((drop): Omit<FailNextSpec, 'path'> => ({ drop, method: 'GET' })),
);

/** 429 and 503 say the service did not take the list: the only failures of a bulk POST that allow a resend. */
const bulkRefusal = fc.constantFrom(429, 503).map(
  (status): Omit<FailNextSpec, 'path'> => ({
    status,
    method: 'POST',
    when: 'before',
    retryAfterSeconds: 1,
  }),
);

export const faultSchedule = (maxFaults: number): fc.Arbitrary<ScheduledFault[]> =>
  fc.array(
    fc.oneof(
      readFault.map((f): ScheduledFault => ({ target: 'job', spec: { ...f, path: JOB_PATH } })),
      readFault.map((f): ScheduledFault => ({ target: 'results', spec: { ...f, path: RESULTS_PATH } })),
      bulkRefusal.map((f): ScheduledFault => ({ target: 'bulk', spec: { ...f, path: '/v1/verify/bulk' } })),
    ),
    { maxLength: maxFaults },
  );

/**
 * Runs from FC_SEED when set (to replay a reported failure), else a fixed seed per suite so CI is
 * deterministic and the suites do not all walk the same lists.
 */
export function fcParams(numRuns: number, suite: number): fc.Parameters<unknown> {
  const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : 20260115 + suite;
  return { numRuns, seed, endOnFailure: true };
}
