/**
 * One pre-flight variant on one generated list, in its own process so that memory is measured alone.
 * Prints one JSON line: { ms (median of the repetitions), heapGrowthMb, peakRssMb, unique, malformed, duplicates, chunks }.
 */
import isEmail from 'validator/lib/isEmail';
import { preflightEmails } from '@evf/client';
import { makeCorpus } from './lib/corpus';

const [variant, sizeText] = process.argv.slice(2);
const size = Number(sizeText);
const MAX = 50_000;

function chunk<T>(list: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += MAX) out.push(list.slice(i, i + MAX));
  return out;
}

/** What a developer would usually write: validator.js, then a Set of lowercased addresses. */
function validatorBaseline(emails: string[]) {
  const seen = new Set<string>();
  const unique: string[] = [];
  const malformed: string[] = [];
  let duplicates = 0;
  for (const raw of emails) {
    const e = raw.trim();
    if (!isEmail(e)) {
      malformed.push(e);
      continue;
    }
    const key = e.toLowerCase();
    if (seen.has(key)) duplicates++;
    else {
      seen.add(key);
      unique.push(e);
    }
  }
  return { unique: unique.length, malformed: malformed.length, duplicates, chunks: chunk(unique).length };
}

const EMAIL_RE =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,}$/;

/** The faster usual approach: one regular expression, then a Set. */
function regexBaseline(emails: string[]) {
  const seen = new Set<string>();
  const unique: string[] = [];
  let malformed = 0;
  let duplicates = 0;
  for (const raw of emails) {
    const e = raw.trim();
    if (!EMAIL_RE.test(e)) {
      malformed++;
      continue;
    }
    const key = e.toLowerCase();
    if (seen.has(key)) duplicates++;
    else {
      seen.add(key);
      unique.push(e);
    }
  }
  return { unique: unique.length, malformed, duplicates, chunks: chunk(unique).length };
}

function ours(emails: string[]) {
  const r = preflightEmails(emails);
  return {
    unique: r.unique.length,
    malformed: r.malformed.length,
    duplicates: r.duplicates.length,
    chunks: r.chunks.length,
    keep: r,
  };
}

const run = { validator: validatorBaseline, regex: regexBaseline, ours }[variant as 'ours'];
if (!run) throw new Error(`unknown variant ${variant}`);
const { emails } = makeCorpus(size);
const gc = (globalThis as { gc?: () => void }).gc;

// Throughput is measured in steady state: each variant first runs three times over a list of 50,000
// (JIT warm-up), then the timed repetitions; the median is reported. The slow baseline at 2,000,000 gets
// one repetition per process (the parent runs several processes).
const warm = emails.slice(0, 50_000);
for (let i = 0; i < 3; i++) run(warm);
const reps = size <= 100_000 ? 7 : variant === 'validator' ? 1 : 3;
const times: number[] = [];
let heapGrowthMb = 0;
let counts: Record<string, number> = {};
for (let r = 0; r < reps; r++) {
  gc?.();
  // Heap plus array buffers: typed arrays live outside the JS heap and must be counted too.
  const used = (): number => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const before = used();
  const t0 = process.hrtime.bigint();
  const result = run(emails);
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  // Heap growth with the result still held: what a caller keeps while submitting.
  if (r === 0) heapGrowthMb = (used() - before) / 2 ** 20;
  const { keep: _keep, ...c } = result as typeof result & { keep?: unknown };
  counts = c;
}
times.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    ms: times[Math.floor(times.length / 2)],
    heapGrowthMb,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    ...counts,
  }),
);
