import { HttpCore, DEFAULT_RETRY, type RequestOptions, type RetryOptions, type HttpCoreOptions } from './core/http';
import type { Runtime } from './core/runtime';
import type { Transport } from './core/transport';
import {
  AuthenticationError,
  ConnectionError,
  EvfError,
  InputError,
  JobWaitTimeoutError,
  RequestTimeoutError,
  VerificationUncertainError,
} from './errors';
import { JOB_STATUSES, LIMITS, STOPPED_STATUSES } from './limits';
import { planSubmission, postBulk, postPlan, type ListSubmission, type SubmitListOptions, type SubmitListParams } from './bulk';
import { allowanceOf, SMALLEST_DAILY_ALLOWANCE } from './allowance';
import { GROUPS, categorize, type Group } from './categories';
import { emailProblem } from './validation/email';
import {
  assertApiKey,
  assertJobId,
  assertJobsLimit,
  assertKeyId,
  assertMaxItems,
  assertName,
  assertOffset,
  assertPage,
  assertPerPage,
  assertPriority,
  assertSingleEmail,
} from './validation/params';
import { assertWebhookUrl, checkResolvedAddresses, type WebhookUrlOptions } from './validation/webhook-url';
import { isIpLiteral, isLoopbackUrl } from './validation/ip';
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
  webhookUrl?: WebhookUrlOptions & {
    /** Also resolve the host (runtime.lookup) and refuse non-public addresses before submitting. */
    resolveHost?: boolean;
  };
  onRequest?: HttpCoreOptions['onRequest'];
}

export interface ResultsOptions {
  /** Rows per page read, 1 to 1000 (default 1000: fewer requests; reading is free). */
  pageSize?: number;
  /**
   * Pages fetched at once once the job has stopped and its row count is fixed (order is kept).
   * While the job is still running, pages are read one by one.
   */
  concurrency?: number;
  /** Stop after this many rows (counted after the group filter). */
  maxRows?: number;
  /** Only rows in these groups (from the category mapping, never the row's status); all when absent or empty. */
  groups?: readonly Group[];
  /**
   * Default true: reading a job that is still running is never silently partial. When the stored rows
   * are exhausted but the job has not stopped, the reader waits a poll interval and reads on until the
   * job stops, so every row comes. `false` reads only the rows stored now: then the last page's `status`
   * says whether the job was still running (and so whether rows are missing).
   */
  follow?: boolean;
  /** Poll interval for `follow`, held within 10 to 30 s like waitForJob. */
  pollIntervalMs?: number;
  signal?: AbortSignal;
  timeoutMs?: number;
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

export interface WaitOptions {
  /** Poll interval, held within the spec's recommended 10 to 30 seconds (default 15 s). */
  intervalMs?: number;
  /** Overall deadline; JobWaitTimeoutError after it. Default: no deadline. */
  timeoutMs?: number;
  signal?: AbortSignal;
  onProgress?: (job: Job) => void;
}

const VERIFY_SINGLE_TIMEOUT_MS = LIMITS.singleVerificationWaitMs + 5_000;

/** The spec recommends polling every 10 to 30 s; no caller may poll faster, whatever it asks. */
function pollInterval(ms: number | undefined): number {
  return Math.min(LIMITS.maxPollIntervalMs, Math.max(LIMITS.minPollIntervalMs, ms ?? LIMITS.defaultPollIntervalMs));
}

/**
 * The service's base URL is never guessed: a key sent to the wrong place is a leaked key. It must be
 * https, except on loopback (the local sandbox), so the key never crosses a network in clear text.
 */
function assertBaseUrl(baseUrl: unknown): asserts baseUrl is string {
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') {
    throw new InputError('baseUrl', 'required', "No base URL was given: set it to the service's API address, which ends in /api.");
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InputError('baseUrl', 'syntax', `The base URL "${baseUrl.slice(0, 200)}" is not a URL: it must look like https://<host>/api.`);
  }
  if (url.username || url.password) {
    throw new InputError('baseUrl', 'credentials', 'The base URL must not contain a user name or password; the API key is sent in its own header.');
  }
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopbackUrl(baseUrl)) return;
  throw new InputError(
    'baseUrl',
    'https',
    `The base URL must start with https:// (plain http:// is allowed only for a local sandbox on 127.0.0.1, ::1 or localhost), so the API key never travels in clear text; got "${url.protocol}//${url.host}".`,
  );
}

/** A job has stopped when it says so; when the flag is missing, its status decides. */
export function isJobStopped(job: { status: Job['status']; terminal?: boolean | null }): boolean {
  if (typeof job.terminal === 'boolean') return job.terminal;
  return STOPPED_STATUSES.includes(job.status);
}

export class EmailVerificationClient {
  readonly http: HttpCore;
  private readonly options: ClientOptions;

  constructor(options: ClientOptions) {
    if (!options.authenticatedByTransport || options.apiKey !== undefined) assertApiKey(options.apiKey);
    assertBaseUrl(options.baseUrl);
    this.options = {
      ...options,
      webhookUrl: { ...options.webhookUrl, allowLoopbackHttp: options.webhookUrl?.allowLoopbackHttp ?? isLoopbackUrl(options.baseUrl) },
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

  /** Verifies one address (1 credit). A 408 is not retried: the credit was refunded and the caller decides. */
  async verifySingle(params: VerifySingleParams, opts: RequestOptions = {}): Promise<SingleResult> {
    const email = typeof params.email === 'string' ? params.email.trim() : params.email;
    assertSingleEmail(email, emailProblem);
    const { data } = await this.http.call<SingleResult>({
      method: 'POST',
      path: '/v1/verify/single',
      body: { email, ...(params.check_smtp === undefined ? {} : { check_smtp: params.check_smtp }) },
      timeoutMs: opts.timeoutMs ?? VERIFY_SINGLE_TIMEOUT_MS,
      signal: opts.signal,
      credits: 1,
      verificationTimeout: true,
      onUncertain: (cause, sentAt) => new VerificationUncertainError(cause, email as string, new Date(sentAt).toISOString()),
    });
    return data;
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
        throw new InputError('emails', 'syntax', `Address #${index + 1} ("${String(email).slice(0, 100)}") ${why}. One malformed address makes the service refuse the whole list; remove it first.`);
      }
    });
    await this.assertJobFields(params);
    return postBulk(this.http, params.emails, params, opts);
  }

  /**
   * Verifies a list as users have it: any size, pasted text or an array. Malformed addresses and
   * duplicates are taken out (reported, never charged), the rest is split into jobs the account can
   * take, and each job is posted once. See bulk.ts for what happens on a 422 or a stop part way.
   */
  async submitList(params: SubmitListParams, options: SubmitListOptions = {}): Promise<ListSubmission> {
    if (params === null || typeof params !== 'object') {
      throw new InputError('emails', 'required', 'Give the addresses to verify: a list, or text with one address per line.');
    }
    const fields = { ...params, webhook_url: params.webhook_url || undefined };
    await this.assertJobFields(fields);
    const given = typeof options.allowance === 'object' && options.allowance !== null ? options.allowance : undefined;
    let plan = planSubmission(params.emails, { maxPerJob: options.maxPerJob, allowance: given });
    if (options.allowance === undefined || options.allowance === 'account') {
      // Reading the account is free; only a list larger than the smallest allowance needs it.
      if (plan.preflight.unique.length > SMALLEST_DAILY_ALLOWANCE) {
        const allowance = await this.getAccount({ signal: options.signal }).then(allowanceOf, () => undefined);
        if (allowance) plan = planSubmission(params.emails, { maxPerJob: options.maxPerJob, allowance });
      }
    }
    const { emails: _emails, ...jobFields } = fields;
    return postPlan(this.http, plan, jobFields, options);
  }

  /** The job fields every submission checks once, before anything is sent. */
  private async assertJobFields(fields: { name?: unknown; priority?: unknown; webhook_url?: unknown }): Promise<void> {
    assertName(fields.name);
    assertPriority(fields.priority);
    if (fields.webhook_url !== undefined) await this.assertWebhookUrl(fields.webhook_url);
  }

  /** The webhook_url rules of the spec, plus a DNS check when configured. */
  async assertWebhookUrl(url: unknown): Promise<void> {
    const rules = this.options.webhookUrl ?? {};
    assertWebhookUrl(url, rules);
    const lookup = this.options.runtime.lookup;
    if (!rules.resolveHost || !lookup) return;
    const host = new URL(url as string).hostname.replace(/^\[|\]$/g, '');
    if (isIpLiteral(host)) return;
    let addresses: string[];
    try {
      addresses = await lookup(host);
    } catch {
      addresses = [];
    }
    const violations = rules.allowLoopbackHttp ? [] : checkResolvedAddresses(host, addresses);
    if (violations.length) throw new InputError('webhook_url', violations[0]!.rule, violations.map((v) => v.message).join('; '));
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
      throw new InputError('status', 'type', 'The status filter must be a job status such as completed, or left empty.');
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
  async *jobs(params: { status?: string; pageSize?: number; maxItems?: number; signal?: AbortSignal } = {}): AsyncGenerator<JobListItem> {
    const limit = params.pageSize ?? LIMITS.maxJobsLimit;
    assertJobsLimit(limit);
    assertMaxItems(params.maxItems);
    if (params.maxItems === 0) return;
    let offset = 0;
    let yielded = 0;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.listJobs({ status: params.status, limit, offset }, { signal: params.signal });
      const jobs = Array.isArray(page.jobs) ? page.jobs : [];
      for (const job of jobs) {
        // A job created while paging shifts the offsets by one: skip what was already given.
        if (seen.has(job.job_id)) continue;
        seen.add(job.job_id);
        yield job;
        if (params.maxItems !== undefined && ++yielded >= params.maxItems) return;
      }
      if (jobs.length < limit) return;
      offset += jobs.length;
    }
  }

  async getResultsPage(jobId: string, params: ResultsPageParams = {}, opts: RequestOptions = {}): Promise<ResultsPage> {
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
   * Every stored row of a job, in order. Works while the job runs (rows are stored as they become final)
   * and ends when a page says has_more is false.
   */
  async *results(jobId: string, options: ResultsOptions = {}): AsyncGenerator<ResultRow> {
    assertMaxItems(options.maxRows, 'maxRows');
    const max = options.maxRows ?? Number.POSITIVE_INFINITY;
    if (max === 0) return;
    const groups = options.groups?.length ? new Set<Group>(options.groups) : undefined;
    for (const g of groups ?? []) {
      if (!GROUPS.includes(g)) throw new InputError('groups', 'enum', `Unknown group "${String(g)}": use ${GROUPS.join(', ')}.`);
    }
    // With a group filter, maxRows counts matching rows, so the pages cannot be cut short by it.
    const pageOptions = groups ? { ...options, maxRows: undefined } : options;
    let given = 0;
    for await (const page of this.resultPages(jobId, pageOptions)) {
      for (const row of page.results ?? []) {
        if (groups && !groups.has(categorize(row.details).group)) continue;
        if (given >= max) return;
        given++;
        yield row;
      }
    }
  }

  /**
   * The pages behind results(), for callers that handle a page at a time (fewer awaits per row, and
   * memory bounded by one page). Stops once the job has stopped and has_more is false, or once maxRows
   * rows were given; while the job runs (unless `follow: false`), a page that ends the stored rows of a running job is read again every poll interval until
   * the job stops, and only rows not given before are passed on.
   */
  async *resultPages(jobId: string, options: ResultsOptions = {}): AsyncGenerator<ResultsPage> {
    const perPage = options.pageSize ?? LIMITS.maxPerPage;
    assertJobId(jobId);
    assertPerPage(perPage);
    const concurrency = Math.max(1, Math.min(16, Math.floor(options.concurrency ?? 1)));
    const max = options.maxRows ?? Number.POSITIVE_INFINITY;
    const opts = { signal: options.signal, timeoutMs: options.timeoutMs };
    const fetchPage = (p: number): Promise<ResultsPage> => this.getResultsPage(jobId, { page: p, per_page: perPage }, opts);
    const interval = pollInterval(options.pollIntervalMs);
    let rows = 0;
    let page = 1;
    let alreadyGiven = 0; // rows of `page` passed on by an earlier read of the same page (follow mode)
    let stopped = false;
    let current = await fetchPage(page);
    for (;;) {
      const fresh = alreadyGiven ? { ...current, results: (current.results ?? []).slice(alreadyGiven) } : current;
      if (fresh.results?.length || !alreadyGiven) yield fresh;
      rows += fresh.results?.length ?? 0;
      if (rows >= max) return;
      if (!current.has_more) {
        if (options.follow === false || stopped || STOPPED_STATUSES.includes(current.status)) return;
        // A status the spec does not name is not taken as running forever: the job's own flag decides.
        if (!(JOB_STATUSES as readonly string[]).includes(current.status)) stopped = isJobStopped(await this.getJob(jobId, opts));
        // The stored rows are read but the job runs on: look again after a poll interval. Once the job
        // has stopped, its page is read once more at once, for rows stored since the last read.
        const onPage = current.results?.length ?? 0;
        if (!stopped) await this.options.runtime.sleep(interval, options.signal);
        if (onPage >= perPage) {
          page++;
          alreadyGiven = 0;
        } else alreadyGiven = onPage;
        current = await fetchPage(page);
        continue;
      }
      alreadyGiven = 0;
      // Once the job has stopped its rows are fixed, so the remaining pages can be fetched side by side.
      const lastPage = Math.ceil((current.total ?? 0) / perPage);
      if (concurrency > 1 && STOPPED_STATUSES.includes(current.status) && lastPage > page + 1) {
        for (let start = page + 1; start <= lastPage; start += concurrency) {
          const numbers: number[] = [];
          for (let p = start; p < start + concurrency && p <= lastPage; p++) numbers.push(p);
          // Settle the whole window before yielding, so no request is left running unobserved.
          const pages = await Promise.all(numbers.map(fetchPage));
          for (let i = 0; i < pages.length; i++) {
            current = pages[i]!;
            page = numbers[i]!;
            yield current;
            rows += current.results?.length ?? 0;
            if (!current.has_more || rows >= max) return;
          }
        }
        // The total was stale (has_more still true on the last page it implied): carry on one by one.
      }
      page++;
      current = await fetchPage(page);
    }
  }

  /** Polls GET /v1/jobs/{id} until the job stops. The interval never comes from estimated_seconds. */
  async waitForJob(jobId: string, options: WaitOptions = {}): Promise<Job> {
    assertJobId(jobId);
    const interval = pollInterval(options.intervalMs);
    const runtime = this.options.runtime;
    const started = runtime.now();
    const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : started + options.timeoutMs;
    let last: Job | undefined;
    for (;;) {
      try {
        last = await this.getJob(jobId, { signal: options.signal });
      } catch (error) {
        // A poll that got no answer is not the end of the job: try again at the next tick.
        if (!(error instanceof ConnectionError || error instanceof RequestTimeoutError)) throw error;
      }
      if (last) {
        options.onProgress?.(last);
        if (isJobStopped(last)) return last;
      }
      const now = runtime.now();
      if (now >= deadline) throw new JobWaitTimeoutError(jobId, now - started, last?.status);
      await runtime.sleep(Math.min(interval, Math.max(0, deadline - now)), options.signal);
    }
  }

  async getCredits(opts: RequestOptions = {}): Promise<CreditBalance> {
    return (await this.http.call<CreditBalance>({ method: 'GET', path: '/v1/account/credits', ...opts })).data;
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
          ? { data: { key_id: keyId, revoked: true, confirmedBy: 'own-key-refused' }, status: error.status, headers: error.headers }
          : undefined,
      ...opts,
    });
    return data ?? { key_id: keyId, revoked: true, confirmedBy: 'response' };
  }
}

export { EvfError };
