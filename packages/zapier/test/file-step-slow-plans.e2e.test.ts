/**
 * Verify File and Wait on a slow service, per plan: at 5 and 9 s an answer (the sandbox's latency on
 * every answer, on the wall clock, as Zapier's 30 s per step is) every run sends a job or says exactly
 * why not, no step reaches 30 s, and the list converges, one run a day as the whole-sheet recipe runs it
 * (the sandbox's clock moved a day between runs). Before the account was read once per run and at the
 * same time as the earlier jobs, a Starter file at 9 s sent nothing in 12 runs ("Zapier's 30 seconds ran
 * out"), and at 5 s every run after the first failed.
 *
 * Two cells always (the full-size Starter cell at 9 s, five days; Pro at 60,000 rows at 9 s, two jobs);
 * the other two with EVF_FULL_MATRIX=1.
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { startRawReceiver, type RawReceiver } from '../../../test/support/webhook-receiver';
import { useBaseUrl } from './helpers';
import { startZapierFiles, type ZapierFiles } from './support/zapier-files';
import { makeSheetFile, runWholeSheetZap, type ZapierSide } from './support/whole-sheet-flow';

let sb: Sandbox;
let receiver: RawReceiver;
let files: ZapierFiles;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 100_000, allowInsecureWebhooks: true });
  receiver = await startRawReceiver(() => 200, '/hooks/catch/slow-plans');
  files = await startZapierFiles();
});
afterAll(async () => {
  await files?.close();
  await receiver?.close();
  await sb?.close();
});
useBaseUrl(() => sb.baseUrl);

/** Zapier's limit for one step. */
const ZAPIER_STEP_LIMIT_MS = 30_000;
const DAY_MS = 24 * 3600 * 1000;
const PER_DAY: Record<string, number> = { starter: 10_000, pro: Number.POSITIVE_INFINITY };

const full = process.env.EVF_FULL_MATRIX === '1';
const cells: Array<['starter' | 'pro', number, number, boolean]> = [
  ['starter', 50_000, 9_000, true],
  ['pro', 60_000, 9_000, true],
  ['starter', 60_000, 5_000, full],
  ['pro', 50_000, 5_000, full],
];

describe.each(cells.filter(([, , , on]) => on))(
  '%s plan, %i rows, %i ms an answer',
  (plan, rows, latencyMs) => {
    it('each run sends a job or says exactly why not, every step under 30 s, and the list converges', async () => {
      const account = sb.addAccount({ plan, credits: 1_000_000 });
      const side: ZapierSide = { files, receiver, authData: { api_key: account.apiKey }, zcache: {} };
      const file = makeSheetFile(rows, `${plan}${rows}x${latencyMs}`);
      const url = files.host(`${plan}-${rows}-${latencyMs}.csv`, file.csv);
      const perRun = Math.min(PER_DAY[plan]!, 50_000);
      const runsNeeded = Math.ceil(file.unique / perRun);
      const log: string[] = [];
      sb.faults.setLatency(latencyMs);
      try {
        let charged = 0;
        let done = false;
        for (let run = 1; run <= runsNeeded && !done; run++) {
          const out = await runWholeSheetZap(sb, side, url);
          log.push(`run ${run}: steps ${out.stepMs.join(', ')} ms, charged ${out.charged}`);
          for (const ms of out.stepMs) expect(ms).toBeLessThan(ZAPIER_STEP_LIMIT_MS);
          // Run once a day, as the recipe's schedule does: each run sends that day's job.
          expect(out.error).toBeUndefined();
          expect(out.charged).toBe(Math.min(perRun, file.unique - charged));
          charged += out.charged;
          done = out.output!.complete === true;
          if (!done)
            expect(out.output!.note).toMatch(
              plan === 'starter'
                ? /not sent yet: over today's allowance, runs again after \d{4}-\d\d-\d\d \d\d:\d\d UTC/
                : /not sent yet: one run of this step sends one job; run this step again/,
            );
          sb.advanceTime(DAY_MS);
        }
        expect(done).toBe(true);
        expect(charged).toBe(file.unique);
        expect(sb.ledger(account.accountId).charged).toBe(file.unique);
      } finally {
        sb.faults.setLatency(0);
        console.log(`${plan} ${rows} rows at ${latencyMs} ms: ${log.join('; ')}`);
      }
    }, 600_000);
  },
);
