/**
 * The whole-sheet flow's rerun matrix: every step of both example blueprints that can fail, crossed
 * with each failure that step can meet and each rerun Make documents (and each recovery the examples
 * README tells a user to do). Cells come from the tables below, so a new step, failure or rerun adds
 * its cells by one line. Each cell runs a 30-row sheet against the sandbox, injects its failure, applies
 * its rerun, then lets the flow settle as its schedule and the service's webhook would (part 1 on its
 * schedule, each finished job delivered, a part 2 that stopped part way run again as the README says),
 * and asserts: every address charged at most once (the sandbox's ledger for the cell's own account),
 * every row answered or marked "not submitted" with the reason, nothing left waiting.
 *
 * Make's behaviour in the RERUNS table, from Make's own pages (read 2026-11-28 through the search tool):
 * - fromStart: a RateLimitError, ConnectionError or ModuleTimeoutError makes Make schedule reruns of
 *   the scenario (1, 2, 5, 10 minutes... with incomplete executions disabled), and "the scenario
 *   follows the run schedule in addition to the exponential backoff reruns"
 *   (https://help.make.com/exponential-backoff); any other error waits for the next scheduled run;
 * - resume: with incomplete executions stored (the blueprints' `dlq`), Make "schedules scenario reruns
 *   from the incomplete execution data" (same page) and retries those created by RateLimitError,
 *   ConnectionError and ModuleTimeoutError by itself
 *   (https://help.make.com/automatic-retry-of-incomplete-executions);
 * - part1Between: the user (or the schedule) runs part 1 while part 2 is stopped (examples README);
 * - deliveries: the service tries an unanswered delivery five times (spec, Limits), so part 2 can
 *   start early (a delivery before the job finished: any JSON with a job_id reaches the webhook), late
 *   (an older job's delivery after a newer job is noted) or twice (webhook README section, Duplicates).
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { resumeScenario, runScenario, ScenarioError, type ScenarioEnv } from './harness/scenario';
import { RESULTS_TAB, type SheetModel } from './harness/scenario-sheets';
import {
  blueprints,
  jobState,
  leadList,
  newSheet,
  waitForJob,
  webhookBundleFor,
} from './harness/scenario-sheet-flow';
import type { MakeConnection } from './harness/make-runtime';

/** 30 rows: 25 unique addresses, 3 copies in other letter case, 2 that are not addresses. */
const LIST = leadList(30, 3, 2);
const UNIQUE = new Set(
  LIST.filter((a) => a.includes('@') && !a.endsWith('@')).map((a) => a.trim().toLowerCase()),
).size;

type Fault =
  | { kind: 'google'; status: 429 | 503 }
  | {
      kind: 'service';
      path: string | RegExp;
      method: string;
      status?: number;
      when?: 'before' | 'after';
      drop?: 'before-response';
      retryAfterSeconds?: number;
    };

/** A step of a blueprint that can fail: which part, which module, and how its failure is made. */
interface Step {
  part: 1 | 2;
  module: number;
  what: string;
  /** For a Google write: its number among the part's writes (1 = the first). */
  write?: number;
  faults: [string, Fault][];
}

const GOOGLE: [string, Fault][] = [
  ["Google's 429", { kind: 'google', status: 429 }],
  ["Google's 503", { kind: 'google', status: 503 }],
];
const submit = (extra: Partial<Fault & { kind: 'service' }>): Fault => ({
  kind: 'service',
  path: '/v1/verify/bulk',
  method: 'POST',
  ...extra,
});
const read = (path: string | RegExp): [string, Fault][] => [
  ["the service's 503", { kind: 'service', path, method: 'GET', status: 503, retryAfterSeconds: 1 }],
  ['a 500', { kind: 'service', path, method: 'GET', status: 500 }],
  ['a lost answer', { kind: 'service', path, method: 'GET', drop: 'before-response' }],
];

/** Part 1 writes J2 (1), the mark before the charge (2), then the job (3); part 2 appends (1), then J1 (2). */
const STEPS: Step[] = [
  { part: 1, module: 11, what: 'read the newest job', faults: read(/^\/v1\/jobs$/) },
  { part: 1, module: 5, what: 'read the plan', faults: read('/v1/account') },
  { part: 1, module: 6, what: 'write J2', write: 1, faults: GOOGLE },
  { part: 1, module: 12, what: 'mark J1 before the charge', write: 2, faults: GOOGLE },
  {
    part: 1,
    module: 7,
    what: 'Submit',
    faults: [
      ["the service's 429", submit({ status: 429, retryAfterSeconds: 1 })],
      ["the service's 503", submit({ status: 503, retryAfterSeconds: 1 })],
      ['a 500 after the job was made', submit({ status: 500, when: 'after' })],
      ['a 502 before', submit({ status: 502, when: 'before' })],
      ['an answer lost after the job was made', submit({ drop: 'before-response', when: 'after' })],
      [
        'no answer at all (timed out before the service)',
        submit({ drop: 'before-response', when: 'before' }),
      ],
    ],
  },
  { part: 1, module: 8, what: 'note the job in J1', write: 3, faults: GOOGLE },
  { part: 2, module: 9, what: 'Get a bulk job', faults: read(/^\/v1\/jobs\/[^/]+$/) },
  { part: 2, module: 3, what: 'List bulk job results', faults: read(/^\/v1\/jobs\/[^/]+\/results$/) },
  { part: 2, module: 6, what: 'append the rows', write: 1, faults: GOOGLE },
  { part: 2, module: 8, what: 'note how the job ended in J1', write: 2, faults: GOOGLE },
];

type Rerun = 'fromStart' | 'resume' | 'part1ThenResume';
/**
 * The reruns that can follow a stop of each part. Part 1 keeps no incomplete executions (its `dlq` is
 * false, on purpose: a Submit whose answer was lost is Make's ConnectionError, and a stored execution
 * would be retried at Submit and charge again), so after any stop it runs again from its start, by
 * Make's backoff or by its schedule; the mark it wrote in J1 before the charge is what that run reads.
 * Part 2 keeps them (`dlq` true): resumed at the failed module, run again from its trigger with the same
 * delivery, or resumed after part 1 ran in between.
 */
const RERUNS: Record<1 | 2, Rerun[]> = { 1: ['fromStart'], 2: ['fromStart', 'resume', 'part1ThenResume'] };

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    timeScale: 0.002,
    rowsPerSecond: 100_000,
    resolver: async () => ['93.184.216.34'],
  });
  // Deliveries never leave the machine: each cell hands part 2 the delivery itself.
  sb.faults.webhookFailures(1_000_000);
});
afterAll(async () => {
  await sb?.close();
});

interface Cell {
  connection: MakeConnection;
  sheet: SheetModel;
  delivered: Map<string, number>;
}

function newCell(): Cell {
  const acct = sb.addAccount({ plan: 'pro', credits: 1_000_000 });
  return {
    connection: { apiKey: acct.apiKey, baseUrl: sb.baseUrl },
    sheet: newSheet(LIST),
    delivered: new Map(),
  };
}

const env = (c: Cell, webhookBundle?: unknown): ScenarioEnv => ({
  connection: c.connection,
  sheets: c.sheet,
  ...(webhookBundle === undefined ? {} : { webhookBundle }),
});

async function jobsOf(c: Cell): Promise<string[]> {
  const res = await fetch(`${sb.baseUrl}/v1/jobs?limit=100`, {
    headers: { 'X-API-Key': c.connection.apiKey },
  });
  const body = (await res.json()) as { jobs: { job_id: string }[] };
  return body.jobs.map((j) => j.job_id).reverse();
}

function inject(c: Cell, fault: Fault, write?: number): void {
  if (fault.kind === 'google') {
    c.sheet.failWrite = write;
    c.sheet.failStatus = fault.status;
  } else {
    const { kind: _kind, ...spec } = fault;
    sb.faults.failNext({ ...spec, count: 1 });
  }
}

/** Part 2 as the job's delivery starts it. */
const part2 = (c: Cell, jobId: string) => {
  c.delivered.set(jobId, (c.delivered.get(jobId) ?? 0) + 1);
  return runScenario(blueprints().writeBack, env(c, webhookBundleFor(sb, jobId)));
};

/**
 * What happens after the cell's rerun, with no more faults: each finished job delivered once (the
 * service's webhook), part 2 run again for a job J1 says was written part way (the README's recovery),
 * and part 1 on its schedule, until part 1 has nothing left to send.
 */
async function settle(c: Cell): Promise<void> {
  for (let round = 0; round < 6; round++) {
    for (const id of await jobsOf(c)) {
      await waitForJob(sb, id, 30_000);
      if (!c.delivered.has(id)) await part2(c, id);
    }
    // The README's recovery: part 2 run again for the job J1 names, once that job has finished.
    const named = /^(running|writing): (.+)$/.exec(jobState(c.sheet));
    if (named && sb.job(named[2]!)?.terminal) {
      await part2(c, named[2]!);
      continue;
    }
    const run = await runScenario(blueprints().submit, env(c));
    if (!run.serviceRequests.some((r) => r.method === 'POST')) return;
  }
  throw new Error(`the flow did not settle: J1 is "${jobState(c.sheet)}"`);
}

/** Each address charged at most once, and every row answered or marked not submitted, with the reason. */
function holds(c: Cell): void {
  expect(sb.ledger(c.connection.apiKey).charged).toBeLessThanOrEqual(UNIQUE);
  const rows = c.sheet.cells('Leads').slice(1);
  const stuck = rows.filter(
    ([address, category]) =>
      category === undefined ||
      /^(Waiting|Not written yet|Not verified)/.test(category) ||
      (category.startsWith('Not submitted') && address!.includes('@') && !address!.endsWith('@')),
  );
  expect(stuck).toEqual([]);
  expect(sb.ledger(c.connection.apiKey).charged).toBe(UNIQUE);
  expect(jobState(c.sheet)).toMatch(/^(completed|failed): /);
}

/** Runs the flow with the fault at its step; returns the stop, or undefined if the step ran clean. */
async function runToFault(c: Cell, step: Step, fault: Fault): Promise<ScenarioError | undefined> {
  const flows = blueprints();
  const catchStop = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: unknown) => {
        if (err instanceof ScenarioError) return err;
        throw err;
      },
    );
  if (step.part === 1) {
    inject(c, fault, step.write);
    return catchStop(runScenario(flows.submit, env(c)));
  }
  await runScenario(flows.submit, env(c));
  const id = jobState(c.sheet).replace('running: ', '');
  await waitForJob(sb, id, 30_000);
  inject(c, fault, step.write);
  c.delivered.set(id, 1);
  return catchStop(runScenario(flows.writeBack, env(c, webhookBundleFor(sb, id))));
}

const cells = STEPS.flatMap((step) =>
  step.faults.flatMap(([name, fault]) =>
    RERUNS[step.part].map(
      (rerun) => [`part ${step.part}, ${step.what}: ${name}, ${rerun}`, step, fault, rerun] as const,
    ),
  ),
);

describe('every step x failure x rerun: charged at most once, every row answered or marked, nothing stuck', () => {
  test.each(cells)('%s', async (_, step, fault, rerun) => {
    const c = newCell();
    const stop = await runToFault(c, step, fault);
    expect(stop).toBeInstanceOf(ScenarioError);
    expect(stop!.moduleId).toBe(step.module);
    const flows = blueprints();
    const bp = step.part === 1 ? flows.submit : flows.writeBack;
    const job = step.part === 2 ? [...c.delivered.keys()][0]! : undefined;
    const again = env(c, job === undefined ? undefined : webhookBundleFor(sb, job));
    const runAgain = () => runScenario(bp, again);
    if (rerun === 'part1ThenResume') {
      const between = await runScenario(flows.submit, env(c));
      expect(between.serviceRequests.filter((r) => r.method === 'POST')).toHaveLength(0);
    }
    if (rerun === 'fromStart') await runAgain();
    else await resumeScenario(bp, again, stop!);
    await settle(c);
    holds(c);
  });
});

describe('a job that fails: its rows written, the rest sent again once, nothing stuck', () => {
  test.each([0, 10])('the job fails after %i rows are final', async (afterRows) => {
    const c = newCell();
    sb.faults.failJob(undefined, { afterRows });
    await runScenario(blueprints().submit, env(c));
    await settle(c);
    const ledger = sb.ledger(c.connection.apiKey);
    // What the failed job never verified is sent again once, and refunded by the service if it was.
    expect(ledger.charged - ledger.refunded).toBeLessThanOrEqual(UNIQUE);
    const rows = c.sheet.cells('Leads').slice(1);
    expect(
      rows.filter(
        ([, category]) => category === undefined || /^(Waiting|Not written yet|Not verified)/.test(category),
      ),
    ).toEqual([]);
    expect(jobState(c.sheet)).toMatch(/^completed: /);
  });
});

describe('deliveries Make does not control: early, late and repeated', () => {
  test('part 2 started before the job finished changes nothing; the real delivery later completes', async () => {
    // A sandbox whose jobs stay queued for a while (queueDelayMs is spec time: 500 s x 0.002 = 1 s).
    const main = sb;
    sb = await startSandbox({
      port: 0,
      timeScale: 0.002,
      rowsPerSecond: 100_000,
      queueDelayMs: 500_000,
      resolver: async () => ['93.184.216.34'],
    });
    sb.faults.webhookFailures(1_000_000);
    try {
      const c = newCell();
      await runScenario(blueprints().submit, env(c));
      const noted = jobState(c.sheet);
      const id = noted.replace('running: ', '');
      expect(sb.job(id)!.terminal).toBe(false);
      const early = await part2(c, id);
      expect(jobState(c.sheet)).toBe(noted);
      expect(early.serviceRequests.filter((r) => r.path.endsWith('/results'))).toHaveLength(0);
      // Part 1 meanwhile sends nothing; the job's own delivery, once it finished, writes every row.
      const between = await runScenario(blueprints().submit, env(c));
      expect(between.serviceRequests.filter((r) => r.method === 'POST')).toHaveLength(0);
      c.delivered.clear();
      await settle(c);
      holds(c);
    } finally {
      await sb.close();
      sb = main;
    }
  });

  test("an older job's late delivery after a newer job is noted, and a repeated one, never touch J1", async () => {
    const c = newCell();
    await runScenario(blueprints().submit, env(c));
    const first = jobState(c.sheet).replace('running: ', '');
    await settle(c);
    holds(c);
    // A second list in the same sheet: new rows, a new job.
    c.sheet.fillList([...LIST, 'valid.late1@example.com', 'valid.late2@example.com']);
    await runScenario(blueprints().submit, env(c));
    const second = jobState(c.sheet);
    expect(second).toMatch(/^running: /);
    await waitForJob(sb, first, 30_000);
    const late = await part2(c, first);
    expect(jobState(c.sheet)).toBe(second);
    expect(late.serviceRequests.filter((r) => r.path.endsWith('/results'))).toHaveLength(0);
    await settle(c);
    const done = jobState(c.sheet);
    const again = await part2(c, done.replace(/^completed: /, ''));
    expect(jobState(c.sheet)).toBe(done);
    expect(again.serviceRequests.filter((r) => r.path.endsWith('/results'))).toHaveLength(0);
    expect(sb.ledger(c.connection.apiKey).charged).toBe(UNIQUE + 2);
    expect(c.sheet.cells(RESULTS_TAB).length).toBeGreaterThan(UNIQUE);
  });
});
