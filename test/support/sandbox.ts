/**
 * A real sandbox on loopback and a real client over fetch, wired the way the reliability suites need
 * them: fast time, request accounting, and every key and secret registered with the secret guard so a
 * leak of a randomly generated value is caught as surely as a leak of a fixed one.
 */
import { EmailVerificationClient, type ClientOptions, type Job, type Runtime } from '@evf/client';
import { acceleratedRuntime, fetchTransport, nodeRuntime } from '@evf/client/node';
import { startSandbox, type AccountSeed, type Sandbox, type SandboxOptions } from '@evf/sandbox';
import { registerSecret } from './secret-guard';

/** Client clock and sleeps run this much faster; the sandbox's timeScale is its inverse. */
export const SPEED = 100;

export async function startFastSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const sb = await startSandbox({
    port: 0,
    host: '127.0.0.1',
    timeScale: 1 / SPEED,
    rowsPerSecond: 2000,
    queueDelayMs: 200,
    allowInsecureWebhooks: true,
    ...options,
  });
  registerSecret(sb.apiKey);
  registerSecret(sb.webhookSecret);
  for (const account of options.accounts ?? []) {
    const creds = sb.credentials(account.id ?? sb.accountId);
    for (const k of sb.apiKeys(creds.accountId)) registerSecret(k.apiKey);
    registerSecret(creds.webhookSecret);
  }
  // Keys and secrets made later are random too: register them as they are made.
  const addAccount = sb.addAccount.bind(sb);
  sb.addAccount = (seed: AccountSeed) => {
    const creds = addAccount(seed);
    for (const k of sb.apiKeys(creds.accountId)) registerSecret(k.apiKey);
    registerSecret(creds.webhookSecret);
    return creds;
  };
  const rotate = sb.rotateWebhookSecret.bind(sb);
  sb.rotateWebhookSecret = (accountId?: string, secret?: string) => {
    const next = rotate(accountId, secret);
    registerSecret(next);
    return next;
  };
  return sb;
}

export interface ClientHandle {
  client: EmailVerificationClient;
  /** Every attempt the client made, as "METHOD /path" (retries included). */
  attempts: string[];
}

export function clientFor(
  sb: Sandbox,
  apiKey: string = sb.apiKey,
  extra: Partial<ClientOptions> & { runtime?: Runtime } = {},
): ClientHandle {
  const attempts: string[] = [];
  const client = new EmailVerificationClient({
    apiKey,
    baseUrl: sb.baseUrl,
    transport: fetchTransport,
    runtime: acceleratedRuntime(SPEED),
    webhookUrl: { allowLoopbackHttp: true },
    ...extra,
    onRequest: (info) => {
      attempts.push(`${info.method} ${info.path}`);
      extra.onRequest?.(info);
    },
  });
  return { client, attempts };
}

/** A runtime with the real wall clock whose sleeps are recorded and shortened `speed` times. */
export function recordingRuntime(
  speed = SPEED,
  onSleep?: (ms: number) => void,
): Runtime & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    now: nodeRuntime.now,
    random: nodeRuntime.random,
    sleep: (ms, signal) => {
      sleeps.push(ms);
      onSleep?.(ms);
      return nodeRuntime.sleep(ms / speed, signal);
    },
  };
}

/** Requests the sandbox received from index `from` on, as "METHOD /path". */
export function requestsSince(sb: Sandbox, from: number): string[] {
  return sb.requests.slice(from).map((r) => `${r.method} ${r.path}`);
}

export function countBulkPosts(lines: readonly string[]): number {
  return lines.filter((l) => l === 'POST /v1/verify/bulk').length;
}

/** Fresh pro account with plenty of credits, so each test or property run starts from a clean ledger. */
export function freshAccount(
  sb: Sandbox,
  credits = 1_000_000,
): { accountId: string; apiKey: string; webhookSecret: string } {
  return sb.addAccount({ plan: 'pro', credits });
}

export async function eventually<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const OUTCOMES = ['valid', 'invalid', 'catchall', 'info', 'unknown'];

/** `n` sandbox addresses cycling through its outcomes (the local part's first word decides one). */
export function mixedList(n: number, tag: string): string[] {
  return Array.from({ length: n }, (_, i) => `${OUTCOMES[i % OUTCOMES.length]}.${tag}.${i}@example.com`);
}

/** Submits `emails` as one job and waits until it has stopped. */
export async function finishedJob(client: EmailVerificationClient, emails: string[]): Promise<Job> {
  const { job_id } = await client.submitBulk({ emails });
  return eventually(async () => {
    const job = await client.getJob(job_id);
    return job.terminal ? job : undefined;
  }, 30_000);
}
