import {
  HttpCore,
  DEFAULT_RETRY,
  type RequestOptions,
  type RetryOptions,
  type HttpCoreOptions,
} from './core/http';
import type { Runtime } from './core/runtime';
import type { Transport } from './core/transport';
import { AuthenticationError, InputError, VerificationUncertainError } from './errors';
import { LIMITS } from './limits';
import {
  planSubmission,
  postBulk,
  postPlan,
  sizePlan,
  assertMaxJobs,
  type JobFields,
  type ListSubmission,
  type SubmissionPlan,
  type SubmitListOptions,
  type SubmitListParams,
  type PostOptions,
} from './bulk';
import { allowanceLeft, allowanceOf, SMALLEST_DAILY_ALLOWANCE } from './allowance';
import { badInputVerdict, type BadInputVerdict } from './bad-input';
import { emailProblem, unwrapAddress } from './validation/email';
import { asciiDomainAddress } from './validation/idn';
import {
  assertApiKey,
  assertJobId,
  assertJobsLimit,
  assertKeyId,
  assertName,
  assertOffset,
  assertPage,
  assertPerPage,
  assertPriority,
  assertSingleEmail,
} from './validation/params';
import { assertWebhookUrlPolicy, type WebhookUrlPolicy } from './validation/webhook-url';
import { isLoopbackUrl } from './validation/ip';
import { assertBaseUrl } from './adapter-kit/base-url';
import {
  listAllJobs,
  resultPages,
  resultRows,
  type JobsOptions,
  type ResultsOptions,
} from './core/pagination';
import { waitForJob, type WaitOptions } from './core/waiting';
import { finishedJobsSince, type FinishedJobs, type FinishedJobsOptions } from './finished-jobs';
import { readJobsRows, type JobsRows, type JobsRowsOptions } from './jobs-rows';
import { resumeAfterMessage, type ResumeInput, type ResumeOutcome } from './webhooks/resume';
import {
  readResultsWindow,
  type ResultsWindow,
  type ResultsWindowOptions,
  type RowsOnlyWindow,
} from './results-window';
import type {
  Account,
  BulkSubmission,
  CreditBalance,
  Job,
  JobList,
  JobListItem,
  ListJobsParams,
  ResultRow,
  ResultsPage,
  ResultsPageParams,
  SingleResult,
  Subscription,
  SubmitBulkParams,
  VerifySingleParams,
} from './types';

export interface ClientOptions {
  /** Sent as X-API-Key. Required unless `authenticatedByTransport` says the transport adds it. */
  apiKey?: string;
  /** The transport authenticates every request itself (n8n credentials); the key is then not ours to send. */
  authenticatedByTransport?: boolean;
  /** The service's base URL, ending in /api. */
  baseUrl: string;
  transport: Transport;
  runtime: Runtime;
  /** Per-attempt timeout for calls that don't set their own. */
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  userAgent?: string;
  /**
   * webhook_url rules. Loopback http receivers are allowed only against a local sandbox: by default
   * exactly when the base URL itself is on loopback, never against the real service.
   */
  webhookUrl?: WebhookUrlPolicy;
  onRequest?: HttpCoreOptions['onRequest'];
}

export interface RevokeResult {
  key_id: string;
  revoked: true;
  /**
   * `response`: the service answered 204. `own-key-refused`: the first answer was lost and the resent
   * call was refused with 401, which proves the key this client uses (the one revoked) no longer works.
   */
  confirmedBy: 'response' | 'own-key-refused';
}

const VERIFY_SINGLE_TIMEOUT_MS = LIMITS.singleVerificationWaitMs + 5_000;

/**
 * The facade: one method per endpoint, plus the list, pagination and waiting helpers, each of which
 * lives in its own module (bulk.ts, core/pagination.ts, core/waiting.ts). Requests, retries and error
 * mapping are core/http.ts's; rules are validation/*'s.
 */

export class EmailVerificationClient {
  private readonly http: HttpCore;
  private readonly options: ClientOptions;

  constructor(options: ClientOptions) {
    if (!options.authenticatedByTransport || options.apiKey !== undefined) assertApiKey(options.apiKey);
    assertBaseUrl(options.baseUrl);
    this.options = {
      ...options,
      webhookUrl: {
        ...options.webhookUrl,
        allowLoopbackHttp: options.webhookUrl?.allowLoopbackHttp ?? isLoopbackUrl(options.baseUrl),
      },
    };
    this.http = new HttpCore({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      transport: options.transport,
      runtime: options.runtime,
      timeoutMs: options.timeoutMs ?? 60_000,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      userAgent: options.userAgent,
      onRequest: options.onRequest,
    });
  }

  get runtime(): Runtime {
    return this.options.runtime;
  }

  /**
   * Verifies one address (1 credit). Only the service's own answer is a verdict. Everything else throws
   * and is never turned into one: a 408 (VerificationTimeoutError: the spec lists it among its errors, it
   * carries no primary_label, and the credit is refunded) and an outage (a 5xx, a dropped connection, no
   * answer in time, an unreadable 2xx: VerificationUncertainError, which may have used the credit). The
   * POST is never resent after it may have reached the service; only the service's own "not now" (a 429
   * or 503 with its wait) is waited out and sent again.
   */
  async verifySingle(params: VerifySingleParams, opts: RequestOptions = {}): Promise<SingleResult> {
    const typed = typeof params.email === 'string' ? params.email.trim() : params.email;
    // The forms people paste (`Ada <ada@x.com>`, `mailto:`) are unwrapped here exactly as a list's pre-flight
    // unwraps them, so one address is accepted wherever a list with it would be.
    const given =
      typeof typed === 'string' && emailProblem(typed) ? (unwrapAddress(typed)?.email ?? typed) : typed;
    // A Unicode domain goes in its xn-- form (the service takes host names in ASCII); the answer keeps
    // the address as given, so it lines up with its row.
    const ascii = typeof given === 'string' && emailProblem(given) ? asciiDomainAddress(given) : undefined;
    const email = ascii !== undefined && !emailProblem(ascii) ? ascii : given;
    assertSingleEmail(email, emailProblem);
    const { data } = await this.http.call<SingleResult>({
      method: 'POST',
      path: '/v1/verify/single',
      body: { email, ...(params.check_smtp === undefined ? {} : { check_smtp: params.check_smtp }) },
      timeoutMs: opts.timeoutMs ?? VERIFY_SINGLE_TIMEOUT_MS,
      signal: opts.signal,
      deadline: opts.deadline,
      credits: 1,
      verificationTimeout: true,
      onUncertain: (cause, sentAt) =>
        new VerificationUncertainError(cause, email as string, new Date(sentAt).toISOString()),
    });
    return email !== given && data && typeof data === 'object' ? { ...data, email: given as string } : data;
  }

  /**
   * One job, exactly as given: the list must already be clean (no malformed address, at most 50,000).
   * For a list as users have it (pasted text, sheet columns, duplicates, bad rows, any size), call
   * submitList: it cleans, splits and submits it.
   */
  async submitBulk(params: SubmitBulkParams, opts: RequestOptions = {}): Promise<BulkSubmission> {
    if (!Array.isArray(params.emails) || params.emails.length < LIMITS.minEmailsPerJob) {
      throw new InputError('emails', 'min_items', 'The list is empty: give at least one email address.');
    }
    if (params.emails.length > LIMITS.maxEmailsPerJob) {
      throw new InputError(
        'emails',
        'max_items',
        `The list has ${params.emails.length} addresses; one job takes at most ${LIMITS.maxEmailsPerJob}. Use submitList to split it.`,
      );
    }
    params.emails.forEach((email, index) => {
      const why = emailProblem(email);
      if (why) {
        throw new InputError(
          'emails',
          'syntax',
          `Address #${index + 1} ("${String(email).slice(0, 100)}") ${why}. One malformed address makes the service refuse the whole list; remove it first.`,
        );
      }
    });
    await this.assertJobFields(params);
    return postBulk(this.http, params.emails, params, opts);
  }

  /**
   * Verifies a list as users have it: any size, pasted text or an array. Malformed addresses and
   * duplicates are taken out (reported, never charged), the rest is split into jobs the account can
   * take, and each job is posted once. The same as planList, then submitPlan.
   */
  async submitList(params: SubmitListParams, options: SubmitListOptions = {}): Promise<ListSubmission> {
    return this.submitPlan(await this.planList(params, options), options);
  }

  /**
   * Verifies one cell of a sheet: an empty cell, a malformed address or several addresses get the free
   * verdict of badInputVerdict (nothing sent, credits_used 0), anything else goes to verifySingle.
   */
  async verifyCell(
    cell: unknown,
    opts: RequestOptions & { check_smtp?: boolean } = {},
  ): Promise<SingleResult | BadInputVerdict> {
    const bad = badInputVerdict(cell);
    if (bad) return bad;
    const { check_smtp, ...request } = opts;
    return this.verifySingle(
      { email: String(cell), ...(check_smtp === undefined ? {} : { check_smtp }) },
      request,
    );
  }

  /**
   * Everything decided before a list costs anything: the job fields checked, pre-flight run once, jobs
   * sized to the account's allowance (read from the account, free, for lists over 10,000). Show it to
   * the user, refuse it, or hand it to submitPlan.
   */
  async planList(params: SubmitListParams, options: SubmitListOptions = {}): Promise<SubmissionPlan> {
    if (params === null || typeof params !== 'object') {
      throw new InputError(
        'emails',
        'required',
        'Give the addresses to verify: a list, or text with one address per line.',
      );
    }
    const { emails, ...rest } = params;
    const fields: JobFields = { ...rest, webhook_url: rest.webhook_url || undefined };
    await this.assertJobFields(fields);
    const given =
      typeof options.allowance === 'object' && options.allowance !== null ? options.allowance : undefined;
    let plan: SubmissionPlan = {
      ...planSubmission(emails, {
        maxPerJob: options.maxPerJob,
        allowance: given,
        allowNothingToSend: options.allowNothingToSend,
      }),
      fields,
      learnsAllowance: options.allowance !== null,
      maxJobs: options.maxJobs,
    };
    assertMaxJobs(plan, options.maxJobs);
    // Reading the account is free. A list within the smallest allowance needs it only to send what fits.
    const readAccount = options.allowance === undefined || options.allowance === 'account';
    if (
      readAccount &&
      (options.sendWhatFits || plan.preflight.unique.length > SMALLEST_DAILY_ALLOWANCE) &&
      plan.chunks.length
    ) {
      const account =
        options.account !== undefined
          ? (options.account ?? undefined)
          : await this.getAccount({ signal: options.signal, deadline: options.deadline }).catch(
              () => undefined,
            );
      const allowance = account && allowanceOf(account);
      if (allowance) {
        plan = sizePlan(plan, allowance);
        if (options.sendWhatFits) {
          const { left, freeAfterMs } = allowanceLeft(allowance, account.credits_used_today);
          plan = { ...plan, fitsNow: { left, freeAfterMs } };
        }
      }
      assertMaxJobs(plan, options.maxJobs);
    }
    return plan;
  }

  /**
   * The same plan with other job fields, checked the same way; no address is scanned again (e.g. a
   * webhook_url that depends on how many jobs the plan has).
   */
  async withJobFields(plan: SubmissionPlan, fields: Partial<JobFields>): Promise<SubmissionPlan> {
    const merged: JobFields = { ...plan.fields, ...fields };
    await this.assertJobFields(merged);
    return { ...plan, fields: merged };
  }

  /**
   * Posts a plan's already-checked jobs; see bulk.ts for a 422 or a stop part way. With `deadline`, a job
   * is posted only while a whole attempt still fits before it; the rest is returned in `unsent`.
   */
  submitPlan(plan: SubmissionPlan, opts: PostOptions = {}): Promise<ListSubmission> {
    return postPlan(this.http, plan, opts);
  }

  /** The job fields every submission checks once, before anything is sent. */
  private async assertJobFields(fields: {
    name?: unknown;
    priority?: unknown;
    webhook_url?: unknown;
  }): Promise<void> {
    assertName(fields.name);
    assertPriority(fields.priority);
    if (fields.webhook_url !== undefined) await this.assertWebhookUrl(fields.webhook_url);
  }

  /** The webhook_url rules of the spec, plus a DNS check when configured. */
  assertWebhookUrl(url: unknown): Promise<void> {
    return assertWebhookUrlPolicy(url, this.options.webhookUrl ?? {}, this.options.runtime.lookup);
  }

  async getJob(jobId: string, opts: RequestOptions = {}): Promise<Job> {
    assertJobId(jobId);
    const { data } = await this.http.call<Job>({
      method: 'GET',
      path: `/v1/jobs/${encodeURIComponent(jobId)}`,
      notFound: `Job ${jobId}`,
      ...opts,
    });
    return data;
  }

  async listJobs(params: ListJobsParams = {}, opts: RequestOptions = {}): Promise<JobList> {
    assertJobsLimit(params.limit);
    assertOffset(params.offset);
    if (params.status !== undefined && (typeof params.status !== 'string' || params.status.trim() === '')) {
      throw new InputError(
        'status',
        'type',
        'The status filter must be a job status such as completed, or left empty.',
      );
    }
    const { data } = await this.http.call<JobList>({
      method: 'GET',
      path: '/v1/jobs',
      query: { status: params.status, limit: params.limit, offset: params.offset },
      ...opts,
    });
    return data;
  }

  /** Every job, newest first, page by page (offset paging, `pageSize` up to 100). */
  jobs(params: JobsOptions = {}): AsyncGenerator<JobListItem> {
    return listAllJobs(this, params);
  }

  async getResultsPage(
    jobId: string,
    params: ResultsPageParams = {},
    opts: RequestOptions = {},
  ): Promise<ResultsPage> {
    assertJobId(jobId);
    assertPage(params.page);
    assertPerPage(params.per_page);
    const { data } = await this.http.call<ResultsPage>({
      method: 'GET',
      path: `/v1/jobs/${encodeURIComponent(jobId)}/results`,
      query: { page: params.page, per_page: params.per_page },
      notFound: `Job ${jobId}`,
      ...opts,
    });
    return data;
  }

  /**
   * Every row of a job, in order, read page by page. On a running job it waits for rows to come until
   * the job stops (see ResultsOptions.follow); `groups` filters by the category mapping.
   */
  results(jobId: string, options: ResultsOptions = {}): AsyncGenerator<ResultRow> {
    return resultRows(this, jobId, options);
  }

  /** The pages behind results(), for callers that handle a page at a time (memory bounded by one page). */
  resultPages(jobId: string, options: ResultsOptions = {}): AsyncGenerator<ResultsPage> {
    return resultPages(this, jobId, options);
  }

  /**
   * One window of a job's rows: from a row position, up to a row count or a deadline, saying where the
   * next window starts and whether the job was still running (see results-window.ts).
   */
  resultsWindow(jobId: string, options: ResultsWindowOptions): Promise<ResultsWindow> {
    return readResultsWindow(this, jobId, options, () =>
      this.options.runtime.now(),
    ) as Promise<ResultsWindow>;
  }

  /**
   * A results window that does not read the job first: for a caller reading many windows of a job while
   * it reads the job itself, at the same time (one answer's time on a slow service, not two).
   */
  rowsWindow(jobId: string, options: Omit<ResultsWindowOptions, 'job'>): Promise<RowsOnlyWindow> {
    return readResultsWindow(this, jobId, { ...options, job: false }, () => this.options.runtime.now());
  }

  /**
   * Every row of a list's jobs, read at once in windows (one answer's time on a slow service), with the
   * jobs themselves; `readAll` says whether every row of every stopped job came (see jobs-rows.ts).
   */
  jobsRows(jobIds: string[], options: JobsRowsOptions): Promise<JobsRows> {
    return readJobsRows(this, jobIds, options);
  }

  /**
   * Every finished job among those created since a point, newest first, read page by page back to it (or
   * to the deadline, then `complete: false`): for polling triggers that must not miss a burst.
   */
  finishedJobsSince(options: FinishedJobsOptions): Promise<FinishedJobs> {
    return finishedJobsSince(this, options, () => this.options.runtime.now());
  }

  /**
   * A completion message reached a paused run: checks it (without throwing) and reads the job with the
   * key whatever the check said, so an unverifiable or late message never costs the rows (webhooks/resume.ts).
   */
  resumeAfterMessage(input: ResumeInput, opts: RequestOptions = {}): Promise<ResumeOutcome> {
    return resumeAfterMessage(this, input, opts);
  }

  /** Polls GET /v1/jobs/{id} every 10 to 30 s until the job stops. The interval never comes from estimated_seconds. */
  waitForJob(jobId: string, options: WaitOptions = {}): Promise<Job> {
    return waitForJob(this, jobId, options);
  }

  async getCredits(opts: RequestOptions = {}): Promise<CreditBalance> {
    return (await this.http.call<CreditBalance>({ method: 'GET', path: '/v1/account/credits', ...opts }))
      .data;
  }

  async getAccount(opts: RequestOptions = {}): Promise<Account> {
    return (await this.http.call<Account>({ method: 'GET', path: '/v1/account', ...opts })).data;
  }

  async getSubscription(opts: RequestOptions = {}): Promise<Subscription> {
    return (await this.http.call<Subscription>({ method: 'GET', path: '/v1/subscription', ...opts })).data;
  }

  /**
   * Revokes a key (204). A 404 (no such key) throws NotFoundError. When the first answer was lost and the
   * resent DELETE is refused with 401, the key this client sends no longer works: the lost attempt
   * revoked it (the client's own key), and that is reported as done, not as a failure.
   */
  async revokeKey(keyId: string, opts: RequestOptions = {}): Promise<RevokeResult> {
    assertKeyId(keyId);
    const { data } = await this.http.call<RevokeResult | undefined>({
      method: 'DELETE',
      path: `/v1/keys/${encodeURIComponent(keyId)}`,
      notFound: `API key ${keyId}`,
      afterLostAnswer: (error) =>
        error instanceof AuthenticationError
          ? {
              data: { key_id: keyId, revoked: true, confirmedBy: 'own-key-refused' },
              status: error.status,
              headers: error.headers,
            }
          : undefined,
      ...opts,
    });
    return data ?? { key_id: keyId, revoked: true, confirmedBy: 'response' };
  }
}
