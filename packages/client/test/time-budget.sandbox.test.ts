/**
 * A time budget (RequestOptions.deadline) against the real sandbox over loopback: a list is posted job by
 * job only while a whole attempt still fits, what was not sent is returned exactly, and reads and their
 * retries never run past the deadline (a read hanging on the wall clock: deadlines.e2e.test.ts). The client's clock runs SPEED times faster than the wall clock, so
 * a service that takes 6 s per answer takes 6 s / SPEED here.
 */
import { EmailVerificationClient, TimeBudgetSpentError, type Runtime } from '@evf/client';
import { acceleratedRuntime, fetchTransport } from '@evf/client/node';
import type { Sandbox } from '@evf/sandbox';
import { freshAccount, startFastSandbox } from '../../../test/support/sandbox';

const SPEED = 10;
let sb: Sandbox;
beforeAll(async () => {
  sb = await startFastSandbox();
});
afterAll(() => sb?.close());

function budgetClient(apiKey: string): {
  client: EmailVerificationClient;
  runtime: Runtime;
  posts: number[];
} {
  const runtime = acceleratedRuntime(SPEED);
  const posts: number[] = [];
  const client = new EmailVerificationClient({
    apiKey,
    baseUrl: sb.baseUrl,
    transport: fetchTransport,
    runtime,
    timeoutMs: 10_000,
    retry: { maxRetries: 2, maxDelayMs: 5_000, maxServerWaitMs: 5_000 },
    onRequest: ({ method }) => {
      if (method === 'POST') posts.push(runtime.now());
    },
  });
  return { client, runtime, posts };
}

const addresses = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => `valid.${tag}.${i}@example.com`);

it('stops posting jobs when the next one would not fit the budget, and returns exactly the addresses not sent', async () => {
  const account = freshAccount(sb);
  const { client, runtime, posts } = budgetClient(account.apiKey);
  // 5 s per answer (client time): jobs 1 to 3 end at about 5, 11 and 17 s; a fourth attempt (10 s)
  // could end past 25 s, so it is not started. The client's clock runs SPEED times the wall clock, so a
  // busy machine's delays count SPEED times over: the rule is asserted as the rule (every job started
  // while a whole attempt still fit, and none left that would have), and three jobs only as the most.
  sb.faults.slow({ path: '/v1/verify/bulk', method: 'POST', delayMs: 5_000 / SPEED, count: 3 });
  const emails = addresses(40, 'budget');
  const plan = await client.planList({ emails }, { maxPerJob: 10 });
  const deadline = runtime.now() + 25_000;
  const submission = await client.submitPlan(plan, { deadline });
  const sent = submission.jobs.length;
  expect(sent).toBeGreaterThanOrEqual(1);
  expect(sent).toBeLessThanOrEqual(3);
  expect(posts).toHaveLength(sent);
  for (const at of posts) expect(at + 10_000).toBeLessThanOrEqual(deadline);
  // It stopped because the next whole attempt no longer fit, not for any other reason.
  expect(runtime.now() + 10_000).toBeGreaterThan(deadline);
  expect(submission.unsent).toEqual(emails.slice(10 * sent));
  // Charged exactly for what was accepted: a rerun with `unsent` charges nothing twice.
  expect(sb.ledger(account.accountId).charged).toBe(10 * sent);
  const rest = await client.submitList({ emails: submission.unsent });
  expect(sb.ledger(account.accountId).charged).toBe(40);
  expect(rest.unsent).toEqual([]);
});

it('a list whose first job cannot fit sends nothing and says the budget ran out', async () => {
  const account = freshAccount(sb);
  const { client, runtime, posts } = budgetClient(account.apiKey);
  const plan = await client.planList({ emails: addresses(3, 'none') });
  await expect(client.submitPlan(plan, { deadline: runtime.now() + 5_000 })).rejects.toBeInstanceOf(
    TimeBudgetSpentError,
  );
  expect(posts).toEqual([]);
  expect(sb.ledger(account.accountId).charged).toBe(0);
});
