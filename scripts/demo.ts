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
async function startReceiver(
  secret: string,
): Promise<{ url: string; next: () => Promise<VerifiedWebhook>; close: () => Promise<void> }> {
  const waiting: Array<(v: VerifiedWebhook) => void> = [];
  const readBody = (req: IncomingMessage): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      req
        .on('data', (c: Buffer) => parts.push(c))
        .on('end', () => resolve(Buffer.concat(parts)))
        .on('error', reject);
    });
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    try {
      const event = verifyWebhook({ rawBody: raw, headers: req.headers, secrets: secret });
      res.writeHead(204).end();
      waiting.shift()?.(event);
    } catch (error) {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: (error as Error).message }));
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
  log(
    `\n1. Verify one address: ${single.email} -> ${single.category} (${single.group}); safe to send: ${single.safe_to_send}`,
  );

  const receiver = await startReceiver(sandbox.webhookSecret);
  const list = [
    'valid.anna@acme-corp.com',
    'VALID.ANNA@acme-corp.com',
    'catchall.bob@bigcorp.io',
    'info@bigcorp.io',
    'trap.x@spam-domain.net',
    'temp.kim@mailinator.com',
    'invalid.joe@acme-corp.com',
    'disabled.sue@oldco.com',
    'full.max@acme-corp.com',
    'unknown.lee@slowmx.org',
    'notverified.ray@acme-corp.com',
    'not-an-address@',
    'jane.doe@example-shop.com',
    'k.smith@startup.dev',
  ];
  const submitted = await client.submitList({ emails: list, name: 'Demo leads', webhook_url: receiver.url });
  const job = submitted.jobs[0]!;
  log(`\n2. Submit a list of ${list.length}: ${summarizePreflight(submitted.preflight)}`);
  for (const d of submitted.preflight.duplicates)
    log(`   duplicate removed: ${d.email} (same as row ${d.firstIndex + 1})`);
  for (const m of submitted.preflight.malformed)
    log(`   malformed, not sent or charged: ${m.email} ${m.reason}`);
  log(`   job ${job.job_id}: ${job.total_emails} addresses, ${submitted.creditsUsed} credits charged`);

  const event = await receiver.next();
  await receiver.close();
  log(
    `\n3. Signed webhook received and verified: ${event.event} for ${event.jobId} (${event.body.processed_emails} processed)`,
  );

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
  log(
    `\nCredits after: ${after.credits} (spent ${before.credits - after.credits}: 1 single + ${submitted.creditsUsed} bulk, ${-refunded} refunded for unknown / not verified)`,
  );
}

/** Credits the account holds now; reading them is free. */
async function creditsNow(sandbox: Sandbox): Promise<number> {
  const client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
  return (await client.getCredits()).credits;
}

/** One line for what a section cost, read from the account before and after (refunds included). */
function costLine(before: number, after: number): string {
  const spent = before - after;
  return `Credits used by this section: ${spent} (${after} left)`;
}

/**
 * The Make app through the repository's local model of Make (packages/make/test/harness/make-runtime.ts):
 * Make has no local runtime for custom apps, so this harness renders the app's own files and applies
 * Make's documented rules. It is not Make itself.
 */
async function makeWalk(sandbox: Sandbox): Promise<void> {
  const make = await import('../packages/make/test/harness/make-runtime');
  const connection = { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl };
  const tested = await make.testConnection(connection);
  log(`1. Connection test: accepted${tested.metadata ? ` (${tested.metadata})` : ''}`);
  const single = (await make.runModule('verifyEmail', { email: 'valid.mia@acme-corp.com' }, connection))
    .bundles[0] as {
    email: string;
    category: string;
    group: string;
  };
  log(`2. Verify an email address: ${single.email} -> ${single.category} (${single.group})`);
  const emails = [
    'valid.nora@acme-corp.com',
    'catchall.ole@bigcorp.io',
    'invalid.pia@acme-corp.com',
    'unknown.quinn@slowmx.org',
  ];
  const submitted = (
    await make.runModule('submitBulk', { input_as: 'array', emails, name: 'Make demo' }, connection)
  ).bundles[0] as {
    job_id: string;
  };
  log(`3. Submit a bulk verification: job ${submitted.job_id} with ${emails.length} addresses`);
  let job: { terminal: boolean; status: string } | undefined;
  // Check a bulk job waits up to 20 seconds per run; a scenario runs it again until the job is done.
  for (let run = 0; run < 20 && !job?.terminal; run++)
    job = (
      await make.runModule('waitForJob', { job_id: submitted.job_id }, connection, { repeatDelayMs: 100 })
    ).bundles[0] as typeof job;
  log(`4. Check a bulk job: ${job?.status}`);
  const rows = (await make.runModule('listResults', { job_id: submitted.job_id, start_page: 1 }, connection))
    .bundles as {
    email: string;
    group: string;
  }[];
  log(`5. List bulk job results: ${rows.map((r) => `${r.email} ${r.group}`).join(', ')}`);
}

/** Each connector walks itself through the same sandbox; a walk that cannot run says why in one line. */
async function platformWalks(sandbox: Sandbox): Promise<void> {
  const ctx = { baseUrl: sandbox.baseUrl, apiKey: sandbox.apiKey, webhookSecret: sandbox.webhookSecret, log };
  const walks: [string, () => Promise<void>][] = [
    [
      'Zapier app (run by zapier-platform-core, as Zapier runs it)',
      async () => (await import('../packages/zapier/demo')).runDemo(ctx),
    ],
    [
      'n8n node (inside a real n8n, when one is installed)',
      async () => (await import('../packages/n8n/demo')).runDemo(ctx),
    ],
    [
      'Make app (through the local model of Make in this repository, not Make itself)',
      () => makeWalk(sandbox),
    ],
  ];
  const failed: string[] = [];
  for (const [title, walk] of walks) {
    log(`\n=== ${title} ===`);
    const before = await creditsNow(sandbox);
    try {
      await walk();
    } catch (error) {
      // A walk skips itself (with the reason) only for a missing prerequisite; anything thrown is a
      // defect, so the demo goes on to the other connectors and then fails.
      log(`This section failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      failed.push(title.split(' (')[0]!);
      continue;
    }
    log(costLine(before, await creditsNow(sandbox)));
  }
  if (failed.length) throw new Error(`${failed.join(', ')}: see the section above.`);
}

async function main(): Promise<void> {
  const sandbox = await startSandbox({ port: 0, timeScale: TIME_SCALE, allowInsecureWebhooks: true });
  log(
    `Embedded sandbox at ${sandbox.baseUrl} (time runs ${1 / TIME_SCALE}x faster; its credits are not real)`,
  );
  try {
    log('\n=== The shared client ===');
    const before = await creditsNow(sandbox);
    await coreWalk(sandbox);
    log(costLine(before, await creditsNow(sandbox)));
    await platformWalks(sandbox);
    log('\nDemo finished. Where to go next:');
    log('- Use a connector in your own account: README.md, "Use it in your account" (Zapier, n8n, Make).');
    log('- Try your own workflows against the local sandbox: npm start (prints its address and a demo key).');
    log('- Run every test: npm test.');
  } finally {
    await sandbox.close();
  }
}

main().catch((error) => {
  console.error(`Demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
