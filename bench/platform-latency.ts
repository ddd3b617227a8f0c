/**
 * Benchmark 4, per platform receiver: from the sandbox finishing a job to the platform's
 * receiver having a verified event. Zapier: the callback captured as Zapier hands it over, then the
 * app's performResume (signature check + reading the rows) through createAppTester. n8n: the built
 * trigger node's webhook method (signature, tolerance, dedupe in static data) on the raw delivery.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IDataObject, INodeType, IWebhookFunctions } from 'n8n-workflow';
import { createAppTester, type Bundle, type ZObject } from 'zapier-platform-core';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { acceleratedRuntime, createClient } from '@evf/client/node';
import App from '../packages/zapier/src/index';
import { startCallbackReceiver } from '../packages/zapier/demo/callback-receiver';
import { webhookContext } from '../packages/n8n/test/support/context';
import { fmtSummary, summarize, type Row } from './lib/stats';

// The built n8n bundle, as n8n loads it.
const { EmailVerificationTrigger } =
  require('../packages/n8n/dist/nodes/EmailVerificationTrigger/EmailVerificationTrigger.node.js') as {
    EmailVerificationTrigger: new () => INodeType & { webhook: NonNullable<INodeType['webhook']> };
  };

const EMAILS = Array.from({ length: 20 }, (_, k) => `lead${k}@company.com`);

function finishedAt(sb: Sandbox, jobId: string): number {
  return Date.parse(sb.job(jobId)!.completed_at as string);
}

export async function benchResumeLatency(jobs: number, log: (s: string) => void): Promise<Row[]> {
  const sb = await startSandbox({
    port: 0,
    timeScale: 0.001,
    rowsPerSecond: 100_000,
    allowInsecureWebhooks: true,
  });
  const previous = process.env.EVF_BASE_URL;
  process.env.EVF_BASE_URL = sb.baseUrl;
  const receiver = await startCallbackReceiver();
  const tester = createAppTester(App);
  type Step = (z: ZObject, b: Bundle) => unknown;
  const run = (fn: Step, bundle: Record<string, unknown>) =>
    tester(fn, bundle as Parameters<typeof tester>[1]);
  const authData = { api_key: sb.apiKey, webhook_secret: sb.webhookSecret };
  const op = App.creates.verify_list_and_wait.operation as { perform: Step; performResume: Step };
  const latencies: number[] = [];
  const quietLog = console.log;
  console.log = (...args: unknown[]) => void (args[0] !== 'ZID:' && quietLog(...args));
  try {
    for (let i = 0; i < jobs; i++) {
      const waiting = (await run((z, b) => op.perform({ ...z, generateCallbackUrl: () => receiver.url }, b), {
        authData,
        inputData: { emails_text: EMAILS.map((e) => `z${i}.${e}`).join('\n') },
      })) as { job_id: string };
      const callback = await receiver.next(30_000);
      await run(op.performResume, { authData, inputData: {}, outputData: waiting, rawRequest: callback });
      latencies.push(Date.now() - finishedAt(sb, waiting.job_id));
    }
  } finally {
    console.log = quietLog;
    // Assigning undefined would leave the string "undefined" behind.
    if (previous === undefined) delete process.env.EVF_BASE_URL;
    else process.env.EVF_BASE_URL = previous;
    await receiver.close();
    await sb.close();
  }
  const s = summarize(latencies);
  log(
    `Zapier performResume over ${jobs} jobs: ${fmtSummary(s, ' ms', 1)} from finish to verified callback with rows read`,
  );
  return [
    {
      benchmark: `4. Completion latency, Zapier (${jobs} jobs)`,
      measure: 'ms from finish to performResume output',
      ours: `${fmtSummary(s, '', 1)} callback + performResume (verify + read rows)`,
      baseline: 'polling trigger: Zapier polls every 1–15 min by plan',
      ratio: '–',
      target: '–',
      met: null,
    },
  ];
}

export async function benchTriggerLatency(jobs: number, log: (s: string) => void): Promise<Row[]> {
  const sb = await startSandbox({
    port: 0,
    timeScale: 0.001,
    rowsPerSecond: 100_000,
    allowInsecureWebhooks: true,
  });
  const trigger = new EmailVerificationTrigger();
  const staticData: IDataObject = {};
  const credentials = { apiKey: sb.apiKey, baseUrl: sb.baseUrl, webhookSecret: sb.webhookSecret };
  const events = new Map<string, number>();
  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve) => {
      const parts: Buffer[] = [];
      req
        .on('data', (c: Buffer) => parts.push(c))
        .on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    });
  // Stands in for n8n's webhook server: hands the raw delivery to the trigger node, answers as it says.
  const server = createServer(async (req, res) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    const harness = webhookContext({
      params: { output: 'job' },
      credentials,
      delivery: { rawBody: await readBody(req), headers },
      staticData,
    });
    const result = await trigger.webhook.call(harness.context as IWebhookFunctions);
    const item = result.workflowData?.[0]?.[0]?.json as { job_id?: string } | undefined;
    if (item?.job_id && !events.has(item.job_id)) events.set(item.job_id, Date.now());
    res.writeHead(harness.answered.status ?? 200).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/evf`;
  const client = createClient({ apiKey: sb.apiKey, baseUrl: sb.baseUrl, runtime: acceleratedRuntime(1000) });
  const latencies: number[] = [];
  try {
    for (let i = 0; i < jobs; i++) {
      const {
        jobs: [job],
      } = await client.submitList({ emails: EMAILS.map((e) => `n${i}.${e}`), webhook_url: url });
      for (let t = 0; t < 2000 && !events.has(job!.job_id); t++) await new Promise((r) => setTimeout(r, 2));
      if (!events.has(job!.job_id)) throw new Error(`no verified event for ${job!.job_id}`);
      latencies.push(events.get(job!.job_id)! - finishedAt(sb, job!.job_id));
    }
  } finally {
    server.close();
    await sb.close();
  }
  const s = summarize(latencies);
  log(`n8n trigger over ${jobs} jobs: ${fmtSummary(s, ' ms', 1)} from finish to verified event`);
  return [
    {
      benchmark: `4. Completion latency, n8n trigger (${jobs} jobs)`,
      measure: 'ms from finish to verified event',
      ours: `${fmtSummary(s, '', 1)} trigger webhook (built node)`,
      baseline: 'polling trigger: every poll interval (≥ 1 min)',
      ratio: '–',
      target: '–',
      met: null,
    },
  ];
}
