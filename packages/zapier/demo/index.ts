/**
 * The Zapier app walked through its main path against a running sandbox, the way Zapier would run it
 * (createAppTester: the same middleware, z object and error handling): connect, verify one address,
 * verify a list and wait for the signed callback, find the job, read its results. Used by `npm run demo`.
 */
import type { Job } from '@evf/client';
import { createAppTester, type Bundle, type ZObject } from 'zapier-platform-core';
import App from '../src/index';
import { startCallbackReceiver } from './callback-receiver';

export interface DemoContext {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  log: (line?: string) => void;
}

type Step = (z: ZObject, bundle: Bundle) => unknown;

/** The parts of the app's outputs this walk prints. */
interface Verified {
  email: string;
  category: string;
  group: string;
  safe_to_send: boolean;
}
interface Waiting {
  job_id: string;
  unique_count: number;
  duplicates_removed: number;
  malformed_removed: number;
}
interface ListResults {
  returned_rows: number;
  counts: Record<'safe_to_send' | 'risky' | 'invalid', number>;
  results: Verified[];
}

function step(fn: unknown, name: string): Step {
  if (typeof fn !== 'function') throw new Error(`the app has no function ${name}`);
  return fn as Step;
}

const LIST = [
  'valid.anna@acme-corp.com',
  'VALID.ANNA@acme-corp.com',
  'info@acme-corp.com',
  'catchall.carl@acme-corp.com',
  'invalid.ivan@acme-corp.com',
  'trap.tom@acme-corp.com',
  'unknown.uma@acme-corp.com',
  'valid.bea@acme-corp.com',
  'not-an-address',
].join('\n');

export async function runDemo({ baseUrl, apiKey, webhookSecret, log }: DemoContext): Promise<void> {
  const previousBaseUrl = process.env.EVF_BASE_URL;
  // What `zapier-platform env:set <version> EVF_BASE_URL=...` does for a deployed app.
  process.env.EVF_BASE_URL = baseUrl;
  // Outside a test runner, core prints a memory line ("ZID: ... RSSMEM: ...") per invocation, meant for
  // Zapier's own Lambda logs; keep it out of the demo's output.
  const consoleLog = console.log;
  console.log = (...args: unknown[]) => {
    if (args[0] !== 'ZID:') consoleLog(...args);
  };
  const receiver = await startCallbackReceiver();
  const tester = createAppTester(App);
  const run = <T>(fn: Step, bundle: Record<string, unknown>): Promise<T> =>
    tester(fn as (z: ZObject, b: Bundle) => unknown, bundle as Parameters<typeof tester>[1]) as Promise<T>;
  const authData = { api_key: apiKey, webhook_secret: webhookSecret };
  const creates = App.creates;
  const searches = App.searches;
  try {
    const account = await run<Record<string, unknown>>(
      step(App.authentication?.test, 'authentication.test'),
      { authData },
    );
    const label = await run<string>(step(App.authentication?.connectionLabel, 'connectionLabel'), {
      authData,
      inputData: account,
    });
    log(`1. Connection tested: "${label}"`);

    const single = await run<Verified>(step(creates.verify_email.operation.perform, 'verify_email'), {
      authData,
      inputData: { email: 'catchall.carl@acme-corp.com' },
    });
    log(
      `2. Verify Email Address: ${single.email} -> ${single.category} (group ${single.group}, safe to send: ${single.safe_to_send})`,
    );

    // Zapier would hand out its own callback URL; the local receiver stands in for it.
    const wait = step(creates.verify_list_and_wait.operation.perform, 'verify_list_and_wait');
    const waiting = await run<Waiting>((z, b) => wait({ ...z, generateCallbackUrl: () => receiver.url }, b), {
      authData,
      inputData: { emails_text: LIST, name: 'Zapier demo list' },
    });
    log(
      `3. Verify List and Wait: job ${waiting.job_id} submitted with ${waiting.unique_count} unique addresses ` +
        `(${waiting.duplicates_removed} duplicate and ${waiting.malformed_removed} malformed removed, not charged); the Zap pauses`,
    );
    const callback = await receiver.next(60_000);
    const resume = step(creates.verify_list_and_wait.operation.performResume, 'performResume');
    const tampered = { ...callback, content: callback.content.replace('"completed"', '"completed" ') };
    const distrusted = await run<ListResults & { message_verified: boolean }>(resume, {
      authData,
      inputData: {},
      outputData: waiting,
      rawRequest: tampered,
    });
    if (distrusted.message_verified) throw new Error('a tampered callback was taken as verified');
    log(
      `   a tampered copy of the callback is not trusted (signature mismatch): the ${distrusted.returned_rows} rows are read with the key instead, and the note says so`,
    );
    const resumed = await run<ListResults>(resume, {
      authData,
      inputData: {},
      outputData: waiting,
      rawRequest: callback,
    });
    log(
      `   signed callback verified; ${resumed.returned_rows} results as line items: ` +
        `${resumed.counts.safe_to_send} safe to send, ${resumed.counts.risky} risky, ${resumed.counts.invalid} invalid`,
    );
    for (const row of resumed.results) log(`     ${row.email.padEnd(30)} ${row.category}`);

    const [job] = await run<Job[]>(step(searches.find_job.operation.perform, 'find_job'), {
      authData,
      inputData: { job_id: waiting.job_id },
    });
    log(
      `4. Find Bulk Job: ${job.job_id} is ${job.status}, ${job.processed}/${job.total_emails} processed; ` +
        `buckets safe ${job.buckets.safe_to_send}, risky ${job.buckets.risky}, invalid ${job.buckets.invalid}`,
    );

    const [results] = await run<ListResults[]>(
      step(searches.find_job_results.operation.perform, 'find_job_results'),
      {
        authData,
        inputData: { job_id: waiting.job_id, group: 'safe_to_send' },
      },
    );
    log(`5. Find Bulk Job Results (Safe to send only): ${results.results.map((r) => r.email).join(', ')}`);
  } finally {
    console.log = consoleLog;
    await receiver.close();
    if (previousBaseUrl === undefined) delete process.env.EVF_BASE_URL;
    else process.env.EVF_BASE_URL = previousBaseUrl;
  }
}
