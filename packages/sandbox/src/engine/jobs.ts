import { randomBytes } from 'node:crypto';
import type { SandboxClock } from '../clock';
import {
  categoryOf,
  isTerminal,
  type Buckets,
  type Job,
  type JobListItem,
  type JobStatus,
  type Priority,
  type ResultRow,
  type Verdicts,
} from '../rules';
import type { Account } from './accounts';
import { isRefundable, outcomeKind, resultRow, verdictOf } from './outcomes';

/**
 * A bulk job. Rows are not stored as objects: a row is the address plus a deterministic answer, so the
 * job keeps only its addresses (in processing order) and `processed`, the count of final answers.
 * The counters are updated in the same synchronous step that moves `processed`, so a reader never sees
 * counters and rows disagree.
 */
export interface JobRecord {
  id: string;
  seq: number;
  accountId: string;
  name: string | null;
  priority: Priority;
  checkSmtp: boolean;
  webhookUrl: string | null;
  emails: string[];
  status: JobStatus;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  error: string | null;
  processed: number;
  verdicts: Verdicts;
  buckets: Buckets;
  validCount: number;
  invalidCount: number;
  /** Processed rows whose answer is unknown or not_verified: refunded at finish. */
  refundable: number;
  /** Credits returned at finish (for the ledger and tests). */
  refunded: number;
  /** Fault injection: stop with `failed` once this many rows are final. */
  failAt: { afterRows: number; error: string } | null;
}

export type JobFinishListener = (job: JobRecord) => void;

export interface JobEngineOptions {
  clock: SandboxClock;
  /** Rows per second of spec time. */
  rowsPerSecond: number;
  /** Spec milliseconds a job waits in `queued` before processing starts. */
  queueDelayMs: number;
  /** Real milliseconds between processing ticks. */
  tickMs?: number;
}

function emptyVerdicts(): Verdicts {
  return { valid: 0, invalid: 0, catch_all: 0, risky: 0, role_based: 0, disposable: 0, unknown: 0 };
}

export class JobEngine {
  private readonly jobs = new Map<string, JobRecord>();
  private seq = 0;
  private readonly finishListeners: JobFinishListener[] = [];
  private readonly tickMs: number;
  /** Failures armed for jobs not created yet, consumed in submission order. */
  private readonly pendingFailures: { afterRows: number; error: string }[] = [];

  constructor(private readonly opts: JobEngineOptions) {
    if (!(opts.rowsPerSecond > 0)) throw new TypeError('rowsPerSecond must be a positive number');
    this.tickMs = opts.tickMs ?? 20;
  }

  onFinish(listener: JobFinishListener): void {
    this.finishListeners.push(listener);
  }

  create(
    account: Account,
    input: {
      emails: string[];
      name: string | null;
      priority: Priority;
      checkSmtp: boolean;
      webhookUrl: string | null;
    },
  ): JobRecord {
    const now = this.opts.clock.now();
    const job: JobRecord = {
      id: `job_${randomBytes(8).toString('hex')}`,
      seq: ++this.seq,
      accountId: account.id,
      name: input.name,
      priority: input.priority,
      checkSmtp: input.checkSmtp,
      webhookUrl: input.webhookUrl,
      emails: input.emails,
      status: 'queued',
      createdAt: now,
      startedAt: null,
      completedAt: null,
      error: null,
      processed: 0,
      verdicts: emptyVerdicts(),
      buckets: { safe_to_send: 0, risky: 0, invalid: 0 },
      validCount: 0,
      invalidCount: 0,
      refundable: 0,
      refunded: 0,
      failAt: this.pendingFailures.shift() ?? null,
    };
    this.jobs.set(job.id, job);
    this.opts.clock.after(this.opts.queueDelayMs, () => this.start(job));
    return job;
  }

  estimatedSeconds(total: number): number {
    return Math.max(1, Math.ceil(this.opts.queueDelayMs / 1000 + total / this.opts.rowsPerSecond));
  }

  /** The job if it belongs to the account; another account's job is indistinguishable from none. */
  get(account: Account, jobId: string): JobRecord | undefined {
    const job = this.jobs.get(jobId);
    return job && job.accountId === account.id ? job : undefined;
  }

  byId(jobId: string): JobRecord | undefined {
    return this.jobs.get(jobId);
  }

  /** Newest first, optionally filtered by status. */
  list(account: Account, filter: { status?: string; limit: number; offset: number }): JobRecord[] {
    const mine = [...this.jobs.values()].filter(
      (j) => j.accountId === account.id && (!filter.status || j.status === filter.status),
    );
    mine.sort((a, b) => b.seq - a.seq);
    return mine.slice(filter.offset, filter.offset + filter.limit);
  }

  /** Arms a failure: for a job id, or for the next job submitted when jobId is undefined. */
  failJob(jobId: string | undefined, afterRows: number, error: string): void {
    if (jobId === undefined) {
      this.pendingFailures.push({ afterRows, error });
      return;
    }
    const job = this.jobs.get(jobId);
    if (!job) throw new RangeError(`no job ${jobId}`);
    if (isTerminal(job.status)) throw new RangeError(`job ${jobId} has already finished (${job.status})`);
    job.failAt = { afterRows, error };
    if (job.status === 'processing' && job.processed >= afterRows) this.finish(job, 'failed', error);
  }

  clearPendingFailures(): void {
    this.pendingFailures.length = 0;
  }

  private start(job: JobRecord): void {
    if (job.status !== 'queued') return;
    job.status = 'processing';
    job.startedAt = this.opts.clock.now();
    const startedReal = performance.now();
    const tick = (): void => {
      if (isTerminal(job.status)) return;
      const elapsedSpecSeconds = (performance.now() - startedReal) / this.opts.clock.timeScale / 1000;
      const due = Math.min(job.emails.length, Math.floor(elapsedSpecSeconds * this.opts.rowsPerSecond) + 1);
      this.advance(job, due);
      if (!isTerminal(job.status)) this.opts.clock.after(this.tickMs / this.opts.clock.timeScale, tick);
    };
    tick();
  }

  /** Makes rows final up to `due`, stopping early at an armed failure. */
  private advance(job: JobRecord, due: number): void {
    const limit = job.failAt ? Math.min(due, job.failAt.afterRows) : due;
    while (job.processed < limit) {
      const email = job.emails[job.processed]!;
      const row = resultRow(email, { checkSmtp: job.checkSmtp });
      job.verdicts[verdictOf(row.details)] += 1;
      job.buckets[categoryOf(row.details).group] += 1;
      if (row.status === 'valid') job.validCount += 1;
      if (row.status === 'invalid') job.invalidCount += 1;
      if (isRefundable(outcomeKind(email))) job.refundable += 1;
      job.processed += 1;
    }
    if (job.failAt && job.processed >= job.failAt.afterRows && job.processed < job.emails.length) {
      this.finish(job, 'failed', job.failAt.error);
    } else if (job.processed >= job.emails.length) {
      this.finish(job, 'completed', null);
    }
  }

  private finish(job: JobRecord, status: 'completed' | 'failed', error: string | null): void {
    job.status = status;
    job.error = error;
    job.completedAt = this.opts.clock.now();
    for (const listener of this.finishListeners) listener(job);
  }

  rows(job: JobRecord, offset: number, count: number): ResultRow[] {
    const end = Math.min(job.processed, offset + count);
    const out: ResultRow[] = [];
    for (let i = offset; i < end; i++) out.push(resultRow(job.emails[i]!, { checkSmtp: job.checkSmtp }));
    return out;
  }

  all(): JobRecord[] {
    return [...this.jobs.values()];
  }
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function progress(job: JobRecord): number {
  const total = job.emails.length;
  return total === 0 ? 100 : Math.round((job.processed / total) * 10000) / 100;
}

export function jobView(job: JobRecord): Job {
  return {
    job_id: job.id,
    status: job.status,
    terminal: isTerminal(job.status),
    total_emails: job.emails.length,
    processed: job.processed,
    progress_percent: progress(job),
    verdicts: { ...job.verdicts },
    buckets: { ...job.buckets },
    created_at: iso(job.createdAt)!,
    started_at: iso(job.startedAt),
    completed_at: iso(job.completedAt),
    error: job.error,
    valid_count: job.validCount,
    invalid_count: job.invalidCount,
  };
}

export function jobListItem(job: JobRecord): JobListItem {
  return {
    job_id: job.id,
    status: job.status,
    total_emails: job.emails.length,
    processed: job.processed,
    progress_percent: progress(job),
    created_at: iso(job.createdAt)!,
  };
}
