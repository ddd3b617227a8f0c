/**
 * Measured, not claimed: a 50,000-row and a 150,000-row list on each plan of the spec's tables, run
 * from day 1 to done with `sendWhatFits` and the replay memory (nextSend, rememberRun), against the
 * sandbox answering GET /v1/account in the spec's shape, its clock moved a day at a time. Between runs,
 * the replays a user tries: the same list again at once through the memory, and the unsent addresses
 * sent again at once straight to the client. Asserted: every address charged exactly once, every row's
 * result back, and the days equal the allowance's arithmetic; the same with a 503 after the first job.
 */
import { EmailVerificationClient, nextSend, rememberRun, type ListMemory, type Runtime } from '@evf/client';
import { fetchTransport, nodeRuntime } from '@evf/client/node';
import type { AccountSeed, Sandbox } from '@evf/sandbox';
import { startFastSandbox } from '../../../test/support/sandbox';
import { jobsFor, matrixSizes, PLAN_MATRIX } from '../../../test/support/plan-matrix';

const HOUR = 3600_000;

/** Addresses whose answers the sandbox picks by hash (some unknown, refunded at job end), one spelling in upper case. */
const listOf = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) =>
    i === 7 ? `LEAD${i}.${tag}@Example.com` : `lead${i}.${tag}@example.com`,
  );

interface Measured {
  days: number;
  pauses: number;
  memory: ListMemory;
}

async function runToDone(sb: Sandbox, seed: AccountSeed, list: string[], pauseAfterFirstJob: boolean) {
  let offset = 0;
  const runtime: Runtime = { ...nodeRuntime, now: () => Date.now() + offset };
  const advanceTo = (iso: string) => {
    const ms = Math.max(0, Date.parse(iso) - runtime.now());
    offset += ms;
    sb.advanceTime(ms);
  };
  const acct = sb.addAccount({ credits: 1_000_000, ...seed });
  let posts = 0;
  const client = new EmailVerificationClient({
    apiKey: acct.apiKey,
    baseUrl: sb.baseUrl,
    runtime,
    transport: async (req) => {
      const res = await fetchTransport(req);
      if (pauseAfterFirstJob && req.method === 'POST' && res.status === 202 && ++posts === 1) {
        sb.faults.pauseNewJobs({ retryAfterSeconds: HOUR });
      }
      return res;
    },
  });
  const measured: Measured = { days: 1, pauses: 0, memory: undefined as unknown as ListMemory };
  let memory: ListMemory | undefined;
  let stops = 0;
  for (let run = 0; run < 100; run++) {
    // A platform maps either the whole list or the last run's unsent addresses into the next run.
    const given = run % 2 === 1 && memory ? memory.unsent : list;
    const next = nextSend(given, memory, runtime.now());
    if (next.done) break;
    if (next.send.length === 0) {
      if (memory!.stoppedBy === 'allowance') measured.days += 1;
      if (memory!.stoppedBy === 'paused') {
        measured.pauses += 1;
        sb.faults.resumeNewJobs();
      }
      advanceTo(next.notBefore!);
      continue;
    }
    const out = await client.submitList({ emails: next.send }, { sendWhatFits: true });
    memory = rememberRun(memory, given, out);
    if (out.unsent.length === 0) continue;
    expect(out.unsentAfter).toBeDefined();
    // The same list again at once: the memory sends nothing before the time the stop named.
    expect(nextSend(list, memory, runtime.now()).send).toEqual([]);
    // The unsent sent again at once, straight to the client: nothing fits, nothing is charged (on the
    // first two stops: each costs a scan of the list, and the later ones would show the same).
    if (++stops > 2) continue;
    const before = sb.ledger(acct.accountId).charged;
    const replay = await client.submitList({ emails: out.unsent }, { sendWhatFits: true });
    expect(replay.jobs).toEqual([]);
    expect(replay.unsent).toEqual(out.unsent);
    expect(sb.ledger(acct.accountId).charged).toBe(before);
  }
  measured.memory = memory!;
  return { measured, acct, client };
}

async function rowsOf(sb: Sandbox, client: EmailVerificationClient, jobIds: string[]): Promise<string[]> {
  const emails: string[] = [];
  for (const id of jobIds) {
    while (!sb.job(id)?.terminal) await new Promise((r) => setTimeout(r, 10));
    for (let page = 1; ; page++) {
      const p = await client.getResultsPage(id, { page, per_page: 1000 });
      emails.push(...p.results.map((r) => r.email.toLowerCase()));
      if (!p.has_more) break;
    }
  }
  return emails;
}

describe.each([false, true])(
  'a big list on a small plan, over days (503 after the first job: %s)',
  (pause) => {
    let sb: Sandbox;
    beforeEach(async () => {
      sb = await startFastSandbox({ timeScale: 1 / 1000, rowsPerSecond: 20_000 });
    });
    afterEach(() => sb.close());

    describe.each(PLAN_MATRIX)('%s', (name, seed, perDay) => {
      // With the 503: 50,000 rows where that is several jobs (Starter, top-up), 150,000 where 50,000 is one.
      const sizes = matrixSizes(perDay, pause);
      test.each(sizes)(
        '%i rows: each address charged once, every result back, days = the arithmetic',
        async (size) => {
          const list = listOf(size, `${name.length}${pause ? 'p' : ''}`);
          const { measured, acct, client } = await runToDone(sb, seed, list, pause);
          const expectedDays = perDay === null ? 1 : Math.ceil(size / perDay);
          expect(measured.days).toBe(expectedDays);
          // A list that is one job has no second job for the pause to stop.
          const jobs = jobsFor(size, perDay);
          expect(measured.pauses).toBe(pause && jobs > 1 ? 1 : 0);
          expect(measured.memory.unsent).toEqual([]);
          expect(sb.ledger(acct.accountId).charged).toBe(size);
          const rows = await rowsOf(
            sb,
            client,
            measured.memory.jobs.map((j) => j.job_id),
          );
          expect(rows).toHaveLength(size);
          expect(new Set(rows)).toEqual(new Set(list.map((e) => e.toLowerCase())));
        },
        300_000,
      );
    });
  },
);
