/**
 * Peak resident memory of real n8n while this package handles a 50,000-row job, beside n8n's own idle
 * memory in the same process: for each installed n8n version (the pinned 2.8.4; 2.41.3 when installed,
 * `npm run n8n:install -w n8n-nodes-evf -- all`), in one process and in queue mode (main, worker and
 * webhook processes on PostgreSQL and Redis, when both are installed), for Get Results with Return All
 * and for Submit waiting by webhook with Result Rows, each with the default output and with Only Sheet
 * Fields; each as n8n starts on this machine and inside a 512 MiB container (a memory cgroup, where
 * Node.js sizes V8's heap from the limit as in Docker; 640 and then 768 MiB too where n8n cannot start
 * in 512 or a case runs out of memory), when this machine lets the bench make one. The
 * package is installed from its packed tarball, as a user installs it. Each case runs in freshly started
 * n8n processes (V8 keeps the memory a case grew into, so a second case in the same process would start
 * from the first one's size); idle is the process's resident memory once start-up has settled, peak is
 * Linux's VmHWM, reset just before the case (writing 5 to /proc/<pid>/clear_refs) and read once the
 * execution is saved (n8n serializes the whole execution after its last node ran).
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { createClient } from '@evf/client/node';
import * as runner from '../packages/n8n/test/harness/n8n-runner';
import * as services from '../packages/n8n/test/harness/queue-services';
import {
  createMemoryLimit,
  memoryLimitUnavailable,
  type MemoryLimit,
} from '../packages/n8n/test/harness/memory-limit';
import { startReceiver, type Receiver } from '../packages/n8n/test/support/receiver';
import {
  credential,
  evfNode,
  id16,
  report,
  webhookStart,
  workflow,
  type Row as Json,
} from '../packages/n8n/test/support/workflows';
import type { Row } from './lib/stats';

const ROWS = 50_000;
/**
 * The target for every case with the default output, judged in the 512 MiB container (the memory many
 * self-hosted n8n containers get), and in each larger size the bench tries where n8n itself does not
 * start in 512 (2.41.3 in one process peaks near 550 MiB while starting) or a case ran out of memory:
 * the case finishes, and the rows add at most this much to the process, its peak above n8n's own idle
 * memory there. Outside a container V8 grows its heap before
 * collecting (this machine has 24 GB), so the figures "as started" are printed beside it, not judged.
 */
const TARGET_MIB = 200;

type Mode = 'single process' | 'queue mode';
/** As n8n starts on this machine (V8 grows its heap freely), or inside a container's memory limit. */
type Setting = 'as started' | `${number} MiB container`;
/**
 * The memory many self-hosted n8n containers get; where n8n itself cannot start in it, or a case runs
 * out of memory, the next sizes, to show what that n8n needs.
 */
const CONTAINER_MIB = 512;
const LARGER_CONTAINERS_MIB = [640, 768];

function containerOf(setting: Setting): number | undefined {
  return setting === 'as started' ? undefined : Number.parseInt(setting, 10);
}
type Case = 'Get Results' | 'Submit, wait by webhook';
type Output = 'default' | 'Only Sheet Fields';

interface Measured {
  version: string;
  mode: Mode;
  setting: Setting;
  /** What happened: finished, or which process ran out of memory (or could not start) in the container. */
  outcome: string;
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

function caseWorkflow(
  path: string,
  operation: Case,
  output: Output,
  credentialId: string,
  receiverUrl: string,
): Json {
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
    report(
      'Report',
      `${receiverUrl}/done/${path}`,
      600,
      '={{ JSON.stringify({ rows: $json.count_email }) }}',
    ),
  ]);
}

async function settledMemory(processes: Map<string, runner.N8nProcess>): Promise<Map<string, number>> {
  const sample = () =>
    new Map([...processes].map(([role, proc]) => [role, services.memoryOf(proc.pid)?.rssMiB ?? 0]));
  const history: Array<Map<string, number>> = [sample()];
  const deadline = Date.now() + 120_000;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    history.push(sample());
    const window = history.slice(-4);
    const steady =
      window.length === 4 &&
      [...processes.keys()].every((role) => {
        const values = window.map((m) => m.get(role)!);
        return Math.max(...values) - Math.min(...values) <= 3;
      });
    if (steady || Date.now() > deadline) return history[history.length - 1]!;
  }
}

function where(role: string): string {
  return role === 'main' ? 'n8n' : `${role} process`;
}

/** Resolves with the role of the first watched process that is gone (killed for its memory). */
async function waitForDeath(died: () => string | undefined): Promise<string> {
  for (;;) {
    const dead = died();
    if (dead) return dead;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function measureMode(
  version: string,
  mode: Mode,
  setting: Setting,
  log: (s: string) => void,
): Promise<Measured[]> {
  const tarball = runner.packTarball();
  const instances: runner.Instance[] = [];
  const processes: runner.N8nProcess[] = [];
  let postgres: services.Postgres | undefined;
  let redis: services.Redis | undefined;
  let sandbox: Sandbox | undefined;
  let receiver: Receiver | undefined;
  try {
    // Jobs stay queued 5 s of real time (Submit pauses before its job finishes), then run fast.
    sandbox = await startSandbox({
      port: 0,
      timeScale: 0.05,
      queueDelayMs: 100_000,
      rowsPerSecond: 100_000,
      allowInsecureWebhooks: true,
    });
    receiver = await startReceiver();
    const credentialId = id16('memcred');
    const paths = CASES.map((c, i) => `mem-${i}-${crypto.randomUUID().slice(0, 8)}`);
    const workflows = CASES.map((c, i) =>
      caseWorkflow(paths[i]!, c.operation, c.output, credentialId, receiver!.url),
    );
    const roles = mode === 'queue mode' ? ['main', 'worker', 'webhook'] : ['main'];
    const [mainPort, webhookPort] = [await runner.freePort(), await runner.freePort()];
    let shared: Record<string, string> = {};
    if (mode === 'queue mode') {
      [postgres, redis] = await Promise.all([services.startPostgres(), services.startRedis()]);
      shared = { ...services.queueEnv(postgres, redis), WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/` };
    }
    const encryptionKey = crypto.randomUUID().replace(/-/g, '');
    for (const role of roles) {
      const instance = await runner.createInstance({
        version,
        port: role === 'webhook' ? webhookPort : mainPort,
        encryptionKey,
        extra: shared,
      });
      runner.installPackage(instance.folder, tarball);
      instances.push(instance);
    }
    const main = instances[0]!;
    await runner.importCredentials(main, [
      credential(credentialId, {
        apiKey: sandbox.apiKey,
        baseUrl: sandbox.baseUrl,
        webhookSecret: sandbox.webhookSecret,
      }),
    ]);
    await runner.importWorkflows(main, workflows);
    for (const wf of workflows) await runner.publishWorkflow(main, String(wf.id));
    // A finished job for Get Results, submitted from outside n8n.
    const client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
    // Every address at its own domain: no two rows' details are equal, the case least helped by rows
    // sharing their repeated parts (a B2B lead list is close to it; a list on a few big providers shares more).
    const emails = Array.from({ length: ROWS }, (_, i) => `valid.mem${i}@d${i}.example`);
    const { jobs } = await client.submitList({ emails });
    await client.waitForJob(jobs[0]!.job_id, { intervalMs: 1000, timeoutMs: 600_000 });

    const out: Measured[] = [];
    for (const [i, c] of CASES.entries()) {
      const byRole = new Map<string, runner.N8nProcess>();
      // In queue mode the worker and the webhook process each get their own container; the main process
      // (editor and API) never runs the node and keeps its own memory.
      const limits = new Map<string, MemoryLimit>();
      const limitFor = (role: string): MemoryLimit | undefined => {
        const containerMiB = containerOf(setting);
        if (containerMiB === undefined || (mode === 'queue mode' && role === 'main')) return undefined;
        const limit = createMemoryLimit(containerMiB);
        limits.set(role, limit);
        return limit;
      };
      const base: Omit<Measured, 'where' | 'idleMiB' | 'peakMiB' | 'seconds' | 'outcome'> = {
        version,
        mode,
        setting,
        ...c,
      };
      const notStarted = out.find((m) => m.outcome.startsWith('n8n does not start'));
      if (notStarted) {
        out.push({ ...base, where: '–', idleMiB: 0, peakMiB: 0, seconds: 0, outcome: notStarted.outcome });
        continue;
      }
      // Each case its own Bull queue in Redis: a job an earlier case's processes left there (a worker
      // stopped while n8n still finished it) would otherwise be replayed by this case's fresh worker
      // while its idle memory is being read.
      const env = { QUEUE_BULL_PREFIX: `evf-mem-${crypto.randomUUID().slice(0, 8)}` };
      try {
        byRole.set('main', await runner.startN8n({ instance: main, env, memoryLimit: limitFor('main') }));
        if (mode === 'queue mode') {
          byRole.set(
            'worker',
            await runner.startN8n({
              instance: instances[1]!,
              command: 'worker',
              env,
              memoryLimit: limitFor('worker'),
            }),
          );
          byRole.set(
            'webhook',
            await runner.startN8n({
              instance: instances[2]!,
              command: 'webhook',
              env,
              memoryLimit: limitFor('webhook'),
            }),
          );
        }
      } catch (error) {
        const heap = /heap out of memory/.test(String((error as Error).message));
        const killed = [...limits.values()].some((limit) => limit.oomKills() > 0);
        const outOfMemory = heap || killed;
        const outcome = outOfMemory
          ? `n8n does not start in ${containerOf(setting)} MiB (${heap ? 'heap out of memory' : 'killed at the memory limit'})`
          : `n8n did not start: ${(error as Error).message.split('\n')[0]}`;
        log(`n8n ${version}, ${mode}, ${setting}, ${c.operation}, ${c.output}: ${outcome}`);
        out.push({ ...base, where: '–', idleMiB: 0, peakMiB: 0, seconds: 0, outcome });
        for (const proc of byRole.values()) await proc.stop();
        for (const limit of limits.values()) limit.remove();
        if (outOfMemory) continue;
        throw error;
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
        const answer = await fetch(`${entry}/webhook/${paths[i]}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (answer.status !== 404) break;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      // The process that held the rows: one process; in queue mode the worker, and for the resumed
      // Submit also the webhook process that read them (whichever peaked higher).
      const candidates =
        mode === 'queue mode'
          ? c.operation === 'Get Results'
            ? ['worker']
            : ['worker', 'webhook']
          : ['main'];
      const died = () => candidates.find((role) => services.memoryOf(byRole.get(role)!.pid) === undefined);
      const peaks = new Map(candidates.map((role) => [role, 0]));
      const readPeaks = () => {
        for (const role of candidates) {
          // A process being killed can still be listed without its memory figures.
          const peak = services.memoryOf(byRole.get(role)!.pid)?.peakMiB;
          if (Number.isFinite(peak)) peaks.set(role, Math.max(peaks.get(role)!, peak!));
        }
      };
      const sampler = setInterval(readPeaks, 250);
      let outcome = 'finished';
      let seconds = 0;
      try {
        const done = await Promise.race([
          receiver
            .next(900_000, (d) => d.url === `/done/${paths[i]}`)
            .then((d) => JSON.parse(d.rawBody) as { rows: number }),
          waitForDeath(died),
        ]);
        if (typeof done === 'string') outcome = `${where(done)} ran out of memory`;
        else if (done.rows !== ROWS)
          throw new Error(`${c.operation} gave ${done.rows} rows, expected ${ROWS}`);
        seconds = (Date.now() - started) / 1000;
        // n8n saves the execution after its last node: the peak counts until memory settles after it.
        if (outcome === 'finished') await settledMemory(byRole);
        readPeaks();
        const dead = died();
        if (outcome === 'finished' && dead)
          outcome = `${where(dead)} ran out of memory while saving the execution`;
      } finally {
        clearInterval(sampler);
      }
      const top = [...peaks].reduce((x, y) => (y[1] > x[1] ? y : x));
      const measured: Measured = {
        ...base,
        where: where(top[0]),
        idleMiB: idle.get(top[0])!,
        peakMiB: top[1],
        seconds,
        outcome,
      };
      log(
        `n8n ${version}, ${mode}, ${setting}, ${c.operation}, ${c.output}: ${outcome}; peak ${measured.peakMiB} MiB in the ${measured.where} (idle ${measured.idleMiB} MiB), ${seconds.toFixed(1)} s`,
      );
      out.push(measured);
      for (const proc of [...byRole.values()].reverse()) {
        await proc.stop();
        processes.splice(processes.indexOf(proc), 1);
      }
      for (const limit of limits.values()) limit.remove();
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
  const noContainer = memoryLimitUnavailable();
  if (noContainer) log(`${CONTAINER_MIB} MiB container: skipped (${noContainer})`);
  const all: Measured[] = [];
  for (const version of versions)
    for (const mode of modes) {
      all.push(...(await measureMode(version, mode, 'as started', log)));
      if (noContainer) continue;
      let contained = await measureMode(version, mode, `${CONTAINER_MIB} MiB container`, log);
      all.push(...contained);
      for (const size of LARGER_CONTAINERS_MIB) {
        if (contained.every((m) => m.outcome === 'finished')) break;
        contained = await measureMode(version, mode, `${size} MiB container`, log);
        all.push(...contained);
      }
    }
  return all.map((m) => {
    const added = m.peakMiB - m.idleMiB;
    // Judged in every container n8n itself starts in: a case that runs out of memory there misses it.
    const judged =
      m.output === 'default' && m.setting !== 'as started' && !m.outcome.startsWith('n8n does not start');
    return {
      benchmark: `n8n memory, ${ROWS / 1000}k rows: n8n ${m.version}, ${m.mode}, ${m.setting}`,
      measure: `${m.operation}, ${m.output}: peak RSS MiB (${m.where}; ${m.outcome})`,
      ours: m.peakMiB ? String(m.peakMiB) : '–',
      baseline: m.idleMiB ? `n8n idle ${m.idleMiB} MiB` : '–',
      ratio: m.peakMiB ? `+${added} MiB` : '–',
      target: judged ? `finishes; <= +${TARGET_MIB} MiB above idle` : '–',
      met: judged ? m.outcome === 'finished' && added <= TARGET_MIB : null,
    };
  });
}

if (require.main === module) {
  benchN8nMemory((s) => console.log(`  ${s}`)).then(
    (rows) => {
      for (const r of rows)
        console.log(`${r.benchmark} | ${r.measure} | ${r.ours} | ${r.baseline} | ${r.ratio} | ${r.target}`);
    },
    (error) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
