/**
 * Verify File and Wait on 50,000 rows with a slow service (the sandbox's latency on every answer, the
 * wall clock): the run ends complete inside each step's budget, a replay of the complete run gives the
 * same file and charges nothing, and no step takes Zapier's 30 s. Before the rows were read in parallel
 * windows, the resume at 1.5 s an answer left 11,357 paid rows "no answer yet" and a rerun failed.
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
  receiver = await startRawReceiver(() => 200, '/hooks/catch/slow-sheet');
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

it.each([1_000, 1_500, 9_000])(
  'at %i ms an answer: complete in one run, the replay gives the same file and charges nothing',
  async (latencyMs) => {
    const file = makeSheetFile(50_000, `slow${latencyMs}`);
    const side: ZapierSide = {
      files,
      receiver,
      authData: { api_key: sb.apiKey, webhook_secret: sb.webhookSecret },
      zcache: {},
    };
    const url = files.host(`slow-${latencyMs}.csv`, file.csv);
    sb.faults.setLatency(latencyMs);
    try {
      const first = await runWholeSheetZap(sb, side, url);
      expect(first.error).toBeUndefined();
      expect(first.output).toMatchObject({
        complete: true,
        rows_verified: file.unique,
        rows_not_verified: 0,
      });
      expect(first.charged).toBe(file.unique);
      for (const ms of first.stepMs) expect(ms).toBeLessThan(ZAPIER_STEP_LIMIT_MS);

      const replay = await runWholeSheetZap(sb, side, url);
      expect(replay.error).toBeUndefined();
      expect(replay.output).toMatchObject({
        complete: true,
        rows_verified: file.unique,
        rows_not_verified: 0,
      });
      expect(replay.output!.note).toMatch(/nothing was submitted again/);
      expect(replay.charged).toBe(0);
      expect(replay.sheet).toEqual(first.sheet);
      for (const ms of replay.stepMs) expect(ms).toBeLessThan(ZAPIER_STEP_LIMIT_MS);
      console.log(
        `slow sheet at ${latencyMs} ms: steps ${first.stepMs.join(', ')} ms; replay ${replay.stepMs.join(', ')} ms, ${replay.requests} requests`,
      );
    } finally {
      sb.faults.setLatency(0);
    }
  },
  180_000,
);
