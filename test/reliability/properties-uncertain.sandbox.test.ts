/**
 * Property: a bulk POST whose fate the client cannot know (a 5xx, a dropped connection or an answer
 * cut mid-body AFTER the service created the job) is never sent again, and the list stops there:
 * the sandbox sees exactly one POST per chunk up to the uncertain one, holds exactly those jobs, and
 * has charged exactly their addresses. The user is told which jobs exist. 200 runs.
 */
import fc from 'fast-check';
import { EmailVerificationClient, PartialSubmissionError, SubmissionUncertainError } from '@evf/client';
import { acceleratedRuntime, fetchTransport } from '@evf/client/node';
import type { Sandbox } from '@evf/sandbox';
import { expectedUnique, fcParams, listInput } from '../support/arbitraries';
import { countBulkPosts, freshAccount, requestsSince, startFastSandbox } from '../support/sandbox';
import { installSecretGuard } from '../support/secret-guard';

installSecretGuard();

const RUNS = 200;
let sb: Sandbox;
beforeAll(async () => {
  sb = await startFastSandbox({ timeScale: 1 / 1000 });
});
afterAll(() => sb.close());

const uncertainFault = fc.constantFrom(
  { status: 500 },
  { status: 502 },
  { status: 504 },
  { drop: 'before-response' as const },
  { drop: 'mid-body' as const },
);

test(`an uncertain bulk POST at any position of a split list (${RUNS} runs): never resent, nothing after it sent, charges exact`, async () => {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(
      listInput,
      fc.integer({ min: 2, max: 8 }),
      fc.nat(),
      uncertainFault,
      async ({ list, input }, maxPerJob, pick, fault) => {
        runs++;
        sb.faults.clear();
        const expected = expectedUnique(list);
        const chunks = Math.ceil(expected.length / maxPerJob);
        const k = (pick % chunks) + 1; // the k-th POST is the uncertain one
        const acct = freshAccount(sb, 10_000);
        let postsStarted = 0;
        const client = new EmailVerificationClient({
          apiKey: acct.apiKey,
          baseUrl: sb.baseUrl,
          transport: fetchTransport,
          runtime: acceleratedRuntime(1000),
          // Arms the fault as the k-th POST leaves, so the service creates that job and the answer is lost.
          onRequest: ({ method, path }) => {
            if (method === 'POST' && path === '/v1/verify/bulk' && ++postsStarted === k) {
              sb.faults.failNext({ path: '/v1/verify/bulk', method: 'POST', when: 'after', ...fault });
            }
          },
        });
        const from = sb.requests.length;
        const error = await client.submitList({ emails: input }, { maxPerJob }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeDefined();
        if (chunks === 1) expect(error).toBeInstanceOf(SubmissionUncertainError);
        else {
          // What happened to every address: k-1 jobs accepted, the k-th chunk in doubt, the rest never sent.
          const partial = error as PartialSubmissionError;
          expect(partial).toBeInstanceOf(PartialSubmissionError);
          expect(partial.cause).toBeInstanceOf(SubmissionUncertainError);
          expect(partial.submittedJobIds).toHaveLength(k - 1);
          expect(partial.uncertain?.emails).toEqual(expected.slice((k - 1) * maxPerJob, k * maxPerJob));
          expect(partial.unsent).toEqual(expected.slice(k * maxPerJob));
        }
        expect(sb.faults.snapshot().fail_next).toEqual([]);
        expect(countBulkPosts(requestsSince(sb, from))).toBe(k);
        const jobs = (await client.listJobs({ limit: 100 })).jobs;
        expect(jobs).toHaveLength(k);
        const charged = Math.min(expected.length, k * maxPerJob);
        expect(sb.ledger(acct.accountId).charged).toBe(charged);
        expect(jobs.reduce((n, j) => n + j.total_emails, 0)).toBe(charged);
      },
    ),
    fcParams(RUNS, 2),
  );
  expect(runs).toBeGreaterThanOrEqual(RUNS);
}, 120_000);
