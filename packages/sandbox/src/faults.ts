import type { JobEngine } from './engine/jobs';

/** Which requests a fault applies to: a path prefix (after /api) or a regular expression, and a method. */
export interface RequestMatcher {
  /** e.g. '/v1/jobs/' or /\/results$/; matched against the path without the query. Absent = every API path. */
  path?: string | RegExp;
  method?: string;
}

export interface FailNextSpec extends RequestMatcher {
  /** Answer with this status (5xx, 429 or 503 get their wait headers). */
  status?: number;
  /**
   * Drop the connection instead of answering: 'before-response' destroys the socket without a byte,
   * 'mid-body' sends the status line and half the body, then destroys it.
   */
  drop?: 'before-response' | 'mid-body' | true;
  /** How many matching requests to affect (default 1). */
  count?: number;
  /** For 429/503: seconds (spec time) until the caller may retry; default 1. */
  retryAfterSeconds?: number;
  /**
   * When the failure happens: 'before' (default) answers without doing the work; 'after' does the work
   * (e.g. creates the job and charges) and then fails the response, the case where a client cannot
   * know whether its POST took effect.
   */
  when?: 'before' | 'after';
  /**
   * Who answers. 'service' (the default before the work): the service's own JSON error with its wait
   * header. 'gateway' (the default after the work, since the service never refuses what it already did):
   * a proxy's HTML error page with no wait header, as a load balancer sends when the origin is slow.
   */
  from?: 'service' | 'gateway';
}

export interface SlowSpec extends RequestMatcher {
  /** Real milliseconds to hold the response. */
  delayMs: number;
  count?: number;
  /**
   * 'before' (default): hold the request before doing the work; 'after': do the work (create the job,
   * charge), then hold the answer, the case where a caller gives up on a request that already acted.
   */
  when?: 'before' | 'after';
}

interface Armed<T> {
  spec: T;
  remaining: number;
}

/** A maintenance pause of new bulk jobs (503 with Retry-After); the rest of the API keeps answering. */
export interface PauseSpec {
  /** Seconds (spec time) the 503 asks callers to wait; default 30. */
  retryAfterSeconds?: number;
  /** Let this many more jobs in first: the pause begins after them (a stop part way through a list). */
  afterJobs?: number;
  /**
   * Lift the pause once the wait it first named has passed (sandbox clock), so a caller that comes back
   * at Retry-After gets in. Without it the pause holds until resumeNewJobs(), each 503 naming a fresh wait.
   */
  liftsAtRetryAfter?: boolean;
}

interface Pause {
  retryAfterSeconds: number;
  jobsLeft: number;
  lifts: boolean;
  /** Set by the first refusal of a lifting pause: the time it names, and lifts at. */
  until?: number;
}

export interface FaultOptions {
  pauseNewJobs?: boolean | PauseSpec;
  failNext?: FailNextSpec[];
  slow?: SlowSpec[];
  webhookFailures?: number;
  latencyMs?: number;
}

function matches(m: RequestMatcher, method: string, path: string): boolean {
  if (m.method && m.method.toUpperCase() !== method) return false;
  if (m.path === undefined) return true;
  return typeof m.path === 'string' ? path.startsWith(m.path) : m.path.test(path);
}

/**
 * Fault injection, shared by the options, the `sb.faults` handle and the admin HTTP API.
 * Faults fire in the order they were armed; each one counts down and then disarms.
 */
export class FaultController {
  private failures: Armed<FailNextSpec>[] = [];
  private slows: Armed<SlowSpec>[] = [];
  private paused: Pause | null = null;
  private webhookFailuresLeft = 0;
  private latency = 0;

  constructor(
    private readonly jobs: JobEngine,
    initial: FaultOptions = {},
  ) {
    if (initial.pauseNewJobs) this.pauseNewJobs(initial.pauseNewJobs === true ? {} : initial.pauseNewJobs);
    for (const f of initial.failNext ?? []) this.failNext(f);
    for (const s of initial.slow ?? []) this.slow(s);
    if (initial.webhookFailures) this.webhookFailures(initial.webhookFailures);
    if (initial.latencyMs) this.setLatency(initial.latencyMs);
  }

  /** Makes a job fail once `afterRows` rows are final; with no jobId, arms the next job submitted. */
  failJob(jobId?: string, opts: { afterRows?: number; error?: string } = {}): void {
    const afterRows = opts.afterRows ?? 0;
    if (!Number.isSafeInteger(afterRows) || afterRows < 0)
      throw new RangeError('afterRows must be a whole number >= 0');
    this.jobs.failJob(
      jobId,
      afterRows,
      opts.error ?? 'Verification stopped: the verification cluster became unavailable.',
    );
  }

  pauseNewJobs(opts: PauseSpec = {}): void {
    const afterJobs = opts.afterJobs ?? 0;
    if (!Number.isSafeInteger(afterJobs) || afterJobs < 0)
      throw new RangeError('afterJobs must be a whole number >= 0');
    this.paused = {
      retryAfterSeconds: opts.retryAfterSeconds ?? 30,
      jobsLeft: afterJobs,
      lifts: opts.liftsAtRetryAfter === true,
    };
  }

  resumeNewJobs(): void {
    this.paused = null;
  }

  /** Whether a pause is armed (it may still be letting its first jobs in). */
  get newJobsPaused(): { retryAfterSeconds: number } | null {
    return this.paused && { retryAfterSeconds: this.paused.retryAfterSeconds };
  }

  /**
   * The time a bulk submission arriving at `now` is told to come back, or null when it may go in.
   * `wait` turns the pause's spec seconds into the clock's milliseconds.
   */
  refuseNewJobUntil(now: number, wait: (specMs: number) => number): number | null {
    const p = this.paused;
    if (!p || p.jobsLeft > 0) return null;
    if (!p.lifts) return now + wait(p.retryAfterSeconds * 1000);
    p.until ??= now + wait(p.retryAfterSeconds * 1000);
    if (now < p.until) return p.until;
    this.paused = null;
    return null;
  }

  /** Counts a job in against a pause that begins after some jobs. */
  jobCreated(): void {
    if (this.paused && this.paused.jobsLeft > 0) this.paused.jobsLeft -= 1;
  }

  failNext(spec: FailNextSpec): void {
    if (spec.status === undefined && !spec.drop) throw new TypeError('failNext needs a status or drop');
    if (
      spec.status !== undefined &&
      !(Number.isInteger(spec.status) && spec.status >= 400 && spec.status <= 599)
    ) {
      throw new RangeError('failNext status must be an HTTP error status (400-599)');
    }
    const count = spec.count ?? 1;
    if (!Number.isSafeInteger(count) || count < 1) throw new RangeError('count must be a whole number >= 1');
    this.failures.push({ spec, remaining: count });
  }

  slow(spec: SlowSpec): void {
    if (!(spec.delayMs >= 0)) throw new RangeError('slow needs delayMs >= 0');
    this.slows.push({ spec, remaining: spec.count ?? Number.POSITIVE_INFINITY });
  }

  /** The next N webhook delivery attempts fail as if the receiver were down (nothing is sent). */
  webhookFailures(n: number): void {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError('webhookFailures needs a whole number >= 0');
    this.webhookFailuresLeft = n;
  }

  /** Extra real milliseconds added to every API response. */
  setLatency(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('latency must be >= 0 ms');
    this.latency = ms;
  }

  get latencyMs(): number {
    return this.latency;
  }

  /** Consumes one armed failure matching the request, if any. */
  takeFailure(method: string, path: string, when: 'before' | 'after'): FailNextSpec | undefined {
    const armed = this.failures.find(
      (f) => (f.spec.when ?? 'before') === when && matches(f.spec, method, path),
    );
    if (!armed) return undefined;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.failures = this.failures.filter((f) => f !== armed);
    return armed.spec;
  }

  takeDelay(method: string, path: string, when: 'before' | 'after' = 'before'): number {
    const armed = this.slows.find((s) => (s.spec.when ?? 'before') === when && matches(s.spec, method, path));
    if (!armed) return 0;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.slows = this.slows.filter((s) => s !== armed);
    return armed.spec.delayMs;
  }

  takeWebhookFailure(): boolean {
    if (this.webhookFailuresLeft <= 0) return false;
    this.webhookFailuresLeft -= 1;
    return true;
  }

  clear(): void {
    this.failures = [];
    this.slows = [];
    this.paused = null;
    this.webhookFailuresLeft = 0;
    this.latency = 0;
    this.jobs.clearPendingFailures();
  }

  snapshot(): Record<string, unknown> {
    return {
      new_jobs_paused: this.paused !== null,
      fail_next: this.failures.map((f) => ({
        ...f.spec,
        path: String(f.spec.path ?? ''),
        remaining: f.remaining,
      })),
      slow: this.slows.map((s) => ({
        ...s.spec,
        path: String(s.spec.path ?? ''),
        remaining: Number.isFinite(s.remaining) ? s.remaining : null,
      })),
      webhook_failures: this.webhookFailuresLeft,
      latency_ms: this.latency,
    };
  }
}
