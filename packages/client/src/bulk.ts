/**
 * The one path a list takes to the service: plan once (pre-flight, allowance, chunks), then post the
 * already-checked chunks. Nothing here re-scans an address, and nothing here imports the client.
 */
import type { HttpCore, RequestOptions } from './core/http';
import { EvfError, InputError, PartialSubmissionError, SubmissionUncertainError, TimeBudgetSpentError, UnprocessableError, type UncertainChunk } from './errors';
import { allowanceJobSize, type ApiAllowance } from './allowance';
import { LIMITS } from './limits';
import { preflightEmails, type MalformedAddress, type PreflightReport } from './validation/preflight';
import type { BulkSubmission, Priority, SubmitBulkParams } from './types';

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
   * The account's API allowance. Default `'account'`: read it from GET /v1/account (free) when the list
   * is larger than the smallest allowance a plan has, so no job is larger than the account can ever take.
   * `null`: don't consider it.
   */
  allowance?: ApiAllowance | 'account' | null;
  /**
   * Refuse, before anything is sent or read, a list that needs more jobs than this (e.g. 1 where a
   * platform can wait for one job only): InputError rule `max_jobs`.
   */
  maxJobs?: number;
  /**
   * A list with no valid address at all becomes a plan with no jobs (its pre-flight report says why each
   * item was skipped) instead of InputError `min_items`: for a flow that writes every row's outcome back
   * and must end cleanly when a batch holds only malformed rows. Nothing is sent or charged either way.
   */
  allowNothingToSend?: boolean;
}

export interface SubmissionPlan {
  preflight: PreflightReport;
  /** The unique addresses cut into jobs: what will be posted, in order. */
  chunks: string[][];
  /** The largest job, after the allowance. */
  jobSize: number;
  /** The job size asked for, before the allowance. */
  maxPerJob: number;
  allowance: ApiAllowance | undefined;
  /** The job fields, checked, sent with every job (set by the client's planList). */
  fields: JobFields;
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
   * Addresses never sent because the time budget (RequestOptions.deadline) ran out first, in list order;
   * empty when the whole list was posted. Sending exactly these later cannot charge an address twice.
   */
  unsent: string[];
}

/**
 * Everything that can be decided before a request: malformed and duplicate addresses out, and the jobs
 * the rest becomes. Adapters show this to the user (how many jobs, what was skipped) without posting.
 * Refuses, before anything is charged, a list the account's daily allowance can never take at once.
 */
export function planSubmission(
  emails: SubmitListParams['emails'],
  options: { maxPerJob?: number; allowance?: ApiAllowance; allowNothingToSend?: boolean } = {},
): SubmissionPlan {
  if (emails === undefined || emails === null) {
    throw new InputError('emails', 'required', 'Give the addresses to verify: a list, or text with one address per line.');
  }
  if (typeof emails !== 'string' && !Array.isArray(emails)) {
    throw new InputError('emails', 'type', 'The addresses must be a list or text with one address per line.');
  }
  const asked = options.maxPerJob ?? LIMITS.maxEmailsPerJob;
  if (!Number.isInteger(asked) || asked < 1 || asked > LIMITS.maxEmailsPerJob) {
    throw new InputError('maxPerJob', 'range', `The job size must be a whole number from 1 to ${LIMITS.maxEmailsPerJob}.`);
  }
  const preflight = preflightEmails(emails, { maxPerJob: asked });
  if (preflight.unique.length === 0 && !options.allowNothingToSend) {
    const detail = preflight.malformed.length
      ? ` All ${preflight.malformed.length} given were malformed, e.g. "${preflight.malformed[0]!.email.slice(0, 100)}" ${preflight.malformed[0]!.reason}.`
      : '';
    throw new InputError('emails', 'min_items', `The list holds no valid email address to verify.${detail} Nothing was sent or charged.`);
  }
  return sizePlan({ preflight, chunks: preflight.chunks, jobSize: asked, maxPerJob: asked, allowance: undefined, fields: {} }, options.allowance);
}

/**
 * The same plan with jobs sized to an allowance learnt later (no address is scanned again). Refuses,
 * before anything is charged, a list an exact daily allowance can never take at once.
 */
/** Refuses a plan with more jobs than `maxJobs` (see SubmitListOptions.maxJobs). */
export function assertMaxJobs(plan: SubmissionPlan, maxJobs: number | undefined): void {
  if (maxJobs === undefined || plan.chunks.length <= maxJobs) return;
  throw new InputError(
    'emails',
    'max_jobs',
    `The list has ${plan.preflight.unique.length} unique addresses: that is ${plan.chunks.length} jobs of up to ${plan.jobSize}, and at most ${maxJobs} can be sent here. Nothing was sent or charged.`,
  );
}

export function sizePlan(plan: SubmissionPlan, allowance: ApiAllowance | undefined): SubmissionPlan {
  const { unique } = plan.preflight;
  const perDay = allowance?.exact === false ? null : allowance?.perDay;
  if (perDay != null && unique.length > perDay) {
    throw new InputError(
      'emails',
      'allowance',
      `The list has ${unique.length} unique addresses, but this account's API allowance is ${perDay} addresses a day, shared by all its keys: ` +
        `it can never be submitted at once. Submit at most ${perDay} a day, or upload it in the app's dashboard (up to 2,000,000 addresses, never rate-limited). Nothing was sent or charged.`,
    );
  }
  const jobSize = allowanceJobSize(plan.maxPerJob, allowance);
  if (jobSize === plan.jobSize && allowance === plan.allowance) return plan;
  const chunks: string[][] = [];
  for (let i = 0; i < unique.length; i += jobSize) chunks.push(unique.slice(i, i + jobSize));
  return { ...plan, preflight: { ...plan.preflight, chunks }, chunks, jobSize, allowance };
}

/** What goes with every job of a list. */
export type JobFields = Omit<SubmitBulkParams, 'emails'>;

/** One POST /v1/verify/bulk of an already-checked list. Never resent once it may have been accepted. */
export async function postBulk(http: HttpCore, emails: string[], fields: JobFields, opts: RequestOptions = {}): Promise<BulkSubmission> {
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
      new SubmissionUncertainError(cause, { sentAt: new Date(sentAt).toISOString(), addressCount: unique, jobName: fields.name }),
  });
  return data;
}

/**
 * Posts a plan's chunks without losing the list to one bad row or charging it twice. A 422 that the
 * pre-flight did not foresee (the service's syntax rules are not published in full) is resolved by
 * dropping the addresses it names, or, when it names none, by halving until the offenders are alone: a
 * 422 charges nothing, so this costs requests, never credits. If anything stops it part way, the error
 * says which jobs were accepted, which chunk may have been, and which addresses were never sent.
 */
export async function postPlan(http: HttpCore, plan: SubmissionPlan, opts: RequestOptions = {}): Promise<ListSubmission> {
  const { fields } = plan;
  const jobs: BulkSubmission[] = [];
  const rejectedByService: MalformedAddress[] = [];
  const parts = plan.chunks.length;
  const nameFor = (i: number): string | undefined => {
    if (!fields.name) return undefined;
    if (parts === 1) return fields.name;
    const suffix = ` (part ${i + 1} of ${parts})`;
    return fields.name.slice(0, LIMITS.maxNameLength - suffix.length) + suffix;
  };
  let notSent: string[] = [];
  for (let i = 0; i < parts; i++) {
    const queue: string[][] = [plan.chunks[i]!];
    try {
      await postResolving422(http, queue, { ...fields, name: nameFor(i) }, opts, jobs, rejectedByService);
    } catch (error) {
      if (error instanceof BudgetStop) {
        // Out of time before a POST left: nothing in doubt, the rest is reported, not lost or resent.
        if (jobs.length === 0) throw error.spent;
        notSent = [...queue.flat(), ...plan.chunks.slice(i + 1).flat()];
        break;
      }
      if (!(error instanceof EvfError)) throw error;
      // The list being posted when it stopped is the head of the queue.
      const [current = [], ...waiting] = queue;
      const uncertain: UncertainChunk | undefined =
        error instanceof SubmissionUncertainError ? { emails: current, error } : undefined;
      const unsent = [...(uncertain ? [] : current), ...waiting.flat(), ...plan.chunks.slice(i + 1).flat()];
      // Nothing accepted and nothing in doubt: the list as a whole was refused; the error says why.
      if (jobs.length === 0 && (!uncertain || unsent.length === 0)) throw error;
      throw new PartialSubmissionError(error, jobs, uncertain, unsent);
    }
  }
  const last = jobs[jobs.length - 1];
  return {
    jobs,
    preflight: plan.preflight,
    rejectedByService,
    creditsUsed: jobs.reduce((sum, j) => sum + (j.credits_used ?? 0), 0),
    creditsRemaining: last?.credits_remaining,
    unsent: notSent,
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
  if (http.runtime.now() + attempt > opts.deadline) throw new BudgetStop(new TimeBudgetSpentError('POST', '/v1/verify/bulk'));
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
          rejected.push({ email: bad.email, index: chunk.indexOf(bad.email), reason: bad.reason ?? 'refused by the service' });
        }
        if (keep.length) queue.unshift(keep);
      } else if (list.length > 1) {
        const mid = Math.ceil(list.length / 2);
        queue.unshift(list.slice(0, mid), list.slice(mid));
      } else {
        rejected.push({ email: list[0]!, index: chunk.indexOf(list[0]!), reason: error.serverMessage ?? 'refused by the service' });
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
