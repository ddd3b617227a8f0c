/**
 * The whole-sheet example on a small plan, as issue #29 asks: part 1 on a Starter account in the
 * spec's shape (GET /v1/account shows plan, credits and credits_used_today only) sends what fits each
 * day and the rest on the following days (sandbox clock moved a day at a time), every address charged
 * once, a same-day rerun charging nothing; its list reads stay under Google's 2 MB at 150,000 rows
 * with the status column full. Flows of 25,000 and 150,000 rows, so e2e.
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { ScenarioError } from './harness/scenario';
import { setScenarioClock } from './harness/scenario-iml';
import { RESULTS_TAB, SHEETS_PAYLOAD_MAX_BYTES } from './harness/scenario-sheets';
import { blueprints, type FlowRun, leadList, newSheet, runWholeSheet } from './harness/scenario-sheet-flow';

function wholeSheetSandbox(): () => Sandbox {
  let sb: Sandbox | undefined;
  beforeAll(async () => {
    sb = await startSandbox({
      port: 0,
      timeScale: 0.002,
      rowsPerSecond: 2000,
      resolver: async () => ['93.184.216.34'],
    });
    sb.faults.webhookFailures(1_000_000);
  });
  afterAll(async () => {
    await sb?.close();
  });
  return () => sb!;
}

describe('part 1 on a small plan: what fits each day, the rest on the next days', () => {
  const sandbox = wholeSheetSandbox();
  const DAY = 24 * 3600_000;

  /** Runs part 1 (and part 2 when it sent a job) once a day on a Starter account in the spec's shape. */
  async function overDays(rows: number, days: number) {
    const sb = sandbox();
    const acct = sb.addAccount({ plan: 'starter', credits: 1_000_000 });
    const connection = { apiKey: acct.apiKey, baseUrl: sb.baseUrl };
    let offset = 0;
    const restore = setScenarioClock(() => Date.now() + offset);
    const list = leadList(rows, 0, 5);
    const sheet = newSheet(list);
    const jobs: number[] = [];
    const notes: string[] = [];
    try {
      for (let day = 0; day < days; day++) {
        const run = await runWholeSheet(sb, sheet, blueprints(), connection);
        jobs.push(run.jobId ? sb.job(run.jobId)!.total_emails : 0);
        // A second run the same day (a user's Run once) charges nothing: either nothing fits by the
        // account's figures, or (credits_used_today is credits, net of refunds, while the allowance
        // counts addresses) the service refuses it: a RateLimitError whose time reads as a date.
        const ledger = sb.ledger();
        const again = await runWholeSheet(sb, sheet, blueprints(), connection).catch((e: unknown) => e);
        if (again instanceof ScenarioError) {
          expect(again.stoppedBy?.type).toBe('RateLimitError');
          expect(again.message).toMatch(/fits again after \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC/);
        } else expect((again as FlowRun).jobId).toBeUndefined();
        expect(sb.ledger()).toEqual(ledger);
        notes.push(sheet.cells(RESULTS_TAB)[1]?.[9] ?? '');
        offset += DAY;
        sb.advanceTime(DAY);
      }
    } finally {
      restore();
    }
    return { sheet, jobs, notes, list, sb };
  }

  test('Starter (10,000 a day), 25,000 rows: 10,000, 10,000, then the rest, each address once; the rest say when', async () => {
    const { sheet, jobs, notes } = await overDays(25_000, 4);
    expect(jobs).toEqual([10_000, 10_000, 4_995, 0]);
    // While rows are left, J2 says when they can go, as a date (never epoch seconds).
    expect(notes[0]).toMatch(/^\d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC$/);
    expect(notes.at(-1)).toBe('');
    const left = sheet.cells('Leads').filter(([, c]) => c?.startsWith('Not submitted (never charged)'));
    expect(left).toHaveLength(5);
    const verified = sheet
      .cells(RESULTS_TAB)
      .slice(1)
      .map((r) => r[0]!.toLowerCase());
    expect(new Set(verified).size).toBe(verified.length);
    expect(verified).toHaveLength(24_995);
  }, 240_000);

  test('Starter, 150,000 rows: every read of the list stays under 2 MB, with the status column full', async () => {
    const { sheet, jobs } = await overDays(150_000, 2);
    expect(jobs).toEqual([10_000, 10_000]);
    const reads = sheet.log.filter((l) => l.method === 'GET' && l.range.startsWith('Leads!'));
    expect(reads.length).toBeGreaterThanOrEqual(15 * 4);
    expect(Math.max(...reads.map((l) => l.answerBytes))).toBeLessThan(SHEETS_PAYLOAD_MAX_BYTES);
    // Day 2's reads carried a status for every row (the list read grows with it) and still fit.
    const statuses = sheet.cells('Leads').filter(([, c]) => (c ?? '') !== '').length;
    expect(statuses).toBeGreaterThan(140_000);
  }, 240_000);
});
