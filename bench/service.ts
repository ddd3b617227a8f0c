/**
 * 2. Reading 50,000 rows over loopback (client iterator vs a bare fetch loop; then concurrency under a
 *    50 ms per-request delay), 4. completion latency (signed webhook vs polling), 5. request economy.
 * All against the real sandbox over HTTP on 127.0.0.1.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import {
  acceleratedRuntime,
  createClient,
  verifyWebhook,
  type EmailVerificationClient,
} from '@evf/client/node';
import { makeCorpus } from './lib/corpus';
import { fmt, fmtSummary, summarize, type Row } from './lib/stats';

const FAST = { timeScale: 0.001, rowsPerSecond: 200_000, allowInsecureWebhooks: true } as const;

function clientFor(sb: Sandbox, speed = 1): EmailVerificationClient {
  return createClient({
    apiKey: sb.apiKey,
    baseUrl: sb.baseUrl,
    runtime: acceleratedRuntime(speed),
    webhookUrl: { allowLoopbackHttp: true },
  });
}

async function finishedJob(sb: Sandbox, size: number): Promise<string> {
  const client = clientFor(sb, 1 / FAST.timeScale);
  const emails = Array.from({ length: size }, (_, i) => `lead${i}@company${i % 97}.com`);
  const { jobs } = await client.submitList({ emails });
  await client.waitForJob(jobs[0]!.job_id);
  return jobs[0]!.job_id;
}

async function bareLoop(sb: Sandbox, jobId: string, perPage: number): Promise<number> {
  let rows = 0;
  for (let page = 1; ; page++) {
    const res = await fetch(`${sb.baseUrl}/v1/jobs/${jobId}/results?page=${page}&per_page=${perPage}`, {
      headers: { 'X-API-Key': sb.apiKey },
    });
    const body = JSON.parse(await res.text()) as { results: unknown[]; has_more: boolean };
    rows += body.results.length;
    if (!body.has_more) return rows;
  }
}

async function viaClient(
  client: EmailVerificationClient,
  jobId: string,
  perPage: number,
  concurrency = 1,
): Promise<number> {
  let rows = 0;
  for await (const _row of client.results(jobId, { pageSize: perPage, concurrency })) rows++;
  return rows;
}

async function time(fn: () => Promise<number>, expectRows: number): Promise<number> {
  const t0 = performance.now();
  const rows = await fn();
  const ms = performance.now() - t0;
  if (rows !== expectRows) throw new Error(`read ${rows} rows, expected ${expectRows}`);
  return ms;
}

export async function benchPagination(runs: number, log: (s: string) => void): Promise<Row[]> {
  const rows: Row[] = [];
  const N = 50_000;
  const sb = await startSandbox({ port: 0, ...FAST });
  try {
    const jobId = await finishedJob(sb, N);
    const client = clientFor(sb);
    const floor: number[] = [];
    const ours: number[] = [];
    await bareLoop(sb, jobId, 1000); // warm-up for both paths
    await viaClient(client, jobId, 1000);
    for (let r = 0; r < runs; r++) {
      // Alternate so that drift on a shared machine hits both alike.
      floor.push(await time(() => bareLoop(sb, jobId, 1000), N));
      ours.push(await time(() => viaClient(client, jobId, 1000), N));
    }
    const f = summarize(floor);
    const o = summarize(ours);
    const overhead = (o.median / f.median - 1) * 100;
    log(
      `pagination 50k: client ${fmtSummary(o, ' ms', 0)} vs bare fetch loop ${fmtSummary(f, ' ms', 0)} (${overhead.toFixed(1)}% over)`,
    );
    rows.push({
      benchmark: '2. Read 50k rows, loopback',
      measure: 'ms, median (min–max)',
      ours: fmtSummary(o, '', 0),
      baseline: `${fmtSummary(f, '', 0)} bare fetch+JSON.parse loop`,
      ratio: `${overhead >= 0 ? '+' : ''}${overhead.toFixed(1)}%`,
      target: 'within 15% of the floor',
      met: overhead <= 15,
    });
  } finally {
    await sb.close();
  }

  const slow = await startSandbox({ port: 0, ...FAST, latencyMs: 50 });
  try {
    const jobId = await finishedJob(slow, N);
    const client = clientFor(slow);
    const seq: number[] = [];
    const par: number[] = [];
    for (let r = 0; r < Math.max(2, Math.ceil(runs / 2)); r++) {
      seq.push(await time(() => viaClient(client, jobId, 1000, 1), N));
      par.push(await time(() => viaClient(client, jobId, 1000, 8), N));
    }
    const s = summarize(seq);
    const p = summarize(par);
    log(
      `pagination 50k with 50 ms/request: concurrency 8 ${fmtSummary(p, ' ms', 0)} vs one at a time ${fmtSummary(s, ' ms', 0)}`,
    );
    rows.push({
      benchmark: '2. Read 50k rows, +50 ms/request',
      measure: 'ms, median (min–max)',
      ours: `${fmtSummary(p, '', 0)} (8 pages at once)`,
      baseline: `${fmtSummary(s, '', 0)} one page at a time`,
      ratio: `${(s.median / p.median).toFixed(1)}x faster`,
      target: '>= 3x',
      met: s.median / p.median >= 3,
    });
  } finally {
    await slow.close();
  }
  return rows;
}

export async function benchLatency(jobs: number, log: (s: string) => void): Promise<Row[]> {
  // Real time for deliveries; the polling path runs on a 1000x sandbox clock and is scaled back.
  const sb = await startSandbox({
    port: 0,
    timeScale: 0.001,
    rowsPerSecond: 100_000,
    allowInsecureWebhooks: true,
  });
  const arrivals = new Map<string, number>();
  const receiver = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      try {
        const event = verifyWebhook({
          rawBody: Buffer.concat(parts),
          headers: req.headers,
          secrets: sb.webhookSecret,
        });
        if (!arrivals.has(event.jobId)) arrivals.set(event.jobId, Date.now());
        res.writeHead(204).end();
      } catch {
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const speed = 1000;
  const client = clientFor(sb, speed);
  const webhookMs: number[] = [];
  const pollMs: number[] = [];
  try {
    for (let i = 0; i < jobs; i++) {
      const emails = Array.from({ length: 20 }, (_, k) => `j${i}.lead${k}@company.com`);
      const {
        jobs: [job],
      } = await client.submitList({ emails, webhook_url: url });
      const seenAt = await pollUntilStopped(client, job!.job_id, speed);
      const finished = Date.parse(sb.job(job!.job_id)!.completed_at as string);
      for (let t = 0; t < 200 && !arrivals.has(job!.job_id); t++) await new Promise((r) => setTimeout(r, 5));
      webhookMs.push(arrivals.get(job!.job_id)! - finished);
      pollMs.push((seenAt - finished) * speed);
    }
  } finally {
    receiver.close();
    await sb.close();
  }
  const w = summarize(webhookMs);
  const p = summarize(pollMs);
  log(
    `completion latency over ${jobs} jobs: signed webhook ${fmtSummary(w, ' ms', 1)}; polling every 10 s ${fmtSummary(p, ' ms', 0)}`,
  );
  return [
    {
      benchmark: `4. Completion latency (${jobs} jobs)`,
      measure: 'ms from finish to verified event: median (min–max)',
      ours: `${fmtSummary(w, '', 1)} webhook (client verifier)`,
      baseline: `${fmtSummary(p, '', 0)} polling every 10 s`,
      ratio: `${fmt(p.median / Math.max(w.median, 0.1), 0)}x sooner`,
      target: '–',
      met: null,
    },
  ];
}

/**
 * waitForJob at the recommended 10 s, returning the wall time (real ms) at which it saw the job stop.
 * A real poller's phase is unrelated to when a job finishes, so polling starts at a random point of
 * its interval.
 */
async function pollUntilStopped(
  client: EmailVerificationClient,
  jobId: string,
  _speed: number,
): Promise<number> {
  await client.runtime.sleep(Math.random() * 10_000);
  await client.waitForJob(jobId, { intervalMs: 10_000 });
  return Date.now();
}

export async function benchEconomy(
  log: (s: string) => void,
): Promise<{ rows: Row[]; details: Record<string, number> }> {
  const sb = await startSandbox({ port: 0, ...FAST });
  try {
    const corpus = makeCorpus(50_000 + 5_600, 7);
    const client = clientFor(sb, 1 / FAST.timeScale);
    const before = sb.ledger();
    const mark = sb.requests.length;
    const submitted = await client.submitList({ emails: corpus.emails });
    let polls = 0;
    const stopped = await Promise.all(
      submitted.jobs.map((j) => client.waitForJob(j.job_id, { onProgress: () => polls++ })),
    );
    let rows = 0;
    for (const j of stopped) for await (const _r of client.results(j.job_id)) rows++;
    const after = sb.ledger();
    const reqs = sb.requests.slice(mark);
    const count = (m: string, re: RegExp) => reqs.filter((r) => r.method === m && re.test(r.path)).length;
    const posts = count('POST', /verify\/bulk$/);
    const gets = count('GET', /\/v1\/jobs\/[^/]+$/);
    const pages = count('GET', /\/results$/);
    const unique = submitted.preflight.unique.length;
    const charged = after.charged - before.charged;
    const refunded = after.refunded - before.refunded;
    const expectedPages = stopped.reduce((s, j) => s + Math.max(1, Math.ceil(j.total_emails / 1000)), 0);
    log(
      `economy: ${corpus.emails.length} in, ${unique} unique valid; ${posts} POST, ${gets} polls, ${pages} pages; charged ${charged}, refunded ${refunded}; ${rows} rows read`,
    );
    const ok =
      charged === unique && posts === submitted.jobs.length && pages === expectedPages && rows === unique;
    return {
      rows: [
        {
          benchmark: '5. Request economy, 1 job',
          measure: 'requests / credits',
          ours: `${posts} submit + ${gets} polls + ${pages} pages; ${charged} credits (${refunded} refunded)`,
          baseline: `${unique} unique valid of ${corpus.emails.length}; ${expectedPages} pages needed`,
          ratio: `credits = unique valid: ${charged === unique}`,
          target: 'credits = unique valid; 1 submit, polls, 1/page',
          met: ok,
        },
      ],
      details: {
        input: corpus.emails.length,
        unique,
        malformed: submitted.preflight.malformed.length,
        duplicates: submitted.preflight.duplicates.length,
        posts,
        polls: gets,
        pages,
        charged,
        refunded,
        rows,
      },
    };
  } finally {
    await sb.close();
  }
}
