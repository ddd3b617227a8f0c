/**
 * Zapier stops every action and search at 30 s ("Important Zapier constraints summary",
 * https://docs.zapier.com/platform/build/operating-constraints). These run the steps through
 * zapier-platform-core's app tester against the sandbox, with the service made slow by its fault
 * injection, on the wall clock (a Zap's clock): each takes about 25 s, the step's own budget.
 */
import { freshAccount } from '../../../test/support/sandbox';
import { STEP_BUDGET_MS } from '../src/config';
import { run, steps, zapierError } from './helpers';
import { useSandboxSession } from './sandbox-session';

const session = useSandboxSession();
/** Zapier's limit for one step. */
const ZAPIER_STEP_LIMIT_MS = 30_000;

it('Submit Bulk Verification with slow answers stops inside the budget, returns the jobs made and the addresses not sent, and a rerun with those charges nothing twice', async () => {
  const { sb } = session;
  const account = freshAccount(sb);
  const authData = { api_key: account.apiKey };
  // 150,001 addresses are four jobs; at 7 s an answer, jobs end at about 7, 14 and 21 s and a fourth
  // attempt (up to 10 s) could end past the 25 s budget, so it is not started.
  const emails = Array.from({ length: 150_001 }, (_, i) => `valid.budget.${i}@acme-corp.com`);
  sb.faults.slow({ path: '/v1/verify/bulk', method: 'POST', delayMs: 7_000, count: 4 });
  const started = Date.now();
  const out = await run(steps.bulk, { authData, inputData: { emails } });
  const took = Date.now() - started;
  sb.faults.clear();

  expect(took).toBeLessThan(ZAPIER_STEP_LIMIT_MS);
  // How many jobs fit depends on this machine's speed (reading 150,001 addresses takes a few seconds):
  // at least one, never all four, and what was not sent is exactly the rest of the list.
  const sent = out.job_count as number;
  expect(sent).toBeGreaterThanOrEqual(1);
  expect(sent).toBeLessThan(4);
  expect(out).toMatchObject({ all_sent: false, unsent_count: 150_001 - sent * 50_000 });
  expect(out.job_ids).toHaveLength(sent);
  expect(out.unsent).toEqual(emails.slice(sent * 50_000));
  expect(out.note).toMatch(/not sent and not charged/);
  expect(sb.ledger(account.accountId).charged).toBe(sent * 50_000);

  // The Zap maps Not Sent Addresses into another Submit step: only those are charged, each once.
  const rest = await run(steps.bulk, { authData, inputData: { emails: out.unsent } });
  expect(rest).toMatchObject({ all_sent: true, unsent: [] });
  expect(sb.ledger(account.accountId).charged).toBe(150_001);
}, 60_000);

it('Find Bulk Job with reads that hang ends inside 30 s, saying the service did not answer in time', async () => {
  const { sb } = session;
  const account = freshAccount(sb);
  const authData = { api_key: account.apiKey };
  const submitted = await run(steps.bulk, { authData, inputData: { emails: ['valid.hang@acme-corp.com'] } });
  // Every read hangs past the 10 s a request may take: without the budget, three tries took 31 s.
  sb.faults.slow({ path: `/v1/jobs/${submitted.job_id}`, method: 'GET', delayMs: 12_000, count: 5 });
  const started = Date.now();
  const error = await zapierError(run(steps.findJob, { authData, inputData: { job_id: submitted.job_id } }));
  const took = Date.now() - started;
  sb.faults.clear();

  expect(took).toBeLessThan(ZAPIER_STEP_LIMIT_MS);
  expect(error.message).not.toMatch(/\/v1\//);
  expect(error.message).toMatch(/ran out of time|did not answer in time/);
}, 60_000);

it('Submit Bulk Verification whose account read leaves no room for a whole attempt sends nothing and returns the list to continue from', async () => {
  const { sb } = session;
  const account = freshAccount(sb);
  // A list over 10,000 reads the account first. That read times out once (10 s), then answers after
  // 6 s: at about 17 s a 10 s attempt no longer fits the 25 s budget, so nothing is posted.
  sb.faults.slow({ path: '/v1/account', method: 'GET', delayMs: 11_000, count: 1 });
  sb.faults.slow({ path: '/v1/account', method: 'GET', delayMs: 6_000, count: 1 });
  const emails = Array.from({ length: 10_001 }, (_, i) => `valid.late.${i}@acme-corp.com`);
  const posts = () => sb.requests.filter((r) => r.method === 'POST').length;
  const postsBefore = posts();
  const started = Date.now();
  // A stop part way is an output to continue from, here with nothing sent.
  const out = await run(steps.bulk, { authData: { api_key: account.apiKey }, inputData: { emails } });
  const took = Date.now() - started;
  sb.faults.clear();

  expect(took).toBeLessThan(ZAPIER_STEP_LIMIT_MS);
  expect(out).toMatchObject({
    job_count: 0,
    all_sent: false,
    stopped_by: 'time_budget',
    unsent_count: 10_001,
  });
  expect(out.note).toMatch(/time ran out before the first job could be sent.*not sent and not charged/);
  expect(out.note).not.toMatch(/\/v1\/|POST|GET/);
  expect(posts()).toBe(postsBefore);
  expect(sb.ledger(account.accountId).charged).toBe(0);
}, 60_000);

it('Find Bulk Job Results at 9 s per page reads its whole window of 5,000 rows inside 30 s, and where the next starts', async () => {
  const { sb } = session;
  const account = freshAccount(sb);
  const authData = { api_key: account.apiKey };
  const emails = Array.from({ length: 6_000 }, (_, i) => `valid.page.${i}@acme-corp.com`);
  const submitted = await run(steps.bulk, { authData, inputData: { emails } });
  for (let i = 0; i < 400; i++) {
    const [job] = await run(steps.findJob, { authData, inputData: { job_id: submitted.job_id } });
    if (job?.terminal) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  // Every read of the job takes 9 s, its own and each page's: the step used to count its time from the
  // first page on, so the job read came on top (34 s).
  sb.faults.slow({ path: `/v1/jobs/${submitted.job_id}`, method: 'GET', delayMs: 9_000, count: 10 });
  const started = Date.now();
  const [out] = await run(steps.results, { authData, inputData: { job_id: submitted.job_id } });
  const took = Date.now() - started;
  sb.faults.clear();

  expect(took).toBeLessThan(ZAPIER_STEP_LIMIT_MS);
  // The job and the window's pages are read at once (two answers' time), so the whole window fits.
  expect(out).toMatchObject({ truncated: true, returned_rows: 5_000, next_start_row: 5_001 });
  expect(out.note).toMatch(/Start at Row = 5001/);
}, 60_000);

it('Verify Email Address after a 429 and a slow mail server ends inside 30 s with a re-verify-later answer', async () => {
  const { sb } = session;
  const account = freshAccount(sb);
  // The client waits out the 429 (about 4 s: 380 s of the sandbox's clock at timeScale 0.01), then the mail server hangs: with a 25 s timeout counted
  // from the retry and not from the step's start, this took 29.8 s, past where Zapier stops a step.
  sb.faults.failNext({ path: '/v1/verify/single', method: 'POST', status: 429, retryAfterSeconds: 380 });
  sb.faults.slow({ path: '/v1/verify/single', method: 'POST', delayMs: 28_000, count: 1, when: 'after' });
  const started = Date.now();
  const error = await zapierError(
    run(steps.verify, {
      authData: { api_key: account.apiKey },
      inputData: { email: 'slow.mailserver@acme-corp.com' },
    }),
  );
  const took = Date.now() - started;
  sb.faults.clear();

  expect(took).toBeLessThan(ZAPIER_STEP_LIMIT_MS);
  // The step's own 25 s budget holds, with 2 s for this machine; the wait came inside it, not on top.
  expect(took).toBeLessThan(STEP_BUDGET_MS + 2_000);
  expect(error).toMatchObject({ code: 'no_verdict' });
  expect(error.message).toMatch(/no answer came back in time/);
}, 60_000);
