/**
 * Re-verifying on purpose, in Verify File and Wait: a rerun on the same list reuses the answers it paid
 * for and says when they were made; Verify Again After (Days) verifies answers older than that again,
 * and a replay of that run reuses the fresh ones (never a second charge). The sandbox's clock runs ten
 * days behind for the first run, so its answers are ten days old afterwards.
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { startRawReceiver, type RawReceiver } from '../../../test/support/webhook-receiver';
import { useBaseUrl } from './helpers';
import { startZapierFiles, type ZapierFiles } from './support/zapier-files';
import { runWholeSheetZap, type ZapierSide } from './support/whole-sheet-flow';

const DAY_MS = 24 * 3600 * 1000;
let behindMs = 10 * DAY_MS;
let sb: Sandbox;
let receiver: RawReceiver;
let files: ZapierFiles;

beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    timeScale: 0.001,
    allowInsecureWebhooks: true,
    now: () => Date.now() - behindMs,
  });
  receiver = await startRawReceiver(() => 200, '/hooks/catch/verify-again');
  files = await startZapierFiles();
});
afterAll(async () => {
  await files?.close();
  await receiver?.close();
  await sb?.close();
});
useBaseUrl(() => sb.baseUrl);

it('reuses answers with their date, verifies again past Verify Again After (Days), and a replay charges nothing', async () => {
  const side: ZapierSide = {
    files,
    receiver,
    authData: { api_key: sb.apiKey, webhook_secret: sb.webhookSecret },
    zcache: {},
  };
  const csv =
    'Email\nvalid.again1@acme-corp.com\ncatchall.again2@acme-corp.com\ninvalid.again3@acme-corp.com\n';
  const url = files.host('again.csv', csv);
  const first = await runWholeSheetZap(sb, side, url);
  expect(first.error).toBeUndefined();
  expect(first.charged).toBe(3);
  behindMs = 0;

  const reused = await runWholeSheetZap(sb, side, url);
  expect(reused.charged).toBe(0);
  expect(reused.output!.note).toMatch(/These answers are from \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  // The output says when the answers were made: ten days before now (the first run's clock).
  const age = Date.now() - Date.parse(reused.output!.answered_at as string);
  expect(age).toBeGreaterThan(9 * DAY_MS);

  const youngEnough = await runWholeSheetZap(sb, side, url, { reverify_after_days: '30' });
  expect(youngEnough.charged).toBe(0);

  const fresh = await runWholeSheetZap(sb, side, url, { reverify_after_days: '7' });
  expect(fresh.error).toBeUndefined();
  expect(fresh.charged).toBe(3);
  expect(fresh.output).toMatchObject({ complete: true, rows_verified: 3 });
  expect(Date.now() - Date.parse(fresh.output!.answered_at as string)).toBeLessThan(DAY_MS);

  // Zapier replays the same run later: the answers are now minutes old, so nothing is charged again.
  const replay = await runWholeSheetZap(sb, side, url, { reverify_after_days: '7' });
  expect(replay.charged).toBe(0);
}, 30_000);
