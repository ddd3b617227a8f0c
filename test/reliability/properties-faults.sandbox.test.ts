/**
 * Property: under any schedule of faults the client is built to ride out (5xx, 429, 503 and dropped
 * connections on reads; 429 and 503 refusals of a bulk POST), a list still ends with each unique valid
 * address verified and read back exactly once, credits = unique - refunds, and no bulk submission sent
 * twice: the bulk POSTs the sandbox saw are exactly one per job plus one per refusal it was told to give.
 * 200 runs, each on a fresh account; every armed fault must have fired.
 */
import fc from 'fast-check';
import type { Sandbox } from '@evf/sandbox';
import { expectedUnique, faultSchedule, fcParams, listInput } from '../support/arbitraries';
import { journeyClient, REFUNDED_LABELS, verifyListJourney } from '../support/list-run';
import { countBulkPosts, freshAccount, requestsSince, startFastSandbox } from '../support/sandbox';
import { installSecretGuard } from '../support/secret-guard';

installSecretGuard();

const SPEED = 1000;
const RUNS = 200;
const MAX_FAULTS = 6;
let sb: Sandbox;
beforeAll(async () => {
  // Delta-seconds resets: an accelerated client clock reads absolute reset times as "no wait".
  sb = await startFastSandbox({
    timeScale: 1 / SPEED,
    queueDelayMs: 100,
    rateLimitResetFormat: 'delta-seconds',
  });
});
afterAll(() => sb.close());

test(`random lists under random fault schedules (${RUNS} runs): exactly once, credits exact, no bulk POST sent twice`, async () => {
  let runs = 0;
  let faultsFired = 0;
  await fc.assert(
    fc.asyncProperty(
      listInput,
      faultSchedule(MAX_FAULTS),
      fc.integer({ min: 3, max: 25 }),
      fc.integer({ min: 1, max: 12 }),
      async ({ list, input }, schedule, maxPerJob, perPage) => {
        runs++;
        sb.faults.clear();
        const acct = freshAccount(sb, 10_000);
        // More retries than faults: every schedule here is one the client must survive.
        const client = journeyClient(sb, acct.apiKey, SPEED, MAX_FAULTS + 1);
        for (const f of schedule) sb.faults.failNext(f.spec);
        const from = sb.requests.length;

        const { submission, rows, statuses } = await verifyListJourney(client, input, { maxPerJob, perPage });
        const expected = expectedUnique(list);

        expect(sb.faults.snapshot().fail_next).toEqual([]);
        faultsFired += schedule.length;
        expect(statuses.every((s) => s === 'completed')).toBe(true);
        expect(rows.map((r) => r.email)).toEqual(expected);
        const refunds = rows.filter((r) => REFUNDED_LABELS.includes(r.details.primary_label)).length;
        expect(sb.ledger(acct.accountId)).toEqual({
          charged: expected.length,
          refunded: refunds,
          credits: 10_000 - expected.length + refunds,
        });

        const refusals = schedule.filter((f) => f.target === 'bulk').length;
        const jobsOnService = (await client.listJobs({ limit: 100 })).jobs.length;
        expect(jobsOnService).toBe(submission.jobs.length);
        expect(countBulkPosts(requestsSince(sb, from))).toBe(jobsOnService + refusals);
      },
    ),
    fcParams(RUNS, 1),
  );
  expect(runs).toBeGreaterThanOrEqual(RUNS);
  expect(faultsFired).toBeGreaterThan(RUNS);
}, 120_000);
