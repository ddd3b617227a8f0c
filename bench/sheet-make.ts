/**
 * Section 6, Make: the whole-sheet flow of packages/make/examples (two scenario blueprints) run by the
 * scenario runner on a 50,000-row list against a sandbox, counting Make operations, service requests,
 * credits charged and refunded and wall time from the run; beside it the per-row pattern the peers
 * force (Verify an Email Address, then Google Sheets Update a Row, per row), run on a sample through the
 * same harness and scaled to 50,000, saying so. BENCH_QUICK=1 runs the flow on 10,000 rows.
 */
import { startSandbox } from '@evf/sandbox';
import { runModule } from '../packages/make/test/support/make-runtime';
import { leadList, newSheet, runWholeSheet } from '../packages/make/test/support/scenario-sheet-flow';
import { fmt, type Row } from './lib/stats';

const ROWS = 50_000;
const SAMPLE = 200;

export async function benchSheetMake(log: (s: string) => void): Promise<Row[]> {
  const rows = process.env.BENCH_QUICK ? 10_000 : ROWS;
  const sb = await startSandbox({ port: 0, timeScale: 0.002, rowsPerSecond: 2000, resolver: async () => ['93.184.216.34'] });
  sb.faults.webhookFailures(1_000_000); // the test hands part 2 its delivery; nothing reaches the network
  try {
    const sheet = newSheet(leadList(rows, 0, 0));
    const before = sb.ledger();
    const requestsBefore = sb.requests.length;
    const started = Date.now();
    const run = await runWholeSheet(sb, sheet);
    const wallMs = Date.now() - started;
    const after = sb.ledger();
    const ops = run.submit.operations + (run.writeBack?.operations ?? 0);
    const requests = sb.requests.length - requestsBefore;
    const sheetsCalls = run.submit.sheetsRequests + (run.writeBack?.sheetsRequests ?? 0);
    const charged = after.charged - before.charged;
    const refunded = after.refunded - before.refunded;
    log(
      `make sheet: ${rows} rows: ${ops} operations (part 1 ${run.submit.operations}, part 2 ${run.writeBack?.operations}), ` +
        `${requests} service requests, ${sheetsCalls} Sheets requests, ${charged} credits charged, ${refunded} refunded, ${(wallMs / 1000).toFixed(1)} s`,
    );

    // The per-row pattern: one Verify an Email Address run and one Update a Row per row, counted on a
    // sample of SAMPLE rows through the app's own module, then scaled to the list (linear: no state).
    const sampleBefore = sb.ledger();
    const sampleRequestsBefore = sb.requests.length;
    const list = leadList(SAMPLE, 0, 0);
    let sampleOps = 0;
    for (const email of list) {
      await runModule('verifyEmail', { email }, { apiKey: sb.apiKey, baseUrl: sb.baseUrl });
      sampleOps += 2; // the verify module's run, then Google Sheets Update a Row for the same row
    }
    const sampleAfter = sb.ledger();
    const scale = rows / SAMPLE;
    const perRowOps = sampleOps * scale;
    const perRowRequests = (sb.requests.length - sampleRequestsBefore) * scale;
    const perRowCharged = (sampleAfter.charged - sampleBefore.charged) * scale;
    const perRowRefunded = (sampleAfter.refunded - sampleBefore.refunded) * scale;
    log(
      `make per-row: ${SAMPLE} rows counted, scaled x${scale}: ${perRowOps} operations, ${perRowRequests} service requests, ` +
        `${perRowCharged} credits charged, ${perRowRefunded} refunded`,
    );
    const label = `Make: ${fmt(rows, 0)}-row sheet`;
    return [
      { benchmark: label, measure: 'operations, write-back included', ours: String(ops), baseline: `${perRowOps} (per row, scaled from ${SAMPLE})`, ratio: `${(perRowOps / ops).toFixed(0)}x fewer`, target: '<= 60', met: ops <= 60 },
      { benchmark: label, measure: 'service requests', ours: String(requests), baseline: `${perRowRequests} (scaled)`, ratio: `${(perRowRequests / requests).toFixed(0)}x fewer`, target: '–', met: null },
      { benchmark: label, measure: 'credits charged / refunded', ours: `${charged} / ${refunded}`, baseline: `${perRowCharged} / ${perRowRefunded} (scaled)`, ratio: `${refunded - perRowRefunded} more refunded`, target: '–', met: null },
      { benchmark: label, measure: 'wall time (sandbox, time-scaled job)', ours: `${(wallMs / 1000).toFixed(1)} s`, baseline: '–', ratio: '–', target: '–', met: null },
    ];
  } finally {
    await sb.close();
  }
}
