/**
 * Submit Bulk Verification splits a list over the service's 50,000 addresses a call into several jobs,
 * and says what was made when the rest stops, against the sandbox. Moved from the unit tier: 50,001 addresses through the app tester took 1.3 to
 * 2 s on two shared cores (the pre-flight of the list alone 0.1 to 0.3 s), past a unit test's 1 s.
 */
import { freshAccount } from '../../../test/support/sandbox';
import { run, steps, zapierError } from './helpers';
import { useSandboxSession } from './sandbox-session';

const session = useSandboxSession();

it('splits a list of 50,001 addresses into a job of 50,000 and a job of 1, each charged once', async () => {
  const { sb } = session;
  const account = freshAccount(sb);
  const emails = Array.from({ length: 50_001 }, (_, i) => `valid.split.${i}@acme-corp.com`);
  const out = await run(steps.bulk, { authData: { api_key: account.apiKey }, inputData: { emails } });
  expect(out).toMatchObject({ job_count: 2, total_emails: 50_001, credits_used: 50_001, all_sent: true });
  expect(out.job_ids).toHaveLength(2);
  expect(out.jobs.map((j: { total_emails: number }) => j.total_emails)).toEqual([50_000, 1]);
  expect(sb.ledger(account.accountId).charged).toBe(50_001);
}, 60_000);

it('a list stopped after its first job (out of credits) halts, naming the job made and the addresses not sent', async () => {
  const { sb } = session;
  // Credits for the first job only: the second (3 addresses) is refused with 402.
  const account = freshAccount(sb, 50_001);
  const emails = Array.from({ length: 50_003 }, (_, i) => `valid.stop.${i}@acme-corp.com`);
  const error = await zapierError(
    run(steps.bulk, { authData: { api_key: account.apiKey }, inputData: { emails } }),
  );
  expect(error.name).toBe('HaltedError');
  expect(error.message).toMatch(
    /^Part of the list was submitted as 1 job\(s\) \(job_[^)]+\), then the rest stopped; 3 addresses were not sent\./,
  );
  expect(error.message).not.toMatch(/GET \/v1|Get Many/);
  expect(sb.ledger(account.accountId).charged).toBe(50_000);
}, 60_000);
