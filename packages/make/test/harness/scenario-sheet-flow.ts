/**
 * The whole-sheet flow of examples/ run end to end against a sandbox: part 1 (read the list, submit
 * one bulk job), the job's completion webhook as the service sends it (signed), then part 2 (read the
 * results in rounds of 3,000 rows and append them to the Verified tab). Used by the whole-sheet test
 * and by bench/sheet-make.ts, so both count the same runs.
 */
import { join } from 'node:path';
import { buildWebhookDelivery } from '@evf/client';
import type { Sandbox } from '@evf/sandbox';
import { receiveWebhook, type MakeConnection } from './make-runtime';
import { appModulePrefix, loadBlueprint, runScenario, type Blueprint, type ScenarioRun } from './scenario';
import { RESULTS_TAB, STATE_CELL, SheetModel } from './scenario-sheets';

export const EXAMPLES = join(__dirname, '..', '..', 'examples');
export const SPREADSHEET_ID = 'YOUR_SPREADSHEET_ID';

/** The two blueprints as shipped (`asShipped`), or as the examples README has the user set them up. */
export function blueprints(asShipped = false): { submit: Blueprint; writeBack: Blueprint } {
  const submit = loadBlueprint(join(EXAMPLES, 'whole-sheet-1-submit.blueprint.json'));
  if (!asShipped)
    for (const m of submit.flow) if (m.mapper?.webhook_url !== undefined) m.mapper.webhook_url = PART_2_HOOK;
  return { submit, writeBack: loadBlueprint(join(EXAMPLES, 'whole-sheet-2-write-back.blueprint.json')) };
}
/** The address the user pastes from part 2's webhook into part 1 (README, The sheet). */
export const PART_2_HOOK = 'https://hook.eu1.make.com/abcdefghijklmnopqrstuvwxyz012345';

/**
 * The per-row pattern the peers' apps force, as a scenario: read the list, then per row Verify an
 * Email Address and write that row's answer (Google Sheets' Update a Row, here the same Sheets API call
 * the flow uses). The bench runs it on a sample to count what a row costs.
 */
export function perRowBlueprint(): Blueprint {
  const call = (id: number, mapper: Record<string, unknown>) => ({
    id,
    module: 'google-sheets:makeAPICall',
    version: 2,
    mapper,
  });
  return {
    name: 'Per row: verify and update each row',
    metadata: { instant: false, version: 1, scenario: {} },
    flow: [
      call(1, { url: `/spreadsheets/${SPREADSHEET_ID}/values/Leads!A2:A`, method: 'GET' }),
      { id: 2, module: 'builtin:BasicFeeder', version: 1, mapper: { array: '{{1.body.values}}' } },
      {
        id: 3,
        module: `${appModulePrefix()}verifyEmail`,
        version: 1,
        mapper: { email: '{{trim(get(2.value; 1))}}' },
      },
      call(4, {
        url: `/spreadsheets/${SPREADSHEET_ID}/values/Verified!A{{2.__IMTINDEX__ + 1}}:E{{2.__IMTINDEX__ + 1}}`,
        method: 'PUT',
        qs: [{ key: 'valueInputOption', value: 'RAW' }],
        body: '{"values": [["{{3.email}}", "{{3.category}}", "{{3.group}}", "{{3.safe_to_send}}", "{{3.reason}}"]]}',
      }),
    ],
  };
}

/**
 * A list of `rows` rows as users paste them: unique addresses of every outcome the sandbox knows (its
 * prefixes pick the outcome), with `duplicates` of earlier rows in other letter case and `malformed`
 * rows that are not addresses.
 */
export function leadList(rows: number, duplicates: number, malformed: number): string[] {
  const prefixes = [
    '',
    '',
    '',
    '',
    'valid',
    'invalid',
    'catchall',
    'full',
    'unknown',
    'info',
    'temp',
    'trap',
    'disabled',
    'notverified',
  ];
  const unique = rows - duplicates - malformed;
  const list: string[] = [];
  for (let i = 0; i < unique; i++) list.push(`${prefixes[i % prefixes.length]}lead${i}@company${i % 97}.com`);
  for (let i = 0; i < duplicates; i++) list.push(`  ${list[i * 7]!.toUpperCase()} `);
  for (let i = 0; i < malformed; i++) list.push(i % 2 ? `lead${i} at company.com` : `lead${i}@`);
  // Interleave so duplicates and malformed rows sit among the others, as in a real export.
  return list
    .map((a, i) => ({ a, k: (i * 7919) % list.length }))
    .sort((x, y) => x.k - y.k)
    .map((x) => x.a);
}

export function newSheet(list: string[]): SheetModel {
  const sheet = new SheetModel(SPREADSHEET_ID);
  sheet.fillList(list);
  return sheet;
}

/** What Verified!J1 says: "running: <id>" (part 1), "<status>: <id>" or "writing: <id>" (part 2). */
export function jobState(sheet: SheetModel): string {
  return sheet.cells(RESULTS_TAB)[0]?.[STATE_CELL.charCodeAt(0) - 65] ?? '';
}

/** The job id part 1 noted in Verified!J1 ("running: <id>"), or undefined. */
export function notedJob(sheet: SheetModel): string | undefined {
  const cell = sheet.cells(RESULTS_TAB)[0]?.[STATE_CELL.charCodeAt(0) - 65] ?? '';
  return cell.startsWith('running: ') ? cell.slice('running: '.length) : undefined;
}

export async function waitForJob(sb: Sandbox, jobId: string, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!sb.job(jobId)?.terminal) {
    if (Date.now() > until) throw new Error(`job ${jobId} did not finish in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The job's completion delivery, signed as the service signs it, through the app's webhook. */
export function webhookBundleFor(sb: Sandbox, jobId: string): unknown {
  const job = sb.job(jobId)!;
  const failed = job.status === 'failed';
  const delivery = buildWebhookDelivery({
    body: {
      event: failed ? 'job.failed' : 'job.completed',
      job_id: job.job_id,
      status: failed ? 'failed' : 'completed',
      total_emails: job.total_emails,
      processed_emails: job.processed,
      verdicts: job.verdicts,
      created_at: job.created_at,
      completed_at: job.completed_at!,
      results_url: `/v1/jobs/${job.job_id}/results`,
      ...(failed ? { error: job.error ?? 'failed' } : {}),
    },
    secret: sb.webhookSecret,
    timestamp: Math.floor(Date.now() / 1000),
  });
  const outcome = receiveWebhook('jobFinished', delivery);
  if (outcome.status !== 200 || outcome.bundle === undefined)
    throw new Error(`the webhook refused a genuine delivery (${outcome.status})`);
  return outcome.bundle;
}

export interface FlowRun {
  submit: ScenarioRun;
  writeBack?: ScenarioRun;
  jobId?: string;
}

/**
 * Part 1, then (when it submitted a job) the wait for the job and part 2, started by its webhook.
 * `flows` replaces the example blueprints (a test's variant).
 */
export async function runWholeSheet(
  sb: Sandbox,
  sheet: SheetModel,
  flows: { submit: Blueprint; writeBack: Blueprint } = blueprints(),
  connection: MakeConnection = { apiKey: sb.apiKey, baseUrl: sb.baseUrl },
): Promise<FlowRun> {
  const first = await runScenario(flows.submit, { connection, sheets: sheet });
  const jobId = notedJob(sheet);
  if (!first.serviceRequests.some((r) => r.method === 'POST') || !jobId) return { submit: first };
  await waitForJob(sb, jobId);
  const second = await runScenario(flows.writeBack, {
    connection,
    sheets: sheet,
    webhookBundle: webhookBundleFor(sb, jobId),
  });
  return { submit: first, writeBack: second, jobId };
}
