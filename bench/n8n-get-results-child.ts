/**
 * The node's execute path for Bulk Job → Get Results with Return All, alone in a fresh process so its
 * time and memory are its own. It runs the built package (`npm run build -w n8n-nodes-evf` first). The sandbox runs in the parent; this process only talks to it over HTTP.
 * Prints one JSON line.
 */
import type { INodeExecutionData, INodeType } from 'n8n-workflow';
import { executeContext } from '../packages/n8n/test/support/context';

// The built bundle, exactly as n8n loads it (client inlined), not the TypeScript source.
const { EmailVerification } =
  require('../packages/n8n/dist/nodes/EmailVerification/EmailVerification.node.js') as {
    EmailVerification: new () => INodeType & { execute: (this: unknown) => Promise<INodeExecutionData[][]> };
  };

async function main(): Promise<void> {
  const [baseUrl, apiKey, jobId] = process.argv.slice(2) as [string, string, string];
  const node = new EmailVerification();
  const harness = executeContext({
    params: {
      resource: 'bulkJob',
      operation: 'getResults',
      jobId: { mode: 'id', value: jobId },
      returnAll: true,
      groups: [],
      simplify: false,
    },
    credentials: { apiKey, baseUrl },
  });
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  const t0 = performance.now();
  const output = await node.execute.call(harness.context);
  const ms = performance.now() - t0;
  const after = process.memoryUsage();
  console.log(
    JSON.stringify({
      ms,
      items: output[0]!.length,
      requests: harness.sent.length,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      baselineRssMb: before.rss / 2 ** 20,
      heapWithOutputMb: (after.heapUsed - before.heapUsed) / 2 ** 20,
    }),
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
