/**
 * Part 2 of the whole-sheet flow stopped by Google (a 429 or a 503) on the append of each group, then
 * recovered every way Make offers (the incomplete execution resumed at the failed module with its
 * bundles, as Make does by itself for RateLimitError and ConnectionError; a rollback; part 2 run again
 * from its trigger), with part 1 run in between: `completed` only once every row is written, and no
 * address charged twice. 50,000-row flows: the e2e tier.
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import {
  resumeScenario,
  runScenario,
  ScenarioError,
  type Blueprint,
  type ScenarioEnv,
} from './harness/scenario';
import { RESULTS_TAB, type SheetModel } from './harness/scenario-sheets';
import {
  blueprints,
  jobState,
  leadList,
  newSheet,
  runWholeSheet,
  webhookBundleFor,
} from './harness/scenario-sheet-flow';

/**
 * Part 1 run while part 2 is unfinished sends nothing (a read of J1 and nothing else); once part 2 has
 * finished it also reads the newest job, free. Should a read of the list pass Google's 2 MB once the
 * rows carry their states, the run stops there, before any request, which counts as sending nothing.
 */
async function part1SendsNothing(flows: { submit: Blueprint }, env: ScenarioEnv): Promise<void> {
  const run = await runScenario(flows.submit, env).catch((err: unknown) => {
    if (err instanceof ScenarioError && /2 MB/.test(err.message)) return err.run;
    throw err;
  });
  // Nothing is submitted; at most the free read of the newest job, once J1 names no job in flight.
  expect(run.serviceRequests.filter((r) => r.method !== 'GET' || r.path !== '/api/v1/jobs')).toHaveLength(0);
}

function wholeSheetSandbox(): () => Sandbox {
  let sb: Sandbox | undefined;
  beforeAll(async () => {
    sb = await startSandbox({
      port: 0,
      timeScale: 0.002,
      rowsPerSecond: 20_000,
      resolver: async () => ['93.184.216.34'],
    });
    sb.faults.webhookFailures(1_000_000);
  });
  afterAll(async () => {
    await sb?.close();
  });
  return () => sb!;
}

describe('part 2 stopped by Google part way, under each recovery Make offers', () => {
  const sandbox = wholeSheetSandbox();
  const ROWS = 50_000;
  const GROUPS = 5; // groups of 12,000 rows: the fifth holds 2,000

  /** Every row still waiting or written, none readable by part 1 as "send me". */
  function noRowForPart1(sheet: SheetModel): void {
    const open = sheet
      .cells('Leads')
      .slice(1)
      .filter(([, c]) => c === undefined || c.startsWith('Not verified') || c.startsWith('Not submitted'));
    expect(open).toHaveLength(0);
  }

  const cases = [429, 503].flatMap((status) =>
    Array.from({ length: GROUPS }, (_, k) => [status, k + 1] as const),
  );
  test.each(cases)(
    'Google %i on the append of group %i: resumed, rerun and part 1 between never charge a row twice',
    async (status, group) => {
      const sb = sandbox();
      const flows = blueprints();
      const sheet = newSheet(leadList(ROWS, 0, 0));
      const charged = sb.ledger().charged;
      const connection = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
      // Part 1 writes J2, its mark before the charge and J1 (writes 1 to 3); part 2 appends group k
      // with write k + 3.
      sheet.failWrite = group + 3;
      sheet.failStatus = status;
      const stopped = await runWholeSheet(sb, sheet, flows).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(stopped).toBeInstanceOf(ScenarioError);
      const stop = stopped as ScenarioError;
      expect(stop.moduleId).toBe(6);
      expect(stop.stoppedBy?.type).toBe(status === 429 ? 'RateLimitError' : 'ConnectionError');
      const jobId = jobState(sheet).replace('running: ', '');
      // Rows with an address (part 1's Verified!J2 note sits in row 2 without one).
      expect(sheet.cells(RESULTS_TAB).filter((r, i) => i > 0 && (r[0] ?? '') !== '')).toHaveLength(
        (group - 1) * 12_000,
      );
      expect(jobState(sheet)).toBe(`running: ${jobId}`);

      // Part 1 in between: nothing is sent.
      await part1SendsNothing(flows, { connection, sheets: sheet });

      // Make retries the incomplete execution (its type is one Make retries): the failed group is
      // written, and the run goes on with that group alone, so J1 says part 2 stopped part way.
      await resumeScenario(flows.writeBack, { connection, sheets: sheet }, stop);
      expect(jobState(sheet)).toBe(`writing: ${jobId}`);
      noRowForPart1(sheet);
      await part1SendsNothing(flows, { connection, sheets: sheet });

      // Part 2 run again from its trigger (a manual run with the job ID): every row written, completed.
      await runScenario(flows.writeBack, {
        connection,
        sheets: sheet,
        webhookBundle: webhookBundleFor(sb, jobId),
      });
      expect(jobState(sheet)).toBe(`completed: ${jobId}`);
      const leads = sheet.cells('Leads').slice(1);
      expect(
        leads.every(([, c]) => c !== undefined && !c.startsWith('Waiting') && !c.startsWith('Not')),
      ).toBe(true);
      // Part 1 once more sends nothing; every address was charged once.
      await part1SendsNothing(flows, { connection, sheets: sheet });
      expect(sb.ledger().charged - charged).toBe(ROWS);
    },
    180_000,
  );

  test('a stop that Make rolls back (no incomplete execution): rows wait, part 2 again completes', async () => {
    const sb = sandbox();
    const flows = blueprints();
    const sheet = newSheet(leadList(15_000, 0, 0));
    sheet.failWrite = 5; // J2, the mark, J1, group 1, then group 2 fails
    const charged = sb.ledger().charged;
    const connection = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
    await expect(runWholeSheet(sb, sheet, flows)).rejects.toThrow(/Google Sheets answered 503/);
    const jobId = jobState(sheet).replace('running: ', '');
    expect(sheet.cells('Leads').filter(([, c]) => c === `Waiting for running: ${jobId}`)).toHaveLength(3_000);
    noRowForPart1(sheet);
    await runScenario(flows.writeBack, {
      connection,
      sheets: sheet,
      webhookBundle: webhookBundleFor(sb, jobId),
    });
    expect(jobState(sheet)).toBe(`completed: ${jobId}`);
    expect(sb.ledger().charged - charged).toBe(15_000);
  }, 180_000);
});
