/**
 * Errors of the client. A message is the library's plain words, then the service's own reason and the
 * HTTP status; it names no platform (each adapter adds its own advice) and never contains an API key or
 * a signing secret: request headers are not kept.
 */

export class EvfError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad input found before any request was sent: nothing was charged. */
export class InputError extends EvfError {
  readonly field: string;
  readonly rule: string;
  constructor(field: string, rule: string, message: string) {
    super(message);
    this.field = field;
    this.rule = rule;
  }
}

export interface ApiErrorInit {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  method: string;
  path: string;
}

const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-correlation-id', 'cf-ray'];

/** The service answered with an error status. */
/** The service (or something in front of it) answered with an error status. */
export class ApiError extends EvfError {
  readonly status: number;
  /** Parsed JSON body when the body was JSON, else the raw text (the spec does not show the shape). */
  readonly body: unknown;
  readonly headers: Record<string, string>;
  readonly requestId: string | undefined;
  readonly method: string;
  readonly path: string;
  /** The server's own words, when its body carried a message. */
  readonly serverMessage: string | undefined;

  /** `plain`: the library's words for what happened; the server's reason and the status are added to it. */
  constructor(init: ApiErrorInit, plain?: string) {
    const serverMessage = extractServerMessage(init.body);
    super(
      withServerWords(
        plain ?? 'The email verification service refused the request.',
        init.status,
        serverMessage,
      ),
    );
    this.status = init.status;
    this.body = init.body;
    this.headers = init.headers;
    this.method = init.method;
    this.path = init.path;
    this.serverMessage = serverMessage;
    this.requestId = REQUEST_ID_HEADERS.map((h) => init.headers[h]).find(
      (v) => typeof v === 'string' && v !== '',
    );
  }
}

/** "<plain words> The service answered HTTP 403: <its reason>." One shape for every status. */
function withServerWords(plain: string, status: number, serverMessage: string | undefined): string {
  const reason = serverMessage ? `: ${serverMessage.replace(/\s+/g, ' ').trim().replace(/\.?$/, '.')}` : '.';
  return `${plain} The service answered HTTP ${status}${reason}`;
}

/** Finds a human-readable message in an error body whose shape the spec does not show. */
export function extractServerMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return plainText(body);
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['message', 'detail', 'error_description', 'reason']) {
    if (typeof record[key] === 'string' && record[key]) return record[key] as string;
  }
  if (typeof record.error === 'string' && record.error) return record.error;
  if (record.error && typeof record.error === 'object') return extractServerMessage(record.error);
  if (Array.isArray(record.detail)) {
    const parts = record.detail
      .map((d) =>
        d && typeof d === 'object' ? extractServerMessage(d) : typeof d === 'string' ? d : undefined,
      )
      .filter(Boolean);
    if (parts.length) return parts.join('; ');
  }
  return undefined;
}

/** A text body, or the title of an HTML error page from a gateway, cut to a readable length. */
function plainText(text: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  if (/^<(!doctype|html)/i.test(trimmed)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(trimmed)?.[1]?.trim();
    return title ? `an HTML page titled "${title.slice(0, 200)}"` : 'an HTML page';
  }
  return trimmed.slice(0, 500);
}

/** 400: the request was malformed in a way the client's own checks did not catch. */
export class BadRequestError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, 'The service found the request malformed.');
  }
}

/** 401: the key is missing, wrong or revoked; a new key can help. */
export class AuthenticationError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, 'The API key was refused: it is missing, wrong or revoked.');
  }
}

/** 402: out of credits. Carries the numbers when the service gave them. */
export class InsufficientCreditsError extends ApiError {
  readonly creditsRequired: number | undefined;
  readonly creditsAvailable: number | undefined;
  constructor(init: ApiErrorInit, creditsRequested?: number) {
    const required =
      numberIn(init.body, ['credits_required', 'required', 'credits_needed']) ?? creditsRequested;
    const available = numberIn(init.body, ['credits_available', 'available', 'credits', 'balance']);
    const numbers =
      required !== undefined && available !== undefined
        ? ` It needs ${required} and ${available} are left.`
        : required !== undefined
          ? ` It needs ${required}.`
          : '';
    super(init, `The account has too few credits for this request.${numbers}`);
    this.creditsRequired = required;
    this.creditsAvailable = available;
  }
}

function numberIn(body: unknown, keys: string[]): number | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const key of keys) if (typeof record[key] === 'number') return record[key] as number;
  return record.error && typeof record.error === 'object' ? numberIn(record.error, keys) : undefined;
}

/** 403: the key is valid but may not do this (e.g. an account without API access); a new key will not help. */
export class PermissionDeniedError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, 'The API key is valid, but the account may not do this.');
  }
}

export class NotFoundError extends ApiError {
  constructor(init: ApiErrorInit, what = 'The requested item') {
    super(init, `${what} was not found for this API key's account.`);
  }
}

/** 408 from POST /v1/verify/single: the mail server did not answer in 30 s; the spec refunds the credit. */
export class VerificationTimeoutError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(
      init,
      'The mail server gave no answer within 30 seconds, so the address could not be verified now; the credit was refunded. Verify it again later.',
    );
  }
}

export interface InvalidEmail {
  email: string;
  index?: number;
  reason?: string;
}

/** 422. On POST /v1/verify/bulk the spec says nothing was charged; `nothingCharged` says whether that applies. */
export class UnprocessableError extends ApiError {
  /** The addresses the server named as invalid, when its body named them. */
  readonly invalidEmails: InvalidEmail[] | undefined;
  readonly nothingCharged: boolean;
  constructor(init: ApiErrorInit, nothingCharged = false) {
    super(
      init,
      `The service refused the request as invalid.${nothingCharged ? ' Nothing was charged.' : ''}`,
    );
    this.invalidEmails = extractInvalidEmails(init.body);
    this.nothingCharged = nothingCharged;
  }
}

function extractInvalidEmails(body: unknown): InvalidEmail[] | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const nested =
    record.error && typeof record.error === 'object' ? (record.error as Record<string, unknown>) : {};
  const list = [record.invalid_emails, nested.invalid_emails, record.invalid, nested.invalid].find(
    Array.isArray,
  );
  if (!list) return undefined;
  const found: InvalidEmail[] = [];
  for (const item of list as unknown[]) {
    if (typeof item === 'string') found.push({ email: item });
    else if (item && typeof item === 'object' && typeof (item as InvalidEmail).email === 'string') {
      const { email, index, reason } = item as InvalidEmail;
      found.push({
        email,
        index: typeof index === 'number' ? index : undefined,
        reason: typeof reason === 'string' ? reason : undefined,
      });
    }
  }
  return found.length ? found : undefined;
}

/** 429: over the API allowance, which counts verified addresses. */
export class RateLimitError extends ApiError {
  /** Milliseconds to wait before retrying, from X-RateLimit-Reset (or Retry-After); undefined if not given. */
  readonly retryAfterMs: number | undefined;
  /** Epoch milliseconds when the allowance resets, when known. */
  readonly retryAt: number | undefined;
  constructor(init: ApiErrorInit, retryAfterMs: number | undefined, nowMs: number) {
    const when = retryAfterMs === undefined ? 'later' : `in about ${formatWait(retryAfterMs)}`;
    super(
      init,
      `The account's API allowance is used up for now (it counts verified addresses and is shared by all the account's keys); try again ${when}.`,
    );
    this.retryAfterMs = retryAfterMs;
    this.retryAt = retryAfterMs === undefined ? undefined : nowMs + retryAfterMs;
  }
}

/** 503: the service has paused new jobs. */
export class ServiceUnavailableError extends ApiError {
  readonly retryAfterMs: number | undefined;
  /** Epoch milliseconds when new work is taken again, when known. */
  readonly retryAt: number | undefined;
  constructor(init: ApiErrorInit, retryAfterMs: number | undefined, nowMs?: number) {
    const when = retryAfterMs === undefined ? 'later' : `in about ${formatWait(retryAfterMs)}`;
    super(init, `The service is not taking new work for now; try again ${when}.`);
    this.retryAfterMs = retryAfterMs;
    this.retryAt = retryAfterMs === undefined || nowMs === undefined ? undefined : nowMs + retryAfterMs;
  }
}

/** Any other 5xx: a problem at the service or a gateway in front of it. */
export class ServerError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, 'The email verification service, or a gateway in front of it, had a problem.');
  }
}

/** The request never got an answer (refused, reset, DNS). */
export class ConnectionError extends EvfError {}

/** No answer within the time allowed for the call. */
export class RequestTimeoutError extends EvfError {}

/** The caller aborted the call. */
export class AbortedError extends EvfError {}

/**
 * The caller's time budget (RequestOptions.deadline) was spent before this request could be sent, so
 * it was not sent: nothing was done or charged by it.
 */
export class TimeBudgetSpentError extends EvfError {
  constructor(method: string, path: string) {
    super(`The time allowed for this step ran out before ${method} ${path} was sent; it was not sent.`);
  }
}

/** What a caller needs to find out whether a POST whose answer was lost took effect. */
export interface UncertainSubmission {
  /** When the request left, as ISO 8601 (the job, if any, was created at about this time). */
  sentAt: string;
  /** How many addresses the request carried (each unique one costs a credit if it was accepted). */
  addressCount: number;
  /** The list name sent with it, if any: the easiest way to spot the job in the job list. */
  jobName?: string;
}

/**
 * A bulk submission may have reached the service, but no answer that proves what happened came back
 * (timeout, dropped connection, an abort after sending, a gateway error, an unreadable 2xx). Resending
 * could charge the list twice, so the client never does it on its own.
 */
export class SubmissionUncertainError extends EvfError implements UncertainSubmission {
  readonly sentAt: string;
  readonly addressCount: number;
  readonly jobName: string | undefined;
  constructor(cause: EvfError, submission: UncertainSubmission) {
    const named = submission.jobName ? ` named "${submission.jobName}"` : '';
    super(
      `A list of ${plural(submission.addressCount, 'address', 'addresses')}${named} was sent at ${submission.sentAt}, but no clear answer came back (${reasonOf(cause)}). ` +
        `The service may have accepted it and charged up to ${plural(submission.addressCount, 'credit')}. Look for a job created at about that time in the job list before sending the list again.`,
      { cause },
    );
    this.sentAt = submission.sentAt;
    this.addressCount = submission.addressCount;
    this.jobName = submission.jobName;
  }
}

/** The single-verification twin of SubmissionUncertainError: the address may have been verified and charged. */
export class VerificationUncertainError extends EvfError {
  readonly email: string;
  readonly sentAt: string;
  constructor(cause: EvfError, email: string, sentAt: string) {
    super(
      `The address was sent for verification at ${sentAt}, but no clear answer came back (${reasonOf(cause)}). It may have been verified and charged 1 credit; verify it again later if you need the answer.`,
      { cause },
    );
    this.email = email;
    this.sentAt = sentAt;
  }
}

/** "1 credit", "3 credits"; "1 address", "2 addresses". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function reasonOf(cause: EvfError): string {
  return cause.message.replace(/\.$/, '');
}

/**
 * One job larger than the account's whole daily API allowance: it can never be accepted as it is, so
 * waiting does not help (never a retry-later error). Smaller runs, or the dashboard upload, do.
 */
export class AllowanceExceededError extends InputError {
  /** The account's daily allowance the job was measured against; undefined when the service does not show it. */
  readonly perDay: number | undefined;
  /** Addresses in the job that was asked for. */
  readonly asked: number;
  constructor(asked: number, perDay: number | undefined, plan?: string) {
    const allowance =
      perDay === undefined
        ? `The service refused a job of ${plural(asked, 'address', 'addresses')} over the account's API allowance, which it does not show; the smallest allowance is ${SMALLEST_DAILY} addresses a day, so it may never fit at once.`
        : `A job of ${plural(asked, 'address', 'addresses')} is larger than this account's whole API allowance${plan ? ` (${plan} plan)` : ''} of ${perDay} addresses a day, so it can never be accepted at once.`;
    const most = perDay ?? SMALLEST_DAILY;
    super(
      'emails',
      'allowance',
      `${allowance} The allowance is shared by all the account's keys. Send at most ${most} addresses per run (the rest on the following days), or upload the list in the app's dashboard (up to 2,000,000 addresses, never rate-limited). Nothing was sent or charged.`,
    );
    this.perDay = perDay;
    this.asked = asked;
  }
}

/** The spec's smallest daily allowance (Starter, any top-up); kept here so errors.ts imports nothing. */
const SMALLEST_DAILY = 10_000;

/** Why a list stopped part way with addresses left to send later. */
export type StoppedBy = 'allowance' | 'paused' | 'time_budget';

/** What a stop's cause says about when the rest can go: the service's own time, as ISO 8601. */
export function stopOf(cause: unknown): { stoppedBy?: StoppedBy; retryAt?: string } {
  if (cause instanceof RateLimitError) return { stoppedBy: 'allowance', retryAt: isoOf(cause.retryAt) };
  if (cause instanceof ServiceUnavailableError) return { stoppedBy: 'paused', retryAt: isoOf(cause.retryAt) };
  if (cause instanceof TimeBudgetSpentError) return { stoppedBy: 'time_budget' };
  return {};
}

function isoOf(ms: number | undefined): string | undefined {
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

/** A chunk of a long list whose outcome is unknown: it may be a job already, or nothing. */
export interface UncertainChunk {
  emails: string[];
  error: SubmissionUncertainError;
}

/**
 * A long list stopped part way. It says exactly what happened to every address, so the caller can
 * resume without paying twice: `accepted` jobs are charged; `uncertain` may be; `unsent` never left.
 */
export class PartialSubmissionError extends EvfError {
  readonly accepted: BulkSubmissionLike[];
  readonly uncertain: UncertainChunk | undefined;
  readonly unsent: string[];
  /** When the unsent addresses can go (ISO 8601), when the stop said: a 429's reset, a 503's Retry-After. */
  readonly retryAt: string | undefined;
  /** The allowance (429), paused new jobs (503) or the caller's time budget; undefined for other stops. */
  readonly stoppedBy: StoppedBy | undefined;
  constructor(
    cause: EvfError,
    accepted: BulkSubmissionLike[],
    uncertain: UncertainChunk | undefined,
    unsent: string[],
  ) {
    const ids = accepted.map((j) => j.job_id);
    const { stoppedBy, retryAt } = stopOf(cause);
    const parts = [
      ids.length
        ? `${ids.length} job(s) were accepted and charged (${ids.join(', ')})`
        : 'no job was accepted',
      uncertain
        ? `${uncertain.emails.length} addresses were sent with no clear answer and may be a job already`
        : '',
      `${unsent.length} addresses were not sent${retryAt ? ` and can be sent after ${retryAt}` : ''}`,
    ].filter(Boolean);
    super(`The list was submitted only in part: ${parts.join('; ')}. What stopped it: ${cause.message}`, {
      cause,
    });
    this.accepted = accepted;
    this.uncertain = uncertain;
    this.unsent = unsent;
    this.retryAt = retryAt;
    this.stoppedBy = stoppedBy;
  }

  /** The ids of the jobs that were accepted (and charged). */
  get submittedJobIds(): string[] {
    return this.accepted.map((j) => j.job_id);
  }
}

/** The part of a bulk submission response this error needs (kept structural to avoid a type cycle). */
export interface BulkSubmissionLike {
  job_id: string;
  total_emails?: number;
  credits_used?: number;
}

export class JobWaitTimeoutError extends EvfError {
  readonly jobId: string;
  readonly lastStatus: string | undefined;
  constructor(jobId: string, waitedMs: number, lastStatus: string | undefined) {
    super(
      `Job ${jobId} was still ${lastStatus ?? 'running'} after ${formatWait(waitedMs)}. It keeps running on the service; read it again later or wait longer.`,
    );
    this.jobId = jobId;
    this.lastStatus = lastStatus;
  }
}

export function formatWait(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s === 1) return '1 second';
  if (s < 120) return `${s} seconds`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} minutes`;
  return `${Math.round(m / 60)} hours`;
}
