/**
 * Section 6, n8n: the whole-sheet flow a user imports (packages/n8n/examples/file-bulk-verify-write-back.json)
 * run headless in a real n8n (the pinned version, package installed from its tarball) on a 50,000-row CSV
 * (10,000 with BENCH_QUICK=1), against a sandbox in this process. Everything printed is counted from the
 * run: n8n's executions as n8n counts them in its database, the service requests from the sandbox's log,
 * credits from its ledger, the file's rows read back, wall time (less the `n8n execute` start-up, measured
 * on an empty workflow in the same n8n), and the peak RSS of the n8n process (the Code node's task runner
 * is a child of it and not included).
 *
 * Beside it, the per-row pattern the peers' nodes force (one Verify call per row): run on a sample in the
 * same n8n and scaled to the list linearly, which the baseline column says. n8n counts one execution per
 * run whatever the item count, so per-row costs n8n nothing more; it costs a request and a credit per row,
 * and single checks never refund unknowns.
 *
 * Needs n8n installed (`npm run n8n:install -w n8n-nodes-evf`); without it, bench/run.ts prints one
 * skipped line.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import * as runner from '../packages/n8n/test/harness/n8n-runner';
import { n8nBin, nodeFor } from '../packages/n8n/test/harness/ensure-n8n';
import { evfNode, manualStart, workflow } from '../packages/n8n/test/support/workflows';
import {
  expected,
  leads,
  prepareFlow,
  readBack,
  writeLeads,
  type Flow,
} from '../packages/n8n/test/support/whole-sheet';
import { fmt, type Row } from './lib/stats';

const FULL = 50_000;

interface Counted {
  ms: number;
  peakRssMb: number;
  requests: Record<string, number>;
  charged: number;
  refunded: number;
}

/** Reads VmHWM (the peak resident set) of a live process; 0 when /proc has no such entry. */
function peakRssMb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** `n8n execute --id` for one workflow, with its wall time and the n8n process's peak RSS. */
function execute(instance: runner.Instance, id: string): Promise<{ ms: number; peakRssMb: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(nodeFor(instance.version), [n8nBin(instance.version), 'execute', `--id=${id}`], {
      env: instance.env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let peak = 0;
    let stderr = '';
    const watch = setInterval(() => (peak = Math.max(peak, peakRssMb(child.pid!))), 200);
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(watch);
      if (code !== 0) reject(new Error(`n8n execute --id=${id} exited ${code}: ${stderr.slice(-2000)}`));
      else resolve({ ms: performance.now() - started, peakRssMb: peak });
    });
  });
}

/** Service requests by kind, credits charged and refunded, across `run`. */
async function counted(
  sandbox: Sandbox,
  run: () => Promise<{ ms: number; peakRssMb: number }>,
): Promise<Counted> {
  const from = sandbox.requests.length;
  const before = sandbox.ledger();
  const { ms, peakRssMb: peak } = await run();
  await sandbox.webhooksIdle();
  const after = sandbox.ledger();
  const requests: Record<string, number> = {};
  for (const entry of sandbox.requests.slice(from)) {
    const kind = `${entry.method} ${entry.path.replace(/\/v1\/jobs\/[^/]+/, '/v1/jobs/{id}')}`;
    requests[kind] = (requests[kind] ?? 0) + 1;
  }
  return {
    ms,
    peakRssMb: peak,
    requests,
    charged: after.charged - before.charged,
    refunded: after.refunded - before.refunded,
  };
}

const total = (requests: Record<string, number>): number =>
  Object.values(requests).reduce((a, b) => a + b, 0);

export async function benchSheetN8n(log: (s: string) => void): Promise<Row[]> {
  const version = runner.PINNED;
  if (!runner.isInstalled(version)) {
    throw new Error(`n8n ${version} is not installed here: npm run n8n:install -w n8n-nodes-evf installs it`);
  }
  const rows = process.env.BENCH_QUICK ? 10_000 : FULL;
  const sampleSize = process.env.BENCH_QUICK ? 100 : 500;
  const sandbox = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 200_000 });
  let flow: Flow | undefined;
  try {
    const tarball = runner.packTarball();
    flow = await prepareFlow({ version, sandbox, tarball, file: 'leads.csv' });
    const file = join(flow.files, 'leads.csv');
    const list = leads(rows);
    writeLeads(file, list, version);

    // The per-row pattern, in the same n8n: a sample of the same list, one Verify call per row.
    const sample = list.slice(0, sampleSize).filter((row) => !row.Email.startsWith('broken'));
    const perRowId = 'benchPerRow00001';
    const emptyId = 'benchEmpty000001';
    const sampleJson = JSON.stringify(sample.map((row) => row.Email));
    await runner.importWorkflows(flow.instance, [
      workflow(emptyId, 'Nothing: the start-up of n8n execute', [manualStart()]),
      workflow(perRowId, 'Per row: one Verify call per row', [
        manualStart(),
        {
          id: crypto.randomUUID(),
          name: 'Rows',
          type: 'n8n-nodes-base.code',
          typeVersion: 2,
          position: [200, 0],
          parameters: { jsCode: `return ${sampleJson}.map((Email) => ({ json: { Email } }));` },
        },
        evfNode(
          'Verify Each Row',
          { resource: 'email', operation: 'verify', email: '={{ $json.Email }}', options: {} },
          'evfSandboxCred01',
          400,
        ),
      ]),
    ]);

    const startUp = await execute(flow.instance, emptyId);
    const bulk = await counted(sandbox, () => execute(flow!.instance, 'evfExampleFile001'));
    const back = readBack(file, version);
    const want = expected(list);
    const answered = back.filter(
      (row) => row.Verification === 'verified' || row.Verification === 'duplicate',
    ).length;
    const wanted = want.rows.filter((row) => row.verification !== 'skipped').length;
    if (back.length !== rows || answered !== wanted) {
      throw new Error(
        `the flow wrote ${back.length} rows with ${answered} answered; expected ${rows} with ${wanted}`,
      );
    }
    const executions = Object.values(flow.executions()).reduce((a, b) => a + b, 0);
    const perRow = await counted(sandbox, () => execute(flow!.instance, perRowId));
    // The start-up of `n8n execute` (about 10 s) is not the flow's.
    const bulkRunMs = bulk.ms - startUp.ms;
    const perRowRunMs = perRow.ms - startUp.ms;
    const scale = want.unique.size / sample.length;
    const scaled = (n: number): string => fmt(n * scale, 0);

    log(
      `n8n sheet ${rows} rows: ${executions} execution, ${total(bulk.requests)} requests ${JSON.stringify(bulk.requests)}, ` +
        `charged ${bulk.charged}, refunded ${bulk.refunded}, run ${(bulkRunMs / 1000).toFixed(1)} s (${(bulk.ms / 1000).toFixed(1)} s with n8n execute's ${(startUp.ms / 1000).toFixed(1)} s start-up), n8n peak RSS ${bulk.peakRssMb.toFixed(0)} MB`,
    );
    log(
      `n8n per row, ${sample.length}-row sample: ${total(perRow.requests)} requests, charged ${perRow.charged}, refunded ${perRow.refunded}, ` +
        `run ${(perRowRunMs / 1000).toFixed(1)} s; scaled x${scale.toFixed(1)} to the list's ${want.unique.size} distinct addresses`,
    );
    const name = `6. n8n sheet, ${rows.toLocaleString('en')} rows (file flow)`;
    const sampled = `per row, scaled x${scale.toFixed(1)} from a ${sample.length}-row sample`;
    return [
      {
        benchmark: name,
        measure: 'n8n executions, write-back included',
        ours: String(executions),
        baseline: '1 (n8n counts runs, not items)',
        ratio: '–',
        target: '1',
        met: executions === 1,
      },
      {
        benchmark: name,
        measure: 'service requests',
        ours: String(total(bulk.requests)),
        baseline: `${scaled(total(perRow.requests))} (${sampled})`,
        ratio: `${((total(perRow.requests) * scale) / total(bulk.requests)).toFixed(0)}x fewer`,
        target: '–',
        met: null,
      },
      {
        benchmark: name,
        measure: 'credits charged / refunded',
        ours: `${bulk.charged} / ${bulk.refunded}`,
        baseline: `${scaled(perRow.charged)} / ${scaled(perRow.refunded)} (${sampled})`,
        ratio: '–',
        target: 'unknowns refunded',
        met: bulk.refunded > 0,
      },
      {
        benchmark: name,
        measure: 'run s, less the n8n execute start-up',
        ours: `${(bulkRunMs / 1000).toFixed(1)} (${(bulk.ms / 1000).toFixed(1)} with its ${(startUp.ms / 1000).toFixed(1)} s start-up)`,
        baseline: `${fmt((perRowRunMs / 1000) * scale, 0)} (${sampled}; the sandbox answers at once)`,
        ratio: '–',
        target: '–',
        met: null,
      },
      {
        benchmark: name,
        measure: 'peak RSS MB of the n8n process',
        ours: bulk.peakRssMb.toFixed(0),
        baseline: `${perRow.peakRssMb.toFixed(0)} (per-row sample run)`,
        ratio: '–',
        target: '–',
        met: null,
      },
    ];
  } finally {
    flow?.remove();
    runner.discardTarball();
    await sandbox.close();
  }
}
