/**
 * A big list on a small plan, measured through Make's own steps: the whole-sheet example (part 1 reads the Leads tab,
 * sends what the plan's daily allowance still takes as one bulk job and notes in Verified!J2 when the
 * rest can go; part 2, started by the job's webhook, writes the results to the Verified tab) run from
 * day 1 to done for each plan of the spec's tables (Starter, any top-up, Growth, Pro) with 50,000 and
 * 150,000 rows, and once per plan with a 503 "new jobs paused" after the first job. The account answers
 * GET /v1/account in the spec's shape (plan, credits, credits_used_today; no allowance figures).
 *
 * Between runs, what a user does: after each stop, part 1 again at once (Run once; on the first two
 * stops of a list: nothing charged, and the words give the time as a date); then the clock moves to
 * the time the sheet (J2) or the stopped run's message says, and part 1 runs again. Asserted per
 * cell: every address charged exactly once (the sandbox's ledger), every row's result back in the
 * Verified tab (as a set equal to the list, lower-cased), the days equal ceil(rows / allowance) (1 on
 * Pro), and the 503 cell saw exactly one pause. At 150,000 rows every read of the list stays under
 * Google's 2 MB, the last ones with the status column full (this file took over the checks of the
 * former whole-sheet-small-plan.e2e.test.ts).
 *
 * Time: Starter and any top-up at 150,000 rows are 15 daily runs of part 1, each 15 reads of 10,000
 * rows through the harness's evaluation of the blueprints' IML and filters (about 2.5 million rows
 * read and filtered per cell) plus part 2 on 150,000 results: over 2 minutes each on this machine
 * even after the harness's speed-ups, so the file with them is far past the e2e tier's ~3 minutes.
 * Those two cells run with EVF_FULL_MATRIX=1 and are listed as skipped otherwise; they passed in
 * the full run measured in the commit that added this file. Every other cell runs by default.
 */
import { startSandbox, type AccountSeed, type Sandbox } from '@evf/sandbox';
import { ScenarioError } from './harness/scenario';
import { setScenarioClock } from './harness/scenario-iml';
import { RESULTS_TAB, SHEETS_PAYLOAD_MAX_BYTES, type SheetModel } from './harness/scenario-sheets';
import { blueprints, newSheet, runWholeSheet, type FlowRun } from './harness/scenario-sheet-flow';
import { isLongCell, matrixSizes, PLAN_MATRIX } from '../../../test/support/plan-matrix';

/** The date form the blueprints and the app write (formatDate "D MMMM YYYY, HH:mm [UTC]"). */
const MAKE_DATE = /(\d{1,2}) ([A-Z][a-z]+) (\d{4}), (\d\d):(\d\d) UTC/;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The time a sheet cell or a message names, read back from Make's date form. */
function timeIn(words: string): number {
  const m = MAKE_DATE.exec(words);
  if (!m) throw new Error(`no date in: ${words}`);
  const month = MONTHS.indexOf(m[2]!);
  expect(month).toBeGreaterThanOrEqual(0);
  return Date.UTC(Number(m[3]), month, Number(m[1]), Number(m[4]), Number(m[5]));
}

/** Unique addresses (the sandbox picks outcomes by hash, some refunded at job end), one in upper case. */
const listOf = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) =>
    i === 7 ? `LEAD${i}.${tag}@Example.com` : `lead${i}.${tag}@example.com`,
  );

function verifiedEmails(sheet: SheetModel): string[] {
  return sheet
    .cells(RESULTS_TAB)
    .slice(1)
    .map((r) => r[0]!.toLowerCase());
}

interface Measured {
  days: number;
  pauses: number;
  jobs: number[];
  sheet: SheetModel;
}

async function runToDone(sb: Sandbox, seed: AccountSeed, list: string[], pause: boolean): Promise<Measured> {
  const acct = sb.addAccount({ credits: 1_000_000, ...seed });
  if (pause) sb.faults.pauseNewJobs({ retryAfterSeconds: 3600, afterJobs: 1, liftsAtRetryAfter: true });
  const connection = { apiKey: acct.apiKey, baseUrl: sb.baseUrl };
  let offset = 0;
  const now = () => Date.now() + offset;
  const moveTo = (at: number) => {
    const ms = Math.max(0, at - now());
    offset += ms;
    sb.advanceTime(ms);
  };
  const restore = setScenarioClock(now);
  const sheet = newSheet(list);
  const m: Measured = { days: 1, pauses: 0, jobs: [], sheet };
  const charged = () => sb.ledger(acct.accountId).charged;
  let stops = 0;
  /** The 503's continue time (one per pause: the fault names one fixed time). */
  const pauses = new Set<number>();
  const pausedUntil = (e: ScenarioError): number => {
    if (!(pause && e.stoppedBy?.status === 503)) throw e;
    expect(e.stoppedBy.type).toBe('ConnectionError');
    expect(e.message).toMatch(new RegExp(`safe to run again after ${MAKE_DATE.source}\\.`));
    expect(e.message).not.toMatch(/\d{9,}/);
    const at = timeIn(e.message);
    pauses.add(at);
    return at;
  };
  try {
    for (let run = 0; run < 80; run++) {
      const before = charged();
      const out = await runWholeSheet(sb, sheet, blueprints(), connection).catch((e: unknown) => e);
      if (out instanceof ScenarioError) {
        // The 503 after the first job: the stopped run says when to continue, as a date; nothing new
        // was charged; at that time the pause has lifted and part 1 sends only the rows left.
        moveTo(pausedUntil(out));
        expect(charged()).toBe(before);
        continue;
      }
      const flow = out as FlowRun;
      if (flow.jobId) m.jobs.push(sb.job(flow.jobId)!.total_emails);
      const after = sheet.cells(RESULTS_TAB)[1]?.[9] ?? '';
      if (after === '') {
        if (!flow.jobId) break; // nothing left: done
        continue; // more fits today (Pro): the next run at once
      }
      // A stop: the rest reads "left for the next run of part 1 (after <date>)". A same-day rerun
      // charges nothing (on the first two stops: each costs a read of the whole list).
      expect(after).toMatch(new RegExp(`^${MAKE_DATE.source}$`));
      if (++stops <= 2) {
        const ledger = charged();
        const again = await runWholeSheet(sb, sheet, blueprints(), connection).catch((e: unknown) => e);
        if (again instanceof ScenarioError && again.stoppedBy?.status === 503) pausedUntil(again);
        else if (again instanceof ScenarioError) {
          // The account's figures are net of refunds, the allowance counts addresses: the service may
          // refuse what the figures leave room for. Retry-later is right (the job fits tomorrow).
          expect(again.stoppedBy?.type).toBe('RateLimitError');
          expect(again.message).toMatch(new RegExp(`fits again after ${MAKE_DATE.source}`));
          expect(again.message).not.toMatch(/\d{9,}/);
        } else expect((again as FlowRun).jobId).toBeUndefined();
        expect(charged()).toBe(ledger);
      }
      moveTo(timeIn(sheet.cells(RESULTS_TAB)[1]?.[9] ?? after));
      m.days += 1;
    }
  } finally {
    restore();
  }
  m.pauses = pauses.size;
  expect(charged()).toBe(list.length);
  return m;
}

describe.each([false, true])(
  'a big list on a small plan through the whole-sheet example (503 after the first job: %s)',
  (pause) => {
    let sb: Sandbox;
    beforeAll(async () => {
      sb = await startSandbox({
        port: 0,
        timeScale: 0.001,
        rowsPerSecond: 200_000,
        resolver: async () => ['93.184.216.34'],
      });
      // Part 2 starts from the harness's signed delivery; the sandbox's own deliveries go nowhere.
      sb.faults.webhookFailures(1_000_000);
    });
    afterAll(() => sb.close());

    describe.each(PLAN_MATRIX)('%s', (name, seed, perDay) => {
      const sizes = matrixSizes(perDay, pause);
      for (const size of sizes)
        (isLongCell(perDay, size) ? test.skip : test)(
          `${size} rows: each address charged once, every result in the sheet, days = the arithmetic`,
          async () => {
            const list = listOf(size, `${name.length}${pause ? 'p' : ''}${size}`);
            const m = await runToDone(sb, seed, list, pause);
            expect(m.days).toBe(perDay === null ? 1 : Math.ceil(size / perDay));
            const jobs = Math.ceil(size / Math.min(perDay ?? 50_000, 50_000));
            expect(m.jobs).toHaveLength(jobs);
            expect(m.pauses).toBe(pause && jobs > 1 ? 1 : 0);
            const verified = verifiedEmails(m.sheet);
            expect(new Set(verified)).toEqual(new Set(list.map((e) => e.toLowerCase())));
            if (size === 150_000) {
              // Every read under 2 MB; the last run read the list with a status in every row.
              const reads = m.sheet.log.filter((l) => l.method === 'GET' && l.range.startsWith('Leads!'));
              expect(reads.length).toBeGreaterThanOrEqual(15 * 2);
              expect(Math.max(...reads.map((l) => l.answerBytes))).toBeLessThan(SHEETS_PAYLOAD_MAX_BYTES);
              expect(
                m.sheet
                  .cells('Leads')
                  .slice(1)
                  .filter((r) => (r[1] ?? '') === ''),
              ).toEqual([]);
            }
          },
          300_000,
        );
    });
  },
);
