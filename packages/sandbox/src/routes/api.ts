import type { IncomingMessage } from 'node:http';
import type { SandboxContext } from '../context';
import type { Account } from '../engine/accounts';
import { jobListItem, jobView } from '../engine/jobs';
import { outcomeKind, resultRow } from '../engine/outcomes';
import { HttpError, fieldError } from '../http/errors';
import { intParam, readJsonObject } from '../http/io';
import { formatWaitHeader, type Reply } from '../http/reply';
import {
  addressProblem,
  hostOf,
  isIp,
  isLoopbackHost,
  JOB_STATUSES,
  LIMITS,
  resolvedAddressViolations,
  type BulkSubmission,
  type CreditBalance,
  type JobList,
  type ResultsPage,
  type SingleResult,
  type WebhookUrlViolation,
} from '../rules';
import { validateBulkBody, webhookUrlRefused } from './validate-bulk';

interface RouteInput {
  ctx: SandboxContext;
  req: IncomingMessage;
  account: Account;
  params: string[];
  query: URLSearchParams;
}

interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** The spec's path, {name} for a path parameter. */
  path: string;
  /** Every status the route answers (with AUTH_STATUSES); anything else is a sandbox bug (see handleApi). */
  statuses: readonly number[];
  handler: (input: RouteInput) => Promise<Reply> | Reply;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function renewalDate(account: Account, now: number): string {
  const period = 30 * DAY_MS;
  const periods = Math.floor((now - account.createdAt) / period) + 1;
  return new Date(account.createdAt + periods * period).toISOString();
}

/**
 * 429 when the account's shared allowance cannot take `count` more addresses now. X-RateLimit-Reset is
 * when this request would fit; a request larger than a window's whole limit never fits, and says so.
 */
function checkAllowance(ctx: SandboxContext, account: Account, count: number): void {
  if (!account.allowance) return;
  const now = ctx.clock.now();
  const decision = account.usage.check(account.allowance, count, now);
  if (decision.ok) return;
  const reset = formatWaitHeader(decision.resetAt!, now, ctx.rateLimitResetFormat);
  const shared = `This account's API allowance is ${decision.limit} addresses per ${decision.window}, shared by all its keys`;
  const message = decision.neverFits
    ? `${shared}: a request of ${count} addresses is larger than the whole allowance and can never be accepted at once. Send at most ${decision.limit} per request, or upload the list in the dashboard.`
    : `${shared}; ${decision.used} are used. Wait until the time in X-RateLimit-Reset.`;
  throw new HttpError(
    429,
    'rate_limited',
    message,
    {
      window: decision.window,
      limit: decision.limit,
      used: decision.used,
      requested: count,
      ...(decision.neverFits ? { never_fits: true } : {}),
    },
    {
      'X-RateLimit-Reset': reset,
      'X-RateLimit-Limit': String(decision.limit),
      'X-RateLimit-Remaining': String(Math.max(0, decision.limit! - decision.used!)),
    },
  );
}

function checkCredits(account: Account, needed: number): void {
  if (account.ledger.canAfford(needed)) return;
  throw new HttpError(
    402,
    'insufficient_credits',
    `This call needs ${needed} credits and the balance is ${account.ledger.credits}; nothing was charged. Buy credits or a top-up in the app.`,
    { credits_required: needed, credits_available: account.ledger.credits },
  );
}

async function verifySingle({ ctx, req, account }: RouteInput): Promise<Reply> {
  const body = await readJsonObject(req, ctx.maxBodyBytes);
  const { email, check_smtp: checkSmtp } = body;
  if (typeof email !== 'string' || email === '')
    throw fieldError('email', 'required', 'email is required: the address to verify.');
  if (checkSmtp !== undefined && checkSmtp !== null && typeof checkSmtp !== 'boolean') {
    throw fieldError('check_smtp', 'type', 'check_smtp must be true or false.');
  }
  const problem = addressProblem(email);
  if (problem) {
    // Malformed addresses are free: refused before anything is charged.
    throw new HttpError(422, 'invalid_email', `The address ${problem}; nothing was charged.`, {
      field: 'email',
      rule: 'email_syntax',
      reason: problem,
    });
  }
  checkAllowance(ctx, account, 1);
  checkCredits(account, 1);
  const chargedAt = ctx.clock.now();
  account.ledger.charge(1, chargedAt, 'single');
  account.usage.record(1, chargedAt);
  const smtp = checkSmtp !== false;
  if (smtp && outcomeKind(email) === 'slow') {
    await ctx.clock.sleep(LIMITS.singleVerificationWaitMs);
    account.ledger.refund(1, ctx.clock.now(), 'single:timeout');
    throw new HttpError(
      408,
      'verification_timeout',
      'The mail server gave no answer within 30 seconds; the credit was refunded. Try again later or verify it in a bulk job.',
      { email, credits_refunded: 1 },
    );
  }
  await ctx.clock.sleep(ctx.singleLatencyMs);
  const result: SingleResult = {
    ...resultRow(email, { checkSmtp: smtp }),
    credits_used: 1,
    credits_remaining: account.ledger.credits,
    processed_at: ctx.clock.nowIso(),
  };
  return { status: 200, body: result };
}

/**
 * The submission-time half of "resolves to a public address" (spec, webhook_url rules: "checked at
 * submission and again before every delivery"). A host that does not resolve is refused like one that
 * resolves privately: accepting it would charge for a list whose five deliveries can only fail.
 */
async function resolvedViolations(ctx: SandboxContext, url: string): Promise<WebhookUrlViolation[]> {
  const host = hostOf(new URL(url));
  if (isIp(host)) return []; // an IP literal was judged by its text already
  if (ctx.allowInsecureWebhooks && isLoopbackHost(host)) return [];
  let addresses: string[];
  try {
    addresses = await ctx.resolver(host);
  } catch {
    addresses = [];
  }
  return resolvedAddressViolations(host, addresses);
}

async function submitBulk({ ctx, req, account }: RouteInput): Promise<Reply> {
  const body = await readJsonObject(req, ctx.maxBodyBytes);
  const request = validateBulkBody(body, ctx.allowInsecureWebhooks);
  if (request.webhookUrl) {
    const violations = await resolvedViolations(ctx, request.webhookUrl);
    if (violations.length) throw webhookUrlRefused(violations);
  }
  const now = ctx.clock.now();
  const at = ctx.faults.refuseNewJobUntil(now, (ms) => ctx.clock.scaled(ms));
  if (at !== null) {
    throw new HttpError(
      503,
      'new_jobs_paused',
      'New jobs are paused for maintenance; nothing was charged. Retry after the time in Retry-After.',
      {},
      {
        'Retry-After': formatWaitHeader(at, now, ctx.retryAfterFormat),
      },
    );
  }
  const count = request.unique.length;
  checkAllowance(ctx, account, count);
  checkCredits(account, count);
  const job = ctx.jobs.create(account, {
    emails: request.unique,
    name: request.name,
    priority: request.priority,
    checkSmtp: request.checkSmtp,
    webhookUrl: request.webhookUrl,
  });
  account.ledger.charge(count, job.createdAt, job.id);
  account.usage.record(count, job.createdAt);
  ctx.faults.jobCreated();
  const submission: BulkSubmission = {
    job_id: job.id,
    status: 'queued',
    total_emails: count,
    estimated_seconds: ctx.jobs.estimatedSeconds(count),
    credits_used: count,
    credits_remaining: account.ledger.credits,
    created_at: new Date(job.createdAt).toISOString(),
  };
  return { status: 202, body: submission };
}

function jobOr404({ ctx, account, params }: RouteInput) {
  const job = ctx.jobs.get(account, decodeURIComponent(params[0]!));
  if (!job) throw new HttpError(404, 'job_not_found', 'No job with this id exists for this account.');
  return job;
}

function getJob(input: RouteInput): Reply {
  return { status: 200, body: jobView(jobOr404(input)) };
}

function getResults(input: RouteInput): Reply {
  const job = jobOr404(input);
  const page = intParam(input.query, 'page', { def: 1, min: 1 });
  const perPage = intParam(input.query, 'per_page', {
    def: LIMITS.defaultPerPage,
    min: 1,
    max: LIMITS.maxPerPage,
  });
  const offset = (page - 1) * perPage;
  // Read `processed` once: rows, total and has_more describe the same moment.
  const stored = job.processed;
  const body: ResultsPage = {
    job_id: job.id,
    // The page carries the job status: has_more false on a job still processing means "caught up for
    // now", and a reader that wants every row waits and reads the same page again.
    status: job.status,
    total: stored,
    page,
    per_page: perPage,
    has_more: offset + perPage < stored,
    results: offset < stored ? input.ctx.jobs.rows(job, offset, Math.min(perPage, stored - offset)) : [],
  };
  return { status: 200, body };
}

function listJobs({ ctx, account, query }: RouteInput): Reply {
  const status = query.get('status') ?? undefined;
  if (status !== undefined && status !== '' && !(JOB_STATUSES as readonly string[]).includes(status)) {
    throw fieldError('status', 'enum', `status must be one of ${JOB_STATUSES.join(', ')}.`);
  }
  const limit = intParam(query, 'limit', { def: LIMITS.defaultJobsLimit, min: 1, max: LIMITS.maxJobsLimit });
  const offset = intParam(query, 'offset', { def: 0, min: 0 });
  const body: JobList = {
    jobs: ctx.jobs.list(account, { status: status || undefined, limit, offset }).map(jobListItem),
    limit,
    offset,
  };
  return { status: 200, body };
}

function credits({ ctx, account }: RouteInput): Reply {
  const now = ctx.clock.now();
  const body: CreditBalance = {
    credits: account.ledger.credits,
    credits_used_today: account.ledger.usedToday(now),
    credits_used_this_month: account.ledger.usedThisMonth(now),
    plan_limit: null,
    renewal_date: renewalDate(account, now),
  };
  return { status: 200, body };
}

/**
 * The spec shows plan, credits and credits_used_today and calls the further fields "not shown": those are
 * all a client may rely on. A top-up-only account has plan null; its allowance is still enforced.
 */
function accountInfo({ ctx, account }: RouteInput): Reply {
  const now = ctx.clock.now();
  const shown = {
    plan: account.plan,
    credits: account.ledger.credits,
    credits_used_today: account.ledger.usedToday(now),
  };
  if (!ctx.accountExtras) return { status: 200, body: shown };
  return {
    status: 200,
    body: {
      ...shown,
      credits_used_this_month: account.ledger.usedThisMonth(now),
      account_id: account.id,
      name: account.name,
      email: account.email,
      top_up_total: account.topUpTotal,
      api_allowance: {
        keys: account.allowance?.keys ?? null,
        per_hour: account.allowance?.perHour ?? null,
        per_day: account.allowance?.perDay ?? null,
      },
      created_at: new Date(account.createdAt).toISOString(),
    },
  };
}

function subscription({ ctx, account }: RouteInput): Reply {
  return {
    status: 200,
    body: {
      status: account.plan ? 'active' : 'none',
      plan: account.plan,
      credits: account.ledger.credits,
      renewal_date: renewalDate(account, ctx.clock.now()),
      has_billing: account.plan !== null,
      is_trial: false,
      trial_expired: false,
    },
  };
}

function revokeKey({ ctx, account, params }: RouteInput): Reply {
  if (!ctx.accounts.revoke(account, decodeURIComponent(params[0]!))) {
    throw new HttpError(404, 'key_not_found', 'No API key with this id exists for this account.');
  }
  return { status: 204 };
}

/** Every route checks the key first: missing, unknown or revoked (401); account without API access (403). */
export const AUTH_STATUSES: readonly number[] = [401, 403];
/** A route that reads a JSON body: empty or not an object (400), too large (413), a field breaks a rule (422). */
const BODY_STATUSES = [400, 413, 422];

const ROUTES: Route[] = [
  {
    method: 'POST',
    path: '/v1/verify/single',
    statuses: [200, ...BODY_STATUSES, 402, 408, 429],
    handler: verifySingle,
  },
  {
    method: 'POST',
    path: '/v1/verify/bulk',
    statuses: [202, ...BODY_STATUSES, 402, 429, 503],
    handler: submitBulk,
  },
  { method: 'GET', path: '/v1/jobs', statuses: [200, 422], handler: listJobs },
  { method: 'GET', path: '/v1/jobs/{job_id}', statuses: [200, 404], handler: getJob },
  { method: 'GET', path: '/v1/jobs/{job_id}/results', statuses: [200, 404, 422], handler: getResults },
  { method: 'GET', path: '/v1/account/credits', statuses: [200], handler: credits },
  { method: 'GET', path: '/v1/account', statuses: [200], handler: accountInfo },
  { method: 'GET', path: '/v1/subscription', statuses: [200], handler: subscription },
  { method: 'DELETE', path: '/v1/keys/{key_id}', statuses: [204, 404], handler: revokeKey },
];

const PATTERNS = new Map(
  ROUTES.map((r) => [r, new RegExp(`^${r.path.replace(/\{[a-z_]+\}/g, '([^/]+)')}$`)] as const),
);

/** What each endpoint can answer, for the test that holds the contract to it. */
export const ROUTE_STATUSES: ReadonlyArray<{ method: string; path: string; statuses: readonly number[] }> =
  ROUTES.map(({ method, path, statuses }) => ({
    method,
    path,
    statuses: [...statuses, ...AUTH_STATUSES].sort(),
  }));

/** Routes a request under the base URL (path without /api); unknown routes 404 before any key check. */
export async function handleApi(
  ctx: SandboxContext,
  req: IncomingMessage,
  path: string,
  query: URLSearchParams,
): Promise<Reply> {
  const method = (req.method ?? 'GET').toUpperCase();
  const candidates = ROUTES.map((r) => ({ route: r, match: PATTERNS.get(r)!.exec(path) })).filter(
    (c) => c.match,
  );
  if (candidates.length === 0)
    throw new HttpError(
      404,
      'not_found',
      `No endpoint ${path} exists. Endpoints are under {base_url}/v1/...`,
    );
  const hit = candidates.find((c) => c.route.method === method);
  if (!hit) {
    const allowed = candidates.map((c) => c.route.method).join(', ');
    throw new HttpError(405, 'method_not_allowed', `${path} accepts ${allowed}.`, {}, { Allow: allowed });
  }
  const account = ctx.accounts.authenticate(req.headers['x-api-key']);
  const { route } = hit;
  let reply: Reply;
  try {
    reply = await route.handler({ ctx, req, account, params: hit.match!.slice(1), query });
  } catch (err) {
    if (!(err instanceof HttpError) || route.statuses.includes(err.status)) throw err;
    reply = { status: err.status };
  }
  // The route table is what the contract test holds the contract to, so it must be the whole truth:
  // a status a route did not declare is answered as the sandbox's own failure, and fails the test that met it.
  if (!route.statuses.includes(reply.status)) {
    throw new Error(
      `${route.method} ${route.path} answered ${reply.status}, which its route does not declare`,
    );
  }
  return reply;
}
