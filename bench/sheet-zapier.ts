/**
 * Section 6, Zapier: the whole-sheet Zap of packages/zapier/docs/whole-sheet.md (file trigger, Verify
 * File and Wait for Results File, Google Drive Upload File) run on a 50,000-row file through
 * zapier-platform-core's own handler against a sandbox, with the same driver the test uses, counting
 * tasks, service requests, credits charged and refunded and wall time from the run; beside it the
 * per-row pattern the peers force (Verify Email Address, then Google Sheets Update Spreadsheet Row, per
 * row), run on a sample through the same handler and scaled to the sheet, saying so. BENCH_QUICK=1
 * counts a smaller per-row sample; the 50,000-row run takes seconds either way.
 */
import { startSandbox } from '@evf/sandbox';
import { startRawReceiver } from '../test/support/webhook-receiver';
import { startZapierFiles } from '../packages/zapier/test/support/zapier-files';
import {
  makeSheetFile,
  runPerRowStep,
  runWholeSheetZap,
  type ZapierSide,
} from '../packages/zapier/test/support/whole-sheet-flow';
import { fmt, type Row } from './lib/stats';

const ROWS = 50_000;

export async function benchSheetZapier(log: (s: string) => void): Promise<Row[]> {
  const sample = process.env.BENCH_QUICK ? 50 : 200;
  const sb = await startSandbox({
    port: 0,
    timeScale: 0.001,
    rowsPerSecond: 100_000,
    allowInsecureWebhooks: true,
  });
  const receiver = await startRawReceiver(() => 200, '/hooks/catch/bench');
  const files = await startZapierFiles();
  const previous = process.env.EVF_BASE_URL;
  process.env.EVF_BASE_URL = sb.baseUrl;
  // Core prints a line per invocation in some modes; keep the bench's output to its own lines.
  const quietLog = console.log;
  console.log = (...args: unknown[]) => void (args[0] !== 'ZID:' && quietLog(...args));
  try {
    const side: ZapierSide = {
      files,
      receiver,
      authData: { api_key: sb.apiKey, webhook_secret: sb.webhookSecret },
      zcache: {},
    };
    const file = makeSheetFile(ROWS);
    const run = await runWholeSheetZap(sb, side, files.host('leads.csv', file.csv), { name: 'bench' });
    if (!run.output) throw new Error(`the Zap stopped: ${run.error?.message}`);
    const out = run.output;
    const answered =
      (out.rows_verified as number) + (out.rows_duplicate as number) + (out.rows_skipped as number);
    log(
      `zapier sheet: ${ROWS} rows (${file.unique} unique, ${file.duplicates} duplicates, ${file.malformed} malformed, ${file.empty} empty): ` +
        `${run.tasks} tasks, ${run.requests} service requests, ${run.charged} credits charged, ${run.refunded} refunded, ` +
        `${(run.wallMs / 1000).toFixed(1)} s (steps ${run.stepMs.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(' + ')}); ${answered} of ${ROWS} rows written back with an answer or a reason`,
    );

    // The per-row pattern: a Verify Email Address task and an Update Spreadsheet Row task per row,
    // counted on the first `sample` rows of the same file through the same handler, then scaled to
    // the sheet (linear: each row is its own Zap run).
    const ledgerBefore = sb.ledger(sb.apiKey);
    const requestsBefore = sb.requests.length;
    const started = Date.now();
    let tasks = 0;
    const emails = file.csv
      .split('\r\n')
      .slice(1, sample + 1)
      .map((line) => line.split(',')[1] ?? '');
    for (const email of emails) {
      const step = await runPerRowStep(side, email);
      // A step that errors bills no task; its row gets no update either.
      if (step.results) tasks += 2;
    }
    const wallPerRow = (Date.now() - started) / emails.length;
    const ledgerAfter = sb.ledger(sb.apiKey);
    const scale = ROWS / emails.length;
    const perRowTasks = tasks * scale;
    const perRowRequests = (sb.requests.length - requestsBefore) * scale;
    const perRowCharged = (ledgerAfter.charged - ledgerBefore.charged) * scale;
    const perRowRefunded = (ledgerAfter.refunded - ledgerBefore.refunded) * scale;
    log(
      `zapier per-row: ${emails.length} rows counted, scaled x${scale}: ${perRowTasks} tasks, ${perRowRequests} service requests, ` +
        `${perRowCharged} credits charged, ${perRowRefunded} refunded, ${((wallPerRow * ROWS) / 1000).toFixed(1)} s of steps in sequence`,
    );
    const label = `Zapier: ${fmt(ROWS, 0)}-row sheet`;
    return [
      {
        benchmark: label,
        measure: 'tasks, write-back included',
        ours: String(run.tasks),
        baseline: `${perRowTasks} (per row, scaled from ${emails.length})`,
        ratio: `${(perRowTasks / run.tasks).toFixed(0)}x fewer`,
        target: '<= 25',
        met: run.tasks <= 25,
      },
      {
        benchmark: label,
        measure: 'rows written back with an answer or reason',
        ours: `${answered} of ${ROWS}`,
        baseline: `${ROWS} (one Zap run per row)`,
        ratio: '–',
        target: 'every row',
        met: answered === ROWS,
      },
      {
        benchmark: label,
        measure: 'service requests',
        ours: String(run.requests),
        baseline: `${perRowRequests} (scaled)`,
        ratio: `${(perRowRequests / run.requests).toFixed(0)}x fewer`,
        target: '–',
        met: null,
      },
      {
        benchmark: label,
        measure: 'credits charged / refunded',
        ours: `${run.charged} / ${run.refunded}`,
        baseline: `${perRowCharged} / ${perRowRefunded} (scaled)`,
        ratio: `${run.refunded - perRowRefunded} more refunded`,
        target: '–',
        met: null,
      },
      {
        benchmark: label,
        measure: 'longest app step (Zapier stops a step at 30 s)',
        ours: `${(Math.max(...run.stepMs) / 1000).toFixed(1)} s`,
        baseline: '–',
        ratio: '–',
        target: '< 30 s',
        met: Math.max(...run.stepMs) < 30_000,
      },
      {
        benchmark: label,
        measure: 'wall time (sandbox, time-scaled job)',
        ours: `${(run.wallMs / 1000).toFixed(1)} s`,
        baseline: `${((wallPerRow * ROWS) / 1000).toFixed(1)} s (scaled)`,
        ratio: '–',
        target: '–',
        met: null,
      },
    ];
  } finally {
    console.log = quietLog;
    if (previous === undefined) delete process.env.EVF_BASE_URL;
    else process.env.EVF_BASE_URL = previous;
    await files.close();
    await receiver.close();
    await sb.close();
  }
}
