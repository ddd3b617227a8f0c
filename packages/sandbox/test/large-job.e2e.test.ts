import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startSandbox, type Sandbox } from '@evf/sandbox';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapMb(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

describe('a 50,000-address job', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 2000, queueDelayMs: 0 });
  });
  afterAll(() => sb.close());

  test('finishes, pages out every row exactly once in order, counters agree, and retained heap stays bounded', async () => {
    const headers = { 'X-API-Key': sb.apiKey, 'Content-Type': 'application/json' };
    const baseline = heapMb();
    const emails = Array.from(
      { length: 50_000 },
      (_, i) => `person.number${i}@company${i % 997}.example.com`,
    );
    const sub = await fetch(`${sb.baseUrl}/v1/verify/bulk`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ emails }),
    });
    expect(sub.status).toBe(202);
    const { job_id: jobId, total_emails } = (await sub.json()) as { job_id: string; total_emails: number };
    expect(total_emails).toBe(50_000);

    let job: {
      terminal: boolean;
      processed: number;
      status: string;
      verdicts: Record<string, number>;
      buckets: Record<string, number>;
    };
    const started = Date.now();
    do {
      await new Promise((r) => setTimeout(r, 20));
      job = (await (await fetch(`${sb.baseUrl}/v1/jobs/${jobId}`, { headers })).json()) as typeof job;
    } while (!job.terminal && Date.now() - started < 60_000);
    expect(job.status).toBe('completed');
    expect(job.processed).toBe(50_000);
    expect(Object.values(job.verdicts).reduce((a, b) => a + b, 0)).toBe(50_000);
    expect(Object.values(job.buckets).reduce((a, b) => a + b, 0)).toBe(50_000);

    let peak = 0;
    let count = 0;
    let mismatches = 0;
    for (let page = 1; ; page++) {
      const res = await fetch(`${sb.baseUrl}/v1/jobs/${jobId}/results?page=${page}&per_page=1000`, {
        headers,
      });
      const body = (await res.json()) as { has_more: boolean; results: { email: string }[]; total: number };
      for (const row of body.results) if (row.email !== emails[count++]) mismatches++;
      if (page % 10 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed / 1024 / 1024);
      if (!body.has_more) break;
    }
    expect(count).toBe(50_000);
    expect(mismatches).toBe(0);

    emails.length = 0;
    const retained = heapMb() - baseline;
    // The job keeps only its 50,000 addresses (a few MB); rows are built when read, never stored.
    // Storing row objects would retain tens of MB, which this bound catches.
    expect(retained).toBeLessThan(25);
    process.stdout.write(
      `large job: retained heap ${retained.toFixed(1)} MB, peak heap while paging ${peak.toFixed(1)} MB, ${Date.now() - started} ms\n`,
    );
  }, 120_000);
});
