/**
 * `npm run demo`: the main job from end to end on an embedded sandbox, then each connector's own walk.
 * Finishes by itself. Uses the sandbox's demo credentials, which are not secrets (they exist only in
 * this process), and still never prints them.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import {
  acceleratedRuntime,
  countByGroup,
  createClient,
  summarizePreflight,
  verifyWebhook,
  withCategory,
  type VerifiedWebhook,
} from '@evf/client/node';

const TIME_SCALE = 0.01; // the sandbox runs 100x faster than real time; the client's clock matches it
const log = (line = ''): void => console.log(line);

/** A loopback receiver standing in for the user's webhook endpoint: verifies every delivery. */
async function startReceiver(secret: string): Promise<{ url: string; next: () => Promise<VerifiedWebhook>; close: () => Promise<void> }> {
  const waiting: Array<(v: VerifiedWebhook) => void> = [];
  const readBody = (req: IncomingMessage): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      req.on('data', (c: Buffer) => parts.push(c)).on('end', () => resolve(Buffer.concat(parts))).on('error', reject);
    });
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    try {
      const event = verifyWebhook({ rawBody: raw, headers: req.headers, secrets: secret });
      res.writeHead(204).end();
      waiting.shift()?.(event);
    } catch (error) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: (error as Error).message }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/evf`,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () => new Promise((r) => server.close(() => r())),
  };
}

async function coreWalk(sandbox: Sandbox): Promise<void> {
  const client = createClient({
    apiKey: sandbox.apiKey,
    baseUrl: sandbox.baseUrl,
    runtime: acceleratedRuntime(1 / TIME_SCALE),
    webhookUrl: { allowLoopbackHttp: true },
  });
  const before = await client.getCredits();
  log(`Credits before: ${before.credits}`);

  const single = withCategory(await client.verifySingle({ email: 'valid.anna@acme-corp.com' }));
  log(`\n1. Verify one address: ${single.email} -> ${single.category} (${single.group}); safe to send: ${single.safe_to_send}`);

  const receiver = await startReceiver(sandbox.webhookSecret);
  const list = [
    'valid.anna@acme-corp.com', 'VALID.ANNA@acme-corp.com', 'catchall.bob@bigcorp.io', 'info@bigcorp.io',
    'trap.x@spam-domain.net', 'temp.kim@mailinator.com', 'invalid.joe@acme-corp.com', 'disabled.sue@oldco.com',
    'full.max@acme-corp.com', 'unknown.lee@slowmx.org', 'notverified.ray@acme-corp.com', 'not-an-address@',
    'jane.doe@example-shop.com', 'k.smith@startup.dev',
  ];
  const submitted = await client.submitList({ emails: list, name: 'Demo leads', webhook_url: receiver.url });
  const job = submitted.jobs[0]!;
  log(`\n2. Submit a list of ${list.length}: ${summarizePreflight(submitted.preflight)}`);
  for (const d of submitted.preflight.duplicates) log(`   duplicate removed: ${d.email} (same as row ${d.firstIndex + 1})`);
  for (const m of submitted.preflight.malformed) log(`   malformed, not sent or charged: ${m.email} ${m.reason}`);
  log(`   job ${job.job_id}: ${job.total_emails} addresses, ${submitted.creditsUsed} credits charged`);

  const event = await receiver.next();
  await receiver.close();
  log(`\n3. Signed webhook received and verified: ${event.event} for ${event.jobId} (${event.body.processed_emails} processed)`);

  const rows = [];
  for await (const row of client.results(job.job_id, { pageSize: 5 })) rows.push(withCategory(row));
  log(`\n4. Results (${rows.length} rows, read page by page):`);
  const byCategory = new Map<string, number>();
  for (const r of rows) byCategory.set(r.category, (byCategory.get(r.category) ?? 0) + 1);
  for (const [category, n] of byCategory) log(`   ${category.padEnd(36)} ${n}`);
  const groups = countByGroup(rows);
  log(`   groups: safe_to_send ${groups.safe_to_send}, risky ${groups.risky}, invalid ${groups.invalid}`);

  const after = await client.getCredits();
  const refunded = before.credits - 1 - submitted.creditsUsed - after.credits;
  log(`\nCredits after: ${after.credits} (spent ${before.credits - after.credits}: 1 single + ${submitted.creditsUsed} bulk, ${-refunded} refunded for unknown / not verified)`);
}

/** Each connector walks itself through the same sandbox when its package provides a demo. */
async function platformWalks(sandbox: Sandbox): Promise<void> {
  const ctx = { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, webhookSecret: sandbox.webhookSecret, log };
  for (const [title, path] of [
    ['Zapier app', '../packages/zapier/demo'],
    ['n8n node', '../packages/n8n/demo'],
    ['Make app', '../packages/make/demo'],
  ] as const) {
    let mod: { runDemo?: (c: typeof ctx) => Promise<void> };
    try {
      mod = await import(path);
    } catch {
      continue;
    }
    if (typeof mod.runDemo !== 'function') continue;
    log(`\n=== ${title} ===`);
    await mod.runDemo(ctx);
  }
}

async function main(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, timeScale: TIME_SCALE, allowInsecureWebhooks: true });
  log(`Embedded sandbox at ${sandbox.baseUrl} (time runs ${1 / TIME_SCALE}x faster)`);
  try {
    log('\n=== The shared client ===');
    await coreWalk(sandbox);
    await platformWalks(sandbox);
    log('\nDemo finished.');
  } finally {
    await sandbox.close();
  }
}

main().catch((error) => {
  console.error(`Demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
