/**
 * The whole-sheet Zap of docs/whole-sheet.md, run step by step the way Zapier runs it, against a
 * sandbox of the service. Shared by the test (whole-sheet.e2e.test.ts) and the benchmark
 * (bench/sheet-zapier.ts), so the tasks the benchmark prints are the ones the test checks.
 *
 * Each app step is one call of zapier-platform-core's own handler (createAppHandler, what a deployed
 * app's index.js exports), with the event fields Zapier's runtime gives it: the callback URL (here a
 * local receiver the sandbox delivers to), the RPC address behind z.stashFile (a local stand-in,
 * support/zapier-files.ts) and the connection's z.cache (core's own in-memory model of it, which the
 * app tester uses too). Tasks are counted as Zapier bills them: one per action step that succeeds;
 * triggers are free (DESIGN.md, "What users pay per list").
 */
import * as core from 'zapier-platform-core';
import type { Sandbox } from '@evf/sandbox';
import * as XLSX from '@e965/xlsx';
import { parseDelimited, writeDelimited } from '@evf/tables';
import App from '../../src/index';
import { zapierHeaderName } from '../../demo/callback-receiver';
import type { RawReceiver } from '../../../../test/support/webhook-receiver';
import type { ZapierFiles } from './zapier-files';

type Handler = (event: Record<string, unknown>) => Promise<{ results: unknown; status?: string }>;
/** core exports createAppHandler (src/index.js) but its type definitions do not list it. */
const { createAppHandler } = core as unknown as { createAppHandler: (app: unknown) => Handler };
const handler = createAppHandler(App);

const FILE_CREATE = 'creates.verify_file_and_wait.operation';

export interface StepOutcome {
  results?: Record<string, unknown>;
  /** 'CALLBACK' when the step pauses the Zap until its callback URL is called. */
  status?: string;
  /** The error a step ended with (Zapier shows it in the Zap history; no task is billed). */
  error?: { name: string; message: string };
}

/** The Zapier side of one connection: its callback receiver, file services and z.cache. */
export interface ZapierSide {
  files: ZapierFiles;
  receiver: RawReceiver;
  authData: { api_key: string; webhook_secret?: string };
  /** The connection's z.cache, kept between runs as Zapier keeps it. */
  zcache: Record<string, unknown>;
}

/** One app step through core's handler, as Zapier's runtime invokes it. */
export async function runStep(
  side: ZapierSide,
  method: string,
  bundle: Record<string, unknown>,
): Promise<StepOutcome> {
  const before = process.env.ZAPIER_DEPLOY_KEY;
  // Core authenticates RPC calls with the runtime's token or, outside Zapier, a deploy key.
  process.env.ZAPIER_DEPLOY_KEY = 'local-stand-in';
  try {
    const out = await handler({
      command: 'execute',
      method,
      bundle: { authData: side.authData, ...bundle },
      storeKey: null,
      callback_url: side.receiver.url,
      rpc_base: side.files.rpcBase,
      zcacheTestObj: side.zcache,
    });
    return { results: out.results as Record<string, unknown>, status: out.status };
  } catch (error) {
    const e = error as Error;
    return { error: { name: e.name, message: e.message } };
  } finally {
    if (before === undefined) delete process.env.ZAPIER_DEPLOY_KEY;
    else process.env.ZAPIER_DEPLOY_KEY = before;
  }
}

/** The service's completion message for `jobId`, as Zapier hands it to performResume. */
export async function callbackFor(receiver: RawReceiver, jobId: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const delivery = receiver.raw.find((d) => d.headers['x-service-job'] === jobId);
    if (delivery) {
      return {
        method: 'POST',
        headers: Object.fromEntries(
          Object.entries(delivery.headers).map(([k, v]) => [zapierHeaderName(k), v]),
        ),
        content: delivery.rawBody,
        querystring: '',
      };
    }
    if (Date.now() > deadline)
      throw new Error(`no completion message for job ${jobId} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface FlowRun {
  /** The Verify File step's output (after its resume, when it waited). */
  output?: Record<string, unknown>;
  /** The step's error, when it ended with one (the rest of the Zap did not run). */
  error?: StepOutcome['error'];
  /** The sheet written back: the results file as the Google Drive step would convert it. */
  sheet?: string[][];
  /** Milliseconds each app step took (perform, then performResume): Zapier stops a step at 30 s. */
  stepMs: number[];
  /** Tasks billed: Verify File and Wait, then Google Drive "Upload File" (the trigger is free). */
  tasks: number;
  /** Requests the service received during the run. */
  requests: number;
  charged: number;
  refunded: number;
  wallMs: number;
}

/**
 * One run of the Zap on a file: trigger (the file's URL, free), "Verify File and Wait for Results File"
 * (perform, then performResume when the completion message arrives), then Google Drive "Upload File"
 * with the results file and "Convert to Google Docs" on, which makes it a sheet (modelled as the
 * download of the stashed file the Drive step would make).
 */
export async function runWholeSheetZap(
  sb: Sandbox,
  side: ZapierSide,
  fileUrl: string,
  inputData: Record<string, unknown> = {},
): Promise<FlowRun> {
  const started = Date.now();
  const requestsBefore = sb.requests.length;
  const ledgerBefore = sb.ledger(side.authData.api_key);
  const input = { file: fileUrl, ...inputData };
  const finishRun = async (
    partial: Omit<FlowRun, 'requests' | 'charged' | 'refunded' | 'wallMs'>,
  ): Promise<FlowRun> => {
    await sb.webhooksIdle();
    const ledger = sb.ledger(side.authData.api_key);
    return {
      ...partial,
      requests: sb.requests.length - requestsBefore,
      charged: ledger.charged - ledgerBefore.charged,
      refunded: ledger.refunded - ledgerBefore.refunded,
      wallMs: Date.now() - started,
    };
  };
  const stepMs: number[] = [];
  const timed = async (method: string, bundle: Record<string, unknown>): Promise<StepOutcome> => {
    const at = Date.now();
    const outcome = await runStep(side, method, bundle);
    stepMs.push(Date.now() - at);
    return outcome;
  };
  let step = await timed(`${FILE_CREATE}.perform`, { inputData: input });
  if (step.status === 'CALLBACK' && step.results) {
    const jobIds = step.results.job_ids as string[];
    const rawRequest = await callbackFor(side.receiver, jobIds[jobIds.length - 1]!);
    step = await timed(`${FILE_CREATE}.performResume`, {
      inputData: input,
      outputData: step.results,
      rawRequest,
    });
  }
  if (!step.results) return finishRun({ error: step.error, tasks: 0, stepMs });
  let tasks = 1;
  const fileUrlOut = String(step.results.results_file);
  const response = await fetch(fileUrlOut);
  if (!response.ok) throw new Error(`the results file could not be downloaded: HTTP ${response.status}`);
  // The results come back in the file's own format: a workbook's sheet is read as the step read it.
  const name = String(step.results.results_file_name);
  let sheet: string[][];
  if (name.endsWith('.xlsx')) {
    // Read by SheetJS, as a spreadsheet shows it: the sheet the step was given, else the first visible.
    const book = XLSX.read(Buffer.from(await response.arrayBuffer()), { type: 'buffer' });
    const wanted = typeof inputData.sheet === 'string' ? inputData.sheet.trim().toLowerCase() : '';
    const visible = book.SheetNames.filter((_, i) => !book.Workbook?.Sheets?.[i]?.Hidden);
    const sheetName =
      book.SheetNames.find((n) => n.toLowerCase() === wanted) ??
      (/^\d+$/.test(wanted) ? book.SheetNames[Number(wanted) - 1] : undefined) ??
      visible[0]!;
    sheet = XLSX.utils
      .sheet_to_json<
        unknown[]
      >(book.Sheets[sheetName]!, { header: 1, defval: '', raw: false, blankrows: true })
      .map((r) => r.map(String));
  } else sheet = parseDelimited(await response.text(), ',').records.map((r) => r.fields);
  tasks += 1;
  return finishRun({ output: step.results, sheet, tasks, stepMs });
}

/** The per-row pattern peers force: Verify Email Address for one row (its update step is one more task). */
export async function runPerRowStep(side: ZapierSide, email: string): Promise<StepOutcome> {
  return runStep(side, 'creates.verify_email.operation.perform', { inputData: { email } });
}

/** Outcomes the sandbox gives by the start of the local part, in the mix a lead list might have. */
const PREFIXES = [
  'valid',
  'valid',
  'valid',
  'valid',
  'catchall',
  'invalid',
  'unknown',
  'info',
  'full',
  'temp',
  'notverified',
  'disabled',
  'trap',
];

export interface SheetFile {
  csv: string;
  rows: number;
  /** Addresses pre-flight will charge: unique and well formed. */
  unique: number;
  duplicates: number;
  malformed: number;
  empty: number;
}

/**
 * A CRM-style export: First Name, Email, Company (some with commas, so quoted), with duplicates that
 * differ in case, malformed addresses and empty cells mixed in. Deterministic.
 */
export function makeSheetFile(rows: number, tag = 'lead'): SheetFile {
  const kind = (i: number): 'malformed' | 'empty' | 'duplicate' | 'address' =>
    i % 101 === 50
      ? 'malformed'
      : i % 211 === 100
        ? 'empty'
        : i % 53 === 20 && i > 100 && kind(i - 40) === 'address'
          ? 'duplicate'
          : 'address';
  const address = (i: number): string => `${PREFIXES[i % PREFIXES.length]}.${tag}${i}@example-leads.com`;
  const out: string[][] = [['First Name', 'Email', 'Company']];
  const count = { address: 0, duplicate: 0, malformed: 0, empty: 0 };
  for (let i = 0; i < rows; i++) {
    const company = i % 7 === 0 ? `Acme ${i}, Inc.` : `Co ${i % 97}`;
    const k = kind(i);
    count[k]++;
    const email =
      k === 'malformed'
        ? `${tag}${i}@@broken`
        : k === 'empty'
          ? ''
          : k === 'duplicate'
            ? address(i - 40).toUpperCase()
            : address(i);
    out.push([`Name ${i}`, email, company]);
  }
  return {
    csv: writeDelimited(out),
    rows,
    unique: count.address,
    duplicates: count.duplicate,
    malformed: count.malformed,
    empty: count.empty,
  };
}

/**
 * Live outputs of Verify File and Wait for the app's checks of live outputs (T004, D024/T005): a run on
 * a list like the sample's, and a run whose job fails part way. Starts and stops its own file services.
 */
export async function liveFileOutputs(
  sb: Sandbox,
  receiver: RawReceiver,
  authData: ZapierSide['authData'],
): Promise<{ where: string; output: Record<string, unknown>; scenario: boolean }[]> {
  const { startZapierFiles } = await import('./zapier-files');
  const files = await startZapierFiles();
  try {
    const side: ZapierSide = { files, receiver, authData, zcache: {} };
    const sampleList =
      'Email,Name\nvalid.ada.live@acme-corp.com,Ada\ninfo.live@acme-corp.com,Info\njane.doe@,Jane\n';
    const clean = await runWholeSheetZap(sb, side, files.host('leads.csv', sampleList));
    sb.faults.failJob(undefined, { afterRows: 1, error: 'stopped for the live-output check' });
    const failing = makeSheetFile(300, 'live');
    const failed = await runWholeSheetZap(sb, side, files.host('failing.csv', failing.csv));
    if (!clean.output || !failed.output)
      throw new Error(`a live run stopped: ${(clean.error ?? failed.error)?.message}`);
    return [
      { where: 'sample list', output: clean.output, scenario: true },
      { where: 'job failed part way', output: failed.output, scenario: false },
    ];
  } finally {
    await files.close();
  }
}
