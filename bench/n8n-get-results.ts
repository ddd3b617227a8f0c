/**
 * Benchmark 3: the n8n node's Get Results with Return All on a finished 50,000-row job: time
 * and peak memory of the node's execute path, each run in a fresh process against one sandbox.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { startSandbox } from '@evf/sandbox';
import { acceleratedRuntime, createClient } from '@evf/client/node';
import { fmtSummary, summarize, type Row } from './lib/stats';

interface ChildResult {
  ms: number;
  items: number;
  requests: number;
  peakRssMb: number;
  baselineRssMb: number;
  heapWithOutputMb: number;
}

const span = (xs: number[], d = 0): string => fmtSummary(summarize(xs), '', d);
const median = (xs: number[]): number => summarize(xs).median;

export async function benchGetResults(runs: number, log: (s: string) => void): Promise<Row[]> {
  const N = 50_000;
  const sb = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 200_000 });
  try {
    const client = createClient({
      apiKey: sb.apiKey,
      baseUrl: sb.baseUrl,
      runtime: acceleratedRuntime(1000),
    });
    const { jobs } = await client.submitList({
      emails: Array.from({ length: N }, (_, i) => `lead${i}@company${i % 89}.com`),
    });
    await client.waitForJob(jobs[0]!.job_id);
    const results: ChildResult[] = [];
    for (let r = 0; r < runs; r++) {
      // Asynchronous: the sandbox lives in this process and must keep answering while the child reads.
      const { stdout: out } = await promisify(execFile)(
        process.execPath,
        [
          '--expose-gc',
          '--conditions=source',
          '--import',
          'tsx',
          join(__dirname, 'n8n-get-results-child.ts'),
          sb.baseUrl,
          sb.apiKey,
          jobs[0]!.job_id,
        ],
        { encoding: 'utf8', cwd: join(__dirname, '..'), maxBuffer: 16 * 2 ** 20 },
      );
      const result = JSON.parse(out.trim().split('\n').pop()!) as ChildResult;
      if (result.items !== N) throw new Error(`Get Results returned ${result.items} items, expected ${N}`);
      results.push(result);
    }
    const peak = results.map((r) => r.peakRssMb);
    const added = results.map((r) => r.peakRssMb - r.baselineRssMb);
    log(
      `n8n Get Results 50k: ${span(results.map((r) => r.ms))} ms, peak RSS ${span(peak)} MB (${span(added)} MB above the process at start), ${results[0]!.requests} requests`,
    );
    return [
      {
        benchmark: '3. n8n Get Results, Return All, 50k',
        measure: 'ms, median (min–max)',
        ours: span(results.map((r) => r.ms)),
        baseline: `${results[0]!.requests} requests (pages of 1000)`,
        ratio: '–',
        target: '–',
        met: null,
      },
      {
        benchmark: '3. n8n Get Results, Return All, 50k',
        measure: 'peak RSS MB of the process (above start)',
        ours: `${span(peak)} (${span(added)})`,
        baseline: `heap holding the 50k items: ${span(results.map((r) => r.heapWithOutputMb))} MB`,
        ratio: '–',
        target: '< 300 MB peak',
        met: median(peak) < 300,
      },
    ];
  } finally {
    await sb.close();
  }
}
