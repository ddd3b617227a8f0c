import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import type { SandboxClock } from './clock';
import type { AccountStore } from './engine/accounts';
import type { JobRecord } from './engine/jobs';
import type { FaultController } from './faults';
import {
  hostOf,
  isIp,
  isLoopbackHost,
  LIMITS,
  resolvedAddressViolations,
  signedDelivery,
  webhookUrlViolations,
  type WebhookBody,
} from './rules';

/** Resolves a host name to its IP addresses; injectable so tests can make a host turn private. */
export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * Real milliseconds: the least time a receiver gets to answer, whatever the time scale. A round trip
 * cannot be scaled down, and a receiver in the same process as the sandbox (tests, the demo) shares its
 * event loop: on a loaded machine a stall of a few hundred milliseconds must not turn an answer into a
 * timeout and a second delivery.
 */
const ACK_TIMEOUT_FLOOR_MS = 2_000;

export type DeliveryOutcome =
  | 'acknowledged'
  | 'rejected'
  | 'timeout'
  | 'network_error'
  | 'refused_url'
  | 'injected_failure';

/** One delivery attempt, as logged for tests (no secrets, no signature, no URL path). */
export interface DeliveryAttempt {
  jobId: string;
  event: WebhookBody['event'];
  attempt: number;
  at: string;
  outcome: DeliveryOutcome;
  status?: number;
  detail?: string;
}

export interface WebhookDispatcherOptions {
  clock: SandboxClock;
  accounts: AccountStore;
  faults: FaultController;
  allowInsecureWebhooks: boolean;
  resolver: Resolver;
  /** Spec milliseconds; defaults are the spec's 2 s, 10 s, 60 s, 300 s and 10 s. */
  retryWaitsMs?: readonly number[];
  ackTimeoutMs?: number;
}

export function webhookBody(job: JobRecord): WebhookBody {
  const failed = job.status === 'failed';
  return {
    event: failed ? 'job.failed' : 'job.completed',
    job_id: job.id,
    status: failed ? 'failed' : 'completed',
    total_emails: job.emails.length,
    processed_emails: job.processed,
    verdicts: { ...job.verdicts },
    created_at: new Date(job.createdAt).toISOString(),
    completed_at: new Date(job.completedAt ?? job.createdAt).toISOString(),
    results_url: `/v1/jobs/${job.id}/results`,
    ...(failed ? { error: job.error ?? 'The job failed.' } : {}),
  };
}

/**
 * Sends the one completion message of each job: signed with the account's current secret at each
 * attempt (rotation takes effect at once), the URL re-checked and its host re-resolved before every
 * attempt, and the connection pinned to the address that passed the check so DNS cannot change between
 * the check and the connection.
 */
export class WebhookDispatcher {
  readonly attempts: DeliveryAttempt[] = [];
  private readonly inFlight = new Set<http.ClientRequest>();
  private readonly pending = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly opts: WebhookDispatcherOptions) {}

  dispatch(job: JobRecord): void {
    if (!job.webhookUrl || this.closed) return;
    const p = this.deliver(job, job.webhookUrl).finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Resolves when every delivery under way has finished (acknowledged or given up). */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  private async deliver(job: JobRecord, url: string): Promise<void> {
    const body = webhookBody(job);
    const waits = this.opts.retryWaitsMs ?? LIMITS.webhookRetryWaitsSeconds.map((s) => s * 1000);
    const attemptsTotal = waits.length + 1;
    for (let attempt = 1; attempt <= attemptsTotal && !this.closed; attempt++) {
      const result = await this.attempt(job, url, body);
      this.attempts.push({
        jobId: job.id,
        event: body.event,
        attempt,
        at: this.opts.clock.nowIso(),
        ...result,
      });
      if (result.outcome === 'acknowledged') return;
      if (attempt < attemptsTotal) await this.opts.clock.sleep(waits[attempt - 1]!);
    }
  }

  private async attempt(
    job: JobRecord,
    url: string,
    body: WebhookBody,
  ): Promise<Omit<DeliveryAttempt, 'jobId' | 'event' | 'attempt' | 'at'>> {
    const allowLoopbackHttp = this.opts.allowInsecureWebhooks;
    const violations = webhookUrlViolations(url, { allowLoopbackHttp });
    if (violations.length) return { outcome: 'refused_url', detail: violations.map((v) => v.rule).join(',') };
    const target = new URL(url);
    const host = hostOf(target);
    let address: string;
    try {
      address = await this.resolveChecked(host, allowLoopbackHttp);
    } catch (err) {
      return { outcome: 'refused_url', detail: (err as Error).message };
    }
    if (this.opts.faults.takeWebhookFailure()) return { outcome: 'injected_failure' };
    const account = this.opts.accounts.get(job.accountId);
    if (!account) return { outcome: 'refused_url', detail: 'account no longer exists' };
    const timestamp = Math.floor(this.opts.clock.now() / 1000);
    const { rawBody, headers } = signedDelivery(body, account.webhookSecret, timestamp);
    return this.post(target, address, rawBody, headers);
  }

  /** Returns the one address to connect to, or throws naming the rule the host breaks now. */
  private async resolveChecked(host: string, allowLoopbackHttp: boolean): Promise<string> {
    let addresses: string[];
    if (isIp(host)) addresses = [host];
    else {
      try {
        addresses = await this.opts.resolver(host);
      } catch {
        addresses = [];
      }
    }
    if (allowLoopbackHttp && isLoopbackHost(host)) {
      // Local development only: a loopback receiver must really be on loopback.
      const loop = addresses.find(isLoopbackHost);
      if (!loop || !addresses.every(isLoopbackHost)) throw new Error('resolves_public');
      return loop;
    }
    const violations = resolvedAddressViolations(host, addresses);
    if (violations.length) throw new Error(violations[0]!.rule);
    return addresses[0]!;
  }

  private post(
    target: URL,
    address: string,
    rawBody: string,
    headers: Record<string, string>,
  ): Promise<Omit<DeliveryAttempt, 'jobId' | 'event' | 'attempt' | 'at'>> {
    const family = address.includes(':') ? 6 : 4;
    const pinned: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all)
        (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
          { address, family },
        ]);
      else callback(null, address, family);
    };
    // A real HTTP round trip cannot be scaled down, so the scaled 10 s never drops below a floor.
    const timeoutMs = Math.max(
      ACK_TIMEOUT_FLOOR_MS,
      this.opts.clock.scaled(this.opts.ackTimeoutMs ?? LIMITS.webhookAckTimeoutMs),
    );
    const transport = target.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      const done = (r: Omit<DeliveryAttempt, 'jobId' | 'event' | 'attempt' | 'at'>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inFlight.delete(req);
        resolve(r);
      };
      const req = transport.request(
        target,
        {
          method: 'POST',
          lookup: pinned,
          headers: { ...headers, 'Content-Length': String(Buffer.byteLength(rawBody)) },
          agent: false,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          res.resume();
          // Redirects are answers like any other non-2xx: never followed.
          res.on('end', () =>
            done({ outcome: status >= 200 && status < 300 ? 'acknowledged' : 'rejected', status }),
          );
          res.on('error', () => done({ outcome: 'network_error', status }));
        },
      );
      const timer = setTimeout(() => {
        done({ outcome: 'timeout' });
        req.destroy();
      }, timeoutMs);
      this.inFlight.add(req);
      req.on('error', (err: NodeJS.ErrnoException) =>
        done({ outcome: 'network_error', detail: err.code ?? 'error' }),
      );
      req.end(rawBody);
    });
  }

  close(): void {
    this.closed = true;
    for (const req of this.inFlight) req.destroy();
    this.inFlight.clear();
  }
}
