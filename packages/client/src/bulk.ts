/**
 * The one path a list takes to the service: plan once (pre-flight, allowance, chunks), then post the
 * already-checked chunks. Nothing here re-scans an address, and nothing here imports the client.
 */
import type { HttpCore, RequestOptions } from './core/http';
import {
  AllowanceExceededError,
  EvfError,
  InputError,
  PartialSubmissionError,
  RateLimitError,
  SubmissionUncertainError,
  TimeBudgetSpentError,
  UnprocessableError,
  plural,
  stopOf,
  type StoppedBy,
  type UncertainChunk,
} from './errors';
import { allowanceJobSize, SMALLEST_DAILY_ALLOWANCE, type ApiAllowance } from './allowance';
import { LIMITS } from './limits';
import { preflightEmails, type MalformedAddress, type PreflightReport } from './validation/preflight';
import type { Account, BulkSubmission, Priority, SubmitBulkParams } from './types';

/** What goes on the wire with each job of a list (the wire's own names). */
export interface SubmitListParams {
  /** An array (items may hold several addresses) or pasted text (one per line, or comma separated). */
  emails: string | readonly unknown[];
  name?: string;
  webhook_url?: string;
  priority?: Priority;
  check_smtp?: boolean;
}

/** How the client splits and sends a list (the client's own options, camelCase). */
export interface SubmitListOptions extends RequestOptions {
  /** Jobs of at most this many addresses (default and maximum 50,000; lowered to the allowance). */
  maxPerJob?: number;
  /**
   * The account's API allowance. Default `'account'`: read the plan from GET /v1/account (free) when the
   * list is larger than the smallest daily allowance (10,000), or always with `sendWhatFits`, and size
   * jobs to the plan's window. `null`: don't consider it.
   */
  allowance?: ApiAllowance | 'account' | null;
  /**
   * Refuse, before anything is sent or read, a list that needs more jobs than this (e.g. 1 where a
   * platform can wait for one job only): InputError rule `max_jobs`, or AllowanceExceededError when it is
   * the allowance that makes the jobs that small.
   */
  maxJobs?: number;
  /**
   * A list with no valid address at all becomes a plan with no jobs (its pre-flight report says why each
   * item was skipped) instead of InputError `min_items`: for a flow that writes every row's outcome back
   * and must end cleanly when a batch holds only malformed rows. Nothing is sent or charged either way.
   */
  allowNothingToSend?: boolean;
  /**
   * Send only what fits now (the plan's allowance less what the account used today, where the plan is
   * known; else until the service answers 429), and return the rest as `unsent` with the time it can go
   * (`unsentAfter`) instead of throwing PartialSubmissionError for a 429, a 503 or the time budget.
   */
  sendWhatFits?: boolean;
  /**
   * The account, already read by the caller (e.g. at the same time as other reads, so a slow service
   * costs one answer's time, not two): planList uses it instead of reading GET /v1/account itself.
   * `null`: the caller tried and could not read it (planList does not try again).
   */
  account?: Account | null;
}

export interface SubmissionPlan {
  preflight: PreflightReport;
  /** The unique addresses cut into jobs: what will be posted, in order. */
  chunks: string[][];
  /** The largest job, after the allowance. */
  jobSize: number;
  /** The job size asked for, before the allowance. */
  maxPerJob: number;
  /** The allowance jobs are sized to; undefined when it is not known (then a 429 teaches it). */
  allowance: ApiAllowance | undefined;
  /** The job fields, checked, sent with every job (set by the client's planList). */
  fields: JobFields;
  /**
   * Addresses the allowance takes now, by the plan and the account's credits used today, and how long
   * after the last job the binding window is wholly free: set by planList with `sendWhatFits` and a known plan.
   */
  fitsNow?: { left: number; freeAfterMs: number };
  /** False when the caller said not to consider the allowance (`allowance: null`). */
  learnsAllowance?: boolean;
  /** The caller's cap on the number of jobs (SubmitListOptions.maxJobs). */
  maxJobs?: number;
}

export interface ListSubmission {
  jobs: BulkSubmission[];
  preflight: PreflightReport;
  /** Addresses the service refused although pre-flight accepted them (found by a 422), not charged. */
  rejectedByService: MalformedAddress[];
  /** Credits charged at submission, summed over the jobs. */
  creditsUsed: number;
  /** The balance after the last submission. */
  creditsRemaining: number | undefined;
  /**
   * Addresses never sent, in list order: the time budget ran out, or (with `sendWhatFits`) the allowance
   * or paused new jobs stopped the list (`stoppedBy` says which), or a 429 showed the jobs too large for an
   * allowance the account does not show and the smaller jobs reached `maxJobs` (no `stoppedBy`: the next
   * run sends the next job). Empty when the whole list was posted. Sending exactly these later cannot
   * charge an address twice.
   */
  unsent: string[];
  /** When `unsent` can go (ISO 8601): the allowance's reset or the end of the pause. Absent: at once. */
  unsentAfter?: string;
  /** What stopped the list part way; absent when the whole list was posted. */
  stoppedBy?: StoppedBy;
  /** Addresses the plan's allowance still takes today after this run, where the plan is known. */
  leftToday?: number;
  /** A stop part way in words for the user: what was sent, what was not, why, and when the rest can go. */
  note?: string;
}

/** What postPlan takes besides the request options. */
export interface PostOptions extends RequestOptions {
  sendWhatFits?: boolean;
}

/**
 * Refuses a list with no valid address, before any request: a step that reads the account or earlier
 * jobs first calls this as soon as it has the list, so bad input sends nothing at all.
 */
export function assertSomethingToSend(preflight: Pick<PreflightReport, 'unique' | 'malformed'>): void {
  if (preflight.unique.length > 0) return;
  const detail = preflight.malformed.length
    ? ` All ${preflight.malformed.length} given were malformed, e.g. "${preflight.malformed[0]!.email.slice(0, 100)}" ${preflight.malformed[0]!.reason}.`
    : '';
  throw new InputError(
    'emails',
    'min_items',
    `The list holds no valid email address to verify.${detail} Nothing was sent or charged.`,
  );
}

/**
 * Everything that can be decided before a request: malformed and duplicate addresses out, and the jobs
 * the rest becomes. Adapters show this to the user (how many jobs, what was skipped) without posting.
 */
export function planSubmission(
  emails: SubmitListParams['emails'],
  options: { maxPerJob?: number; allowance?: ApiAllowance; allowNothingToSend?: boolean } = {},
): SubmissionPlan {
  if (emails === undefined || emails === null) {
    throw new InputError(
      'emails',
      'required',
      'Give the addresses to verify: a list, or text with one address per line.',
    );
  }
  if (typeof emails !== 'string' && !Array.isArray(emails)) {
    throw new InputError('emails', 'type', 'The addresses must be a list or text with one address per line.');
  }
  const asked = options.maxPerJob ?? LIMITS.maxEmailsPerJob;
  if (!Number.isInteger(asked) || asked < 1 || asked > LIMITS.maxEmailsPerJob) {
    throw new InputError(
      'maxPerJob',
      'range',
      `The job size must be a whole number from 1 to ${LIMITS.maxEmailsPerJob}.`,
    );
  }
  const preflight = preflightEmails(emails, { maxPerJob: asked });
  if (!options.allowNothingToSend) assertSomethingToSend(preflight);
  return sizePlan(
    {
      preflight,
      chunks: preflight.chunks,
      jobSize: asked,
      maxPerJob: asked,
      allowance: undefined,
      fields: {},
    },
    options.allowance,
  );
}

/**
 * Refuses a plan with more jobs than `maxJobs` (see SubmitListOptions.maxJobs): AllowanceExceededError
 * when the allowance is what made the jobs that small, so the words say so and no retry is suggested.
 */
export function assertMaxJobs(plan: SubmissionPlan, maxJobs: number | undefined): void {
  if (maxJobs === undefined || plan.chunks.length <= maxJobs) return;
  const unique = plan.preflight.unique.length;
  if (plan.jobSize < plan.maxPerJob && unique <= maxJobs * plan.maxPerJob) {
    throw new AllowanceExceededError(
      Math.ceil(unique / maxJobs),
      plan.allowance?.perDay ?? undefined,
      plan.allowance?.plan,
    );
  }
  throw new InputError(
    'emails',
    'max_jobs',
    `The list has ${unique} unique addresses: that is ${plan.chunks.length} jobs of up to ${plan.jobSize}, and at most ${maxJobs} can be sent here. Nothing was sent or charged.`,
  );
}

/** The same plan with jobs sized to an allowance learnt later (no address is scanned again). */
export function sizePlan(plan: SubmissionPlan, allowance: ApiAllowance | undefined): SubmissionPlan {
  const jobSize = allowanceJobSize(plan.maxPerJob, allowance);
  if (jobSize === plan.jobSize && allowance === plan.allowance) return plan;
  const chunks = cut(plan.preflight.unique, jobSize);
  return { ...plan, preflight: { ...plan.preflight, chunks }, chunks, jobSize, allowance };
}

function cut(list: readonly string[], size: number): string[][] {
  const chunks: string[][] = [];
  for (let i = 0; i < list.length; i += size) chunks.push(list.slice(i, i + size));
  return chunks;
}

/** What goes with every job of a list. */
export type JobFields = Omit<SubmitBulkParams, 'emails'>;

/** One POST /v1/verify/bulk of an already-checked list. Never resent once it may have been accepted. */
export async function postBulk(
  http: HttpCore,
  emails: string[],
  fields: JobFields,
  opts: RequestOptions = {},
): Promise<BulkSubmission> {
  const body: Record<string, unknown> = { emails };
  for (const key of ['name', 'webhook_url', 'priority', 'check_smtp'] as const) {
    if (fields[key] !== undefined) body[key] = fields[key];
  }
  const unique = new Set(emails.map((e) => e.toLowerCase())).size;
  const { data } = await http.call<BulkSubmission>({
    method: 'POST',
    path: '/v1/verify/bulk',
    body,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    deadline: opts.deadline,
    credits: unique,
    unprocessableChargesNothing: true,
    onUncertain: (cause, sentAt) =>
      new SubmissionUncertainError(cause, {
        sentAt: new Date(sentAt).toISOString(),
        addressCount: unique,
        jobName: fields.name,
      }),
  });
  return data;
}

/**
 * Posts a plan's chunks without losing the list to one bad row or charging it twice. A 422 that the
 * pre-flight did not foresee (the service's syntax rules are not published in full) is resolved by
 * dropping the addresses it names, or, when it names none, by halving until the offenders are alone: a
 * 422 charges nothing, so this costs requests, never credits. A 429 on a job larger than the smallest
 * daily allowance, where the allowance is not known, shows the jobs are too big: the rest goes in jobs
 * of 10,000 (a 429 charges nothing, so the refused job is safely sent again smaller). Any other stop part
 * way says which jobs were accepted, which chunk may have been, and which addresses were never sent:
 * returned with `sendWhatFits` (429, 503, time budget), thrown as PartialSubmissionError otherwise.
 */
export async function postPlan(
  http: HttpCore,
  plan: SubmissionPlan,
  opts: PostOptions = {},
): Promise<ListSubmission> {
  const { fields } = plan;
  const jobs: BulkSubmission[] = [];
  const rejectedByService: MalformedAddress[] = [];
  const queue: string[][] = plan.chunks.map((c) => c);
  const planned = plan.chunks.length;
  const nameFor = (i: number, parts: number): string | undefined => {
    if (!fields.name) return undefined;
    if (parts === 1) return fields.name;
    const suffix = ` (part ${i + 1} of ${parts})`;
    return fields.name.slice(0, LIMITS.maxNameLength - suffix.length) + suffix;
  };
  const stopped = (stop: { stoppedBy: StoppedBy; unsentAfter?: string }): ListSubmission => {
    const out = submission(plan, jobs, rejectedByService, queue.flat());
    // An unlimited plan has no "left today": the field is left out rather than read as 0.
    const leftToday = plan.fitsNow && Number.isFinite(fits) ? Math.max(0, fits) : undefined;
    return {
      ...out,
      ...stop,
      ...(leftToday === undefined ? {} : { leftToday }),
      note: stopNote(plan, out, stop, leftToday),
    };
  };
  let fits = opts.sendWhatFits && plan.fitsNow ? plan.fitsNow.left : Number.POSITIVE_INFINITY;
  let shrunk = false;
  let probed = false;
  while (queue.length) {
    // Only after a shrink can the jobs outnumber the caller's cap (planning refuses a plan that does):
    // the run ends at the cap, and the rest is unsent with no stop, since nothing refused it.
    if (plan.maxJobs !== undefined && jobs.length >= plan.maxJobs) break;
    if (fits <= 0 && jobs.length === 0 && !probed) {
      // Nothing fits by the account's figures: one POST asks the service when it will (a 429 is free,
      // and carries the exact time); if it is taken instead, the figures were stale and the 429 decides.
      probed = true;
      fits = Number.POSITIVE_INFINITY;
    }
    if (fits <= 0) {
      const last = Date.parse(jobs[jobs.length - 1]?.created_at ?? '');
      const from = Math.max(http.runtime.now(), Number.isNaN(last) ? 0 : last);
      // A second's margin: the window counts the job's own time, which is not before `from`.
      const unsentAfter = new Date(from + plan.fitsNow!.freeAfterMs + 1000).toISOString();
      return stopped({ stoppedBy: 'allowance', unsentAfter });
    }
    if (queue[0]!.length > fits) {
      const head = queue.shift()!;
      queue.unshift(head.slice(0, fits), head.slice(fits));
    }
    const sending = queue[0]!;
    const attempt: string[][] = [sending];
    const before = jobs.length;
    try {
      await postResolving422(
        http,
        attempt,
        { ...fields, name: nameFor(jobs.length, Math.max(planned, jobs.length + queue.length)) },
        opts,
        jobs,
        rejectedByService,
      );
      queue.shift();
      fits -= jobs.slice(before).reduce((n, j) => n + (j.total_emails ?? 0), 0);
    } catch (error) {
      // What was placed before the stop is done; what is left of `sending` heads the queue again.
      queue.shift();
      if (attempt.length) queue.unshift(...attempt);
      if (error instanceof BudgetStop) {
        // Out of time before a POST left: nothing in doubt, the rest is reported, not lost or resent.
        if (jobs.length === 0 && !opts.sendWhatFits) throw error.spent;
        return stopped({ stoppedBy: 'time_budget' });
      }
      if (!(error instanceof EvfError)) throw error;
      if (
        error instanceof RateLimitError &&
        queue[0]!.length > SMALLEST_DAILY_ALLOWANCE &&
        !plan.allowance &&
        plan.learnsAllowance !== false &&
        !shrunk
      ) {
        const refused = queue[0]!.length;
        const smaller = cut(queue.flat(), SMALLEST_DAILY_ALLOWANCE);
        const fitsMaxJobs = plan.maxJobs === undefined || jobs.length + smaller.length <= plan.maxJobs;
        // With sendWhatFits the caller takes what goes as an answer: the smaller jobs go up to its cap,
        // the rest comes back unsent for its next run, instead of refusing a list that can go in parts.
        if (fitsMaxJobs || opts.sendWhatFits) {
          shrunk = true;
          queue.splice(0, queue.length, ...smaller);
          continue;
        }
        // Jobs already accepted must stay in the answer: then this is a stop like any other.
        if (jobs.length === 0) throw new AllowanceExceededError(refused, undefined);
      }
      const { stoppedBy, retryAt } = stopOf(error);
      if (opts.sendWhatFits && (stoppedBy === 'allowance' || stoppedBy === 'paused')) {
        return stopped({ stoppedBy, ...(retryAt ? { unsentAfter: retryAt } : {}) });
      }
      // The list being posted when it stopped is the head of the queue.
      const [current = [], ...waiting] = queue;
      const uncertain: UncertainChunk | undefined =
        error instanceof SubmissionUncertainError ? { emails: current, error } : undefined;
      const unsent = [...(uncertain ? [] : current), ...waiting.flat()];
      // Nothing accepted and nothing in doubt: the list as a whole was refused; the error says why.
      if (jobs.length === 0 && (!uncertain || unsent.length === 0)) throw error;
      throw new PartialSubmissionError(error, jobs, uncertain, unsent);
    }
  }
  return submission(plan, jobs, rejectedByService, queue.flat());
}

function stopNote(
  plan: SubmissionPlan,
  out: ListSubmission,
  stop: { stoppedBy: StoppedBy; unsentAfter?: string },
  leftToday: number | undefined,
): string {
  const sent = out.jobs.reduce((n, j) => n + (j.total_emails ?? 0), 0);
  const total = sent + out.unsent.length;
  const head = `Sent ${sent} of ${total} addresses in ${plural(out.jobs.length, 'job')}; ${out.unsent.length} not sent yet`;
  const when = stop.unsentAfter
    ? `; they can be sent after ${stop.unsentAfter}`
    : '; they can be sent at once';
  if (stop.stoppedBy === 'paused') return `${head}: the service paused new jobs${when}.`;
  if (stop.stoppedBy === 'time_budget') return `${head}: the time for this step ran out${when}.`;
  const allowance = plan.allowance;
  const known =
    allowance && allowance.perDay !== null
      ? ` of ${allowance.perDay} addresses a day${allowance.plan ? ` (${allowance.plan} plan)` : ''}${leftToday === undefined ? '' : `, ${leftToday} left today`}`
      : '';
  return `${head}: over the account's API allowance${known}, which all its keys share${when}.`;
}

function submission(
  plan: SubmissionPlan,
  jobs: BulkSubmission[],
  rejectedByService: MalformedAddress[],
  unsent: string[],
): ListSubmission {
  return {
    jobs,
    preflight: plan.preflight,
    rejectedByService,
    creditsUsed: jobs.reduce((sum, j) => sum + (j.credits_used ?? 0), 0),
    creditsRemaining: jobs[jobs.length - 1]?.credits_remaining,
    unsent,
  };
}

/** Thrown inside postPlan when the next POST would not fit the deadline; never leaves postPlan. */
class BudgetStop extends Error {
  constructor(readonly spent: TimeBudgetSpentError) {
    super(spent.message);
  }
}

/**
 * A POST is started only when a whole attempt fits before the deadline: one cut short could have been
 * accepted and charged with no answer, which the caller could then neither trust nor safely resend.
 */
function assertPostFits(http: HttpCore, opts: RequestOptions): void {
  if (opts.deadline === undefined) return;
  const attempt = opts.timeoutMs ?? http.defaultTimeoutMs;
  if (http.runtime.now() + attempt > opts.deadline)
    throw new BudgetStop(new TimeBudgetSpentError('POST', '/v1/verify/bulk'));
}

const MAX_422_REQUESTS = 200;

/** Works through `queue` (sub-lists still to place); on a throw, queue[0] is the list that was being posted. */
async function postResolving422(
  http: HttpCore,
  queue: string[][],
  fields: JobFields,
  opts: RequestOptions,
  jobs: BulkSubmission[],
  rejected: MalformedAddress[],
): Promise<void> {
  const chunk = queue[0]!;
  let firstError: UnprocessableError | undefined;
  let placed = 0;
  let requests = 0;
  while (queue.length) {
    const list = queue[0]!;
    // Halving isolates a few offenders in ~2·log2(n) calls each; far more means the 422 is about something else.
    if (++requests > MAX_422_REQUESTS && firstError) throw firstError;
    assertPostFits(http, opts);
    try {
      jobs.push(await postBulk(http, list, fields, opts));
      queue.shift();
      placed += list.length;
    } catch (error) {
      if (!(error instanceof UnprocessableError) || mentionsNonEmailField(error)) throw error;
      firstError ??= error;
      queue.shift();
      const named = new Set((error.invalidEmails ?? []).map((e) => e.email.toLowerCase()));
      const keep = named.size ? list.filter((e) => !named.has(e.toLowerCase())) : undefined;
      if (keep && keep.length < list.length) {
        for (const bad of error.invalidEmails ?? []) {
          rejected.push({
            email: bad.email,
            index: chunk.indexOf(bad.email),
            reason: bad.reason ?? 'refused by the service',
          });
        }
        if (keep.length) queue.unshift(keep);
      } else if (list.length > 1) {
        const mid = Math.ceil(list.length / 2);
        queue.unshift(list.slice(0, mid), list.slice(mid));
      } else {
        rejected.push({
          email: list[0]!,
          index: chunk.indexOf(list[0]!),
          reason: error.serverMessage ?? 'refused by the service',
        });
      }
    }
  }
  // Every address refused one by one means the 422 was never about the addresses: report it as it is.
  if (placed === 0 && firstError) throw firstError;
}

function mentionsNonEmailField(error: UnprocessableError): boolean {
  if (error.invalidEmails?.length) return false;
  const text = JSON.stringify(error.body ?? '').toLowerCase();
  return /webhook|"name"|priority|check_smtp/.test(text);
}
