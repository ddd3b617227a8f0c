/**
 * Property: for any list a user might paste (every outcome, case-variant duplicates, malformed rows,
 * as an array or text), each unique valid address is verified and read back exactly once, under its
 * first spelling, and the credits charged are the unique valid addresses less the refunds for the
 * rows that came back unknown or not_verified. 200 runs, each on a fresh account of one sandbox.
 */
import fc from 'fast-check';
import type { Sandbox } from '@evf/sandbox';
import { expectedUnique, fcParams, listInput } from '../support/arbitraries';
import { journeyClient, REFUNDED_LABELS, verifyListJourney } from '../support/list-run';
import { countBulkPosts, freshAccount, requestsSince, startFastSandbox } from '../support/sandbox';
import { installSecretGuard } from '../support/secret-guard';

installSecretGuard();

const SPEED = 1000;
const RUNS = 200;
let sb: Sandbox;
beforeAll(async () => {
  sb = await startFastSandbox({ timeScale: 1 / SPEED, queueDelayMs: 100 });
});
afterAll(() => sb.close());

test(`random lists (${RUNS} runs): every unique valid address verified and read back exactly once; credits = unique - refunds`, async () => {
  let runs = 0;
  let addresses = 0;
  await fc.assert(
    fc.asyncProperty(
      listInput,
      fc.integer({ min: 3, max: 25 }),
      fc.integer({ min: 1, max: 12 }),
      async ({ list, input }, maxPerJob, perPage) => {
        runs++;
        const acct = freshAccount(sb, 10_000);
        const from = sb.requests.length;
        const client = journeyClient(sb, acct.apiKey, SPEED, 3);
        const { submission, rows, statuses } = await verifyListJourney(client, input, { maxPerJob, perPage });
        const expected = expectedUnique(list);
        addresses += expected.length;

        expect(statuses.every((s) => s === 'completed')).toBe(true);
        expect(rows.map((r) => r.email)).toEqual(expected);
        expect(rows.every((r) => typeof r.details?.primary_label === 'string')).toBe(true);
        expect(submission.jobs).toHaveLength(Math.ceil(expected.length / maxPerJob));
        expect(submission.creditsUsed).toBe(expected.length);

        const refunds = rows.filter((r) => REFUNDED_LABELS.includes(r.details.primary_label)).length;
        expect(sb.ledger(acct.accountId)).toEqual({
          charged: expected.length,
          refunded: refunds,
          credits: 10_000 - expected.length + refunds,
        });
        expect(countBulkPosts(requestsSince(sb, from))).toBe(submission.jobs.length);
      },
    ),
    fcParams(RUNS, 0),
  );
  expect(runs).toBeGreaterThanOrEqual(RUNS);
  expect(addresses).toBeGreaterThan(RUNS * 5);
}, 120_000);
