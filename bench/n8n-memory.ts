/**
 * Peak resident memory of real n8n while this package handles a 50,000-row job, beside n8n's own idle
 * memory in the same process: for each installed n8n version (the pinned 2.8.4; 2.41.3 when installed,
 * `npm run n8n:install -w n8n-nodes-evf -- all`), in one process and in queue mode (main, worker and
 * webhook processes on PostgreSQL and Redis, when both are installed), for Get Results with Return All
 * and for Submit waiting by webhook with Result Rows, each with the default output and with Only Sheet
 * Fields. The package is installed from its packed tarball, as a user installs it. Each case runs in
 * freshly started n8n processes (V8 keeps the memory a case grew into, so a second case in the same
 * process would start from the first one's size); idle is the process's resident memory once start-up
 * has settled, peak is Linux's VmHWM, reset just before the case (writing 5 to /proc/<pid>/clear_refs).
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { createClient } from '@evf/client/node';
import * as runner from '../packages/n8n/test/harness/n8n-runner';
import * as services from '../packages/n8n/test/harness/queue-services';
import { startReceiver, type Receiver } from '../packages/n8n/test/support/receiver';
import { credential, evfNode, id16, report, webhookStart, workflow, type Row as Json } from '../packages/n8n/test/support/workflows';
import type { Row } from './lib/stats';

const ROWS = 50_000;
/**
 * The target for every case with the default output: what the rows add to the process, its peak above
 * n8n's own idle memory (n8n 2.8.4 alone idles above 200 MiB here, before any workflow runs).
 */
const TARGET_MIB = 200;

type Mode = 'single process' | 'queue mode';
type Case = 'Get Results' | 'Submit, wait by webhook';
type Output = 'default' | 'Only Sheet Fields';

interface Measured {
  version: string;
  mode: Mode;
  operation: Case;
  output: Output;
  /** The process that ran the node, and n8n's idle memory there before any case ran. */
  where: string;
  idleMiB: number;
  peakMiB: number;
  seconds: number;
}

const CASES: Array<{ operation: Case; output: Output }> = [
  { operation: 'Get Results', output: 'default' },
  { operation: 'Get Results', output: 'Only Sheet Fields' },
  { operation: 'Submit, wait by webhook', output: 'default' },
  { operation: 'Submit, wait by webhook', output: 'Only Sheet Fields' },
];

function count(x: number): Json {
  return {
    id: crypto.randomUUID(),
    name: 'Count',
    type: 'n8n-nodes-base.summarize',
    typeVersion: 1.1,
    position: [x, 0],
    parameters: { fieldsToSummarize: { values: [{ aggregation: 'count', field: 'email' }] }, options: {} },
  };
}

function caseWorkflow(path: string, operation: Case, output: Output, credentialId: string, receiverUrl: string): Json {
  const sheetFields = output === 'Only Sheet Fields';
  const node =
    operation === 'Get Results'
      ? evfNode(
          'Get Results',
          {
            resource: 'bulkJob',
            operation: 'getResults',
            jobId: { __rl: true, mode: 'id', value: '={{ $json.body.jobId }}' },
            returnAll: true,
            sheetFields,
          },
          credentialId,
          200,
        )
      : evfNode(
          'Submit And Wait',
          {
            resource: 'bulkJob',
            operation: 'submit',
            emailSource: 'list',
            emails: '={{ $json.body.emails }}',
            waitForCompletion: true,
            waitMethod: 'webhook',
            timeoutMinutes: 30,
            pollIntervalSeconds: 10,
            waitOutput: 'results',
            resultOptions: { sheetFields },
            options: {},
          },
          credentialId,
          200,
        );
  return workflow(id16('wfmem'), `Memory: ${operation}, ${output}`, [
    webhookStart(path),
    node,
    count(400),
    report('Report', `${receiverUrl}/done/${path}`, 600, '={{ JSON.stringify({ rows: $json.count_email }) }}'),
  ]);
}

async function settledMemory(processes: Map<string, runner.N8nProcess>): Promise<Map<string, number>> {
  const sample = () => new Map([...processes].map(([role, proc]) => [role, services.memoryOf(proc.pid)?.rssMiB ?? 0]));
  const history: Array<Map<string, number>> = [sample()];
  const deadline = Date.now() + 120_000;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    history.push(sample());
    const window = history.slice(-4);
    const steady = window.length === 4 && [...processes.keys()].every((role) => {
      const values = window.map((m) => m.get(role)!);
      return Math.max(...values) - Math.min(...values) <= 3;
    });
    if (steady || Date.now() > deadline) return history[history.length - 1]!;
  }
}

async function measureMode(version: string, mode: Mode, log: (s: string) => void): Promise<Measured[]> {
  const tarball = runner.packTarball();
  const instances: runner.Instance[] = [];
  const processes: runner.N8nProcess[] = [];
  let postgres: services.Postgres | undefined;
  let redis: services.Redis | undefined;
  let sandbox: Sandbox | undefined;
  let receiver: Receiver | undefined;
  try {
    // Jobs stay queued 5 s of real time (Submit pauses before its job finishes), then run fast.
    sandbox = await startSandbox({ port: 0, timeScale: 0.05, queueDelayMs: 100_000, rowsPerSecond: 100_000, allowInsecureWebhooks: true });
    receiver = await startReceiver();
    const credentialId = id16('memcred');
    const paths = CASES.map((c, i) => `mem-${i}-${crypto.randomUUID().slice(0, 8)}`);
    const workflows = CASES.map((c, i) => caseWorkflow(paths[i]!, c.operation, c.output, credentialId, receiver!.url));
    const roles = mode === 'queue mode' ? ['main', 'worker', 'webhook'] : ['main'];
    const [mainPort, webhookPort] = [await runner.freePort(), await runner.freePort()];
    let shared: Record<string, string> = {};
    if (mode === 'queue mode') {
      [postgres, redis] = await Promise.all([services.startPostgres(), services.startRedis()]);
      shared = { ...services.queueEnv(postgres, redis), WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/` };
    }
    const encryptionKey = crypto.randomUUID().replace(/-/g, '');
    for (const role of roles) {
      const instance = await runner.createInstance({ version, port: role === 'webhook' ? webhookPort : mainPort, encryptionKey, extra: shared });
      runner.installPackage(instance.folder, tarball);
      instances.push(instance);
    }
    const main = instances[0]!;
    await runner.importCredentials(main, [credential(credentialId, { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl, webhookSecret: sandbox.webhookSecret })]);
    await runner.importWorkflows(main, workflows);
    for (const wf of workflows) await runner.publishWorkflow(main, String(wf.id));
    // A finished job for Get Results, submitted from outside n8n.
    const client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
    const emails = Array.from({ length: ROWS }, (_, i) => `valid.mem${i}@example.com`);
    const { jobs } = await client.submitList({ emails });
    await client.waitForJob(jobs[0]!.job_id, { intervalMs: 1000, timeoutMs: 600_000 });

    const out: Measured[] = [];
    for (const [i, c] of CASES.entries()) {
      const byRole = new Map<string, runner.N8nProcess>();
      byRole.set('main', await runner.startN8n({ instance: main }));
      if (mode === 'queue mode') {
        byRole.set('worker', await runner.startN8n({ instance: instances[1]!, command: 'worker' }));
        byRole.set('webhook', await runner.startN8n({ instance: instances[2]!, command: 'webhook' }));
      }
      processes.push(...byRole.values());
      const entry = mode === 'queue mode' ? `http://127.0.0.1:${webhookPort}` : byRole.get('main')!.url;
      // n8n's idle memory, before the case: once start-up work has settled (n8n 2.41 keeps loading for
      // tens of seconds after it answers), i.e. no process moved by more than 3 MiB over 6 s.
      const idle = await settledMemory(byRole);
      for (const proc of byRole.values()) services.resetPeakMemory(proc.pid);
      const started = Date.now();
      const body = c.operation === 'Get Results' ? { jobId: jobs[0]!.job_id } : { emails };
      // Activation can lag the server's readiness: 404 until the workflow's webhook exists.
      for (;;) {
        const answer = await fetch(`${entry}/webhook/${paths[i]}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        if (answer.status !== 404) break;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      const done = JSON.parse((await receiver.next(900_000, (d) => d.url === `/done/${paths[i]}`)).rawBody) as { rows: number };
      if (done.rows !== ROWS) throw new Error(`${c.operation} gave ${done.rows} rows, expected ${ROWS}`);
      const seconds = (Date.now() - started) / 1000;
      // The process that held the rows: one process; in queue mode the worker, and for the resumed
      // Submit also the webhook process that read them (whichever peaked higher).
      const candidates = mode === 'queue mode' ? (c.operation === 'Get Results' ? ['worker'] : ['worker', 'webhook']) : ['main'];
      const peaks = candidates.map((role) => ({ role, peak: services.memoryOf(byRole.get(role)!.pid)?.peakMiB ?? 0 }));
      const top = peaks.reduce((x, y) => (y.peak > x.peak ? y : x));
      const measured: Measured = { version, mode, ...c, where: top.role === 'main' ? 'n8n' : `${top.role} process`, idleMiB: idle.get(top.role)!, peakMiB: top.peak, seconds };
      log(`n8n ${version}, ${mode}, ${c.operation}, ${c.output}: peak ${measured.peakMiB} MiB in the ${measured.where} (idle ${measured.idleMiB} MiB), ${seconds.toFixed(1)} s`);
      out.push(measured);
      // Let n8n finish with the execution (saving it) before stopping: in queue mode a worker stopped
      // mid-job leaves it in Redis, and the next case's fresh worker would replay it while idle.
      await settledMemory(byRole);
      for (const proc of [...byRole.values()].reverse()) {
        await proc.stop();
        processes.splice(processes.indexOf(proc), 1);
      }
    }
    return out;
  } finally {
    for (const proc of processes.reverse()) await proc.stop();
    await receiver?.close();
    await sandbox?.close();
    await redis?.stop();
    await postgres?.stop();
    for (const instance of instances) runner.removeInstance(instance);
    runner.discardTarball();
  }
}

/** Every installed version, one process and (when PostgreSQL and Redis are there) queue mode. */
export async function benchN8nMemory(log: (s: string) => void): Promise<Row[]> {
  const versions = [runner.PINNED, runner.NEWEST].filter((v) => runner.isInstalled(v));
  if (versions.length === 0) throw new Error('no n8n installed: npm run n8n:install -w n8n-nodes-evf');
  const modes: Mode[] = ['single process'];
  if (services.missingQueuePrerequisites().length === 0) modes.push('queue mode');
  else log(`queue mode: skipped (missing ${services.missingQueuePrerequisites().join(', ')})`);
  const all: Measured[] = [];
  for (const version of versions) for (const mode of modes) all.push(...(await measureMode(version, mode, log)));
  return all.map((m) => ({
    benchmark: `n8n memory, ${ROWS / 1000}k rows: n8n ${m.version}, ${m.mode}`,
    measure: `${m.operation}, ${m.output}: peak RSS MiB (${m.where})`,
    ours: String(m.peakMiB),
    baseline: `n8n idle ${m.idleMiB} MiB`,
    ratio: `+${m.peakMiB - m.idleMiB} MiB`,
    target: m.output === 'default' ? `<= +${TARGET_MIB} MiB above idle` : '–',
    met: m.output === 'default' ? m.peakMiB - m.idleMiB <= TARGET_MIB : null,
  }));
}

if (require.main === module) {
  benchN8nMemory((s) => console.log(`  ${s}`)).then(
    (rows) => {
      for (const r of rows) console.log(`${r.benchmark} | ${r.measure} | ${r.ours} | ${r.baseline} | ${r.ratio} | ${r.target}`);
    },
    (error) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
