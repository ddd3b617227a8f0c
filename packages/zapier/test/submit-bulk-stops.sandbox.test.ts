/**
 * Submit Bulk Verification on a small plan: a list larger than today's allowance sends what fits
 * and returns the rest with the time it can go; a rerun or replay never charges an address twice; Most
 * Addresses to Send caps a run and the next run sends the rest. Against the sandbox's spec-shaped account.
 */
import { run, steps } from './helpers';
import { useSandboxSession } from './sandbox-session';

const session = useSandboxSession();
let n = 0;
const listOf = (count: number, tag: string) =>
  Array.from({ length: count }, (_, i) => `valid.${tag}${++n}.${i}@acme-corp.com`);

it('Starter, 12,000 addresses: 10,000 sent, 2,000 returned with when to continue; a rerun at once charges nothing', async () => {
  const { sb } = session;
  const account = sb.addAccount({ plan: 'starter', credits: 100_000 });
  const authData = { api_key: account.apiKey };
  const emails = listOf(12_000, 'starter');
  const first = await run(steps.bulk, { authData, inputData: { emails } });
  expect(first).toMatchObject({
    total_emails: 10_000,
    all_sent: false,
    unsent_count: 2_000,
    stopped_by: 'allowance',
  });
  expect(first.unsent).toEqual(emails.slice(10_000));
  expect(Date.parse(first.continue_after)).toBeGreaterThan(Date.now());
  expect(first.note).toMatch(/Run this step again with the same list after \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  expect(sb.ledger(account.accountId).charged).toBe(10_000);

  // A replay of the run, and the user mapping Not Sent Addresses into the step, both before that time.
  const replay = await run(steps.bulk, { authData, inputData: { emails } });
  const mapped = await run(steps.bulk, { authData, inputData: { emails: first.unsent } });
  for (const out of [replay, mapped]) {
    expect(out).toMatchObject({
      job_count: 0,
      all_sent: false,
      unsent_count: 2_000,
      continue_after: first.continue_after,
    });
  }
  expect(replay.note).toMatch(/10,000 addresses of this list were sent by earlier runs/);
  expect(sb.ledger(account.accountId).charged).toBe(10_000);
});

it('Most Addresses to Send: 10 of 25 go, the next run of the same list sends the other 15, a third sends nothing', async () => {
  const { sb } = session;
  const account = sb.addAccount({ plan: 'pro', credits: 1_000 });
  const authData = { api_key: account.apiKey };
  const emails = listOf(25, 'cap');
  const first = await run(steps.bulk, { authData, inputData: { emails, max_addresses: '10' } });
  expect(first).toMatchObject({
    total_emails: 10,
    unsent_count: 15,
    stopped_by: 'cap',
    continue_after: null,
  });
  expect(first.note).toMatch(/15 addresses were held back by Most Addresses to Send/);
  const second = await run(steps.bulk, { authData, inputData: { emails } });
  expect(second).toMatchObject({ total_emails: 15, all_sent: true, unsent_count: 0 });
  const third = await run(steps.bulk, { authData, inputData: { emails } });
  expect(third).toMatchObject({ job_count: 0, all_sent: true });
  expect(third.note).toMatch(/25 addresses of this list were sent by earlier runs/);
  expect(sb.ledger(account.accountId).charged).toBe(25);
});

it('the whole list again after a run given only Not Sent Addresses: nothing is sent twice', async () => {
  const { sb } = session;
  const account = sb.addAccount({ plan: 'pro', credits: 1_000 });
  const authData = { api_key: account.apiKey };
  const emails = listOf(25, 'mapped');
  const first = await run(steps.bulk, { authData, inputData: { emails, max_addresses: '10' } });
  expect(first).toMatchObject({ total_emails: 10, unsent_count: 15 });
  // The user maps Not Sent Addresses into the next run; then the first run is replayed.
  const mapped = await run(steps.bulk, { authData, inputData: { emails: first.unsent } });
  expect(mapped).toMatchObject({ total_emails: 15, all_sent: true });
  const replay = await run(steps.bulk, { authData, inputData: { emails } });
  expect(replay).toMatchObject({ job_count: 0, all_sent: true });
  expect(sb.ledger(account.accountId).charged).toBe(25);
});
