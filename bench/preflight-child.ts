/**
 * One pre-flight variant on one generated list, in its own process so that memory is measured alone.
 * Prints one JSON line: { ms, retainedMb, peakRssMb, unique, malformed, duplicates, chunks }.
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

const EMAIL_RE = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,}$/;

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
  return { unique: r.unique.length, malformed: r.malformed.length, duplicates: r.duplicates.length, chunks: r.chunks.length, keep: r };
}

const run = { validator: validatorBaseline, regex: regexBaseline, ours }[variant as 'ours'];
if (!run) throw new Error(`unknown variant ${variant}`);
const { emails } = makeCorpus(size);
// Warm the code path on a small, different list first: the figure is throughput, not JIT start-up,
// and every variant gets the same treatment.
run(makeCorpus(5_000, 1).emails);
const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
gc?.();
const before = process.memoryUsage();
const t0 = process.hrtime.bigint();
const result = run(emails);
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
const after = process.memoryUsage();
gc?.();
const retained = process.memoryUsage().heapUsed - before.heapUsed;
const { keep: _keep, ...counts } = result as typeof result & { keep?: unknown };
console.log(
  JSON.stringify({
    ms,
    retainedMb: retained / 2 ** 20,
    heapGrowthMb: (after.heapUsed - before.heapUsed) / 2 ** 20,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    baselineRssMb: before.rss / 2 ** 20,
    ...counts,
  }),
);
// Keep the result alive until after the measurement.
if (result.unique < 0) console.log(result);
