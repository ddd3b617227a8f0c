/**
 * Errors of the client. Messages are written for people who build zaps and workflows, not for
 * programmers, and they never contain an API key or a signing secret: request headers are not kept.
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

  constructor(init: ApiErrorInit, message?: string) {
    const serverMessage = extractServerMessage(init.body);
    super(message ?? defaultMessage(init.status, serverMessage));
    this.status = init.status;
    this.body = init.body;
    this.headers = init.headers;
    this.method = init.method;
    this.path = init.path;
    this.serverMessage = serverMessage;
    this.requestId = REQUEST_ID_HEADERS.map((h) => init.headers[h]).find((v) => typeof v === 'string' && v !== '');
  }
}

function defaultMessage(status: number, serverMessage: string | undefined): string {
  const suffix = serverMessage ? ` The service said: ${serverMessage}` : '';
  return `The email verification service answered with HTTP ${status}.${suffix}`;
}

/** Finds a human-readable message in an error body whose shape the spec does not show. */
export function extractServerMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() ? body.trim().slice(0, 500) : undefined;
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['message', 'detail', 'error_description', 'reason']) {
    if (typeof record[key] === 'string' && record[key]) return record[key] as string;
  }
  if (typeof record.error === 'string' && record.error) return record.error;
  if (record.error && typeof record.error === 'object') return extractServerMessage(record.error);
  if (Array.isArray(record.detail)) {
    const parts = record.detail
      .map((d) => (d && typeof d === 'object' ? extractServerMessage(d) : typeof d === 'string' ? d : undefined))
      .filter(Boolean);
    if (parts.length) return parts.join('; ');
  }
  return undefined;
}

export class AuthenticationError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(
      init,
      'The API key was refused (missing, wrong or revoked). Create a key in the app under Profile, then API, and reconnect.',
    );
  }
}

export class InsufficientCreditsError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, 'Your account is out of credits. Buy credits or a plan in the app, then run this step again. Nothing was charged.');
  }
}

export class NotFoundError extends ApiError {
  constructor(init: ApiErrorInit, what = 'The requested item') {
    super(init, `${what} was not found. Check the ID; it may belong to another account or key.`);
  }
}

export class VerificationTimeoutError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(
      init,
      'The mail server gave no answer within 30 seconds, so the address could not be verified now. The credit was refunded; verify it again later.',
    );
  }
}

export interface InvalidEmail {
  email: string;
  index?: number;
  reason?: string;
}

export class UnprocessableError extends ApiError {
  /** The addresses the server named as invalid, when its body named them. */
  readonly invalidEmails: InvalidEmail[] | undefined;
  constructor(init: ApiErrorInit) {
    const invalidEmails = extractInvalidEmails(init.body);
    const reason = extractServerMessage(init.body);
    super(init, `The service refused the request: ${reason ?? 'a field broke one of its rules'}. Nothing was charged.`);
    this.invalidEmails = invalidEmails;
  }
}

function extractInvalidEmails(body: unknown): InvalidEmail[] | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const nested = record.error && typeof record.error === 'object' ? (record.error as Record<string, unknown>) : {};
  const list = [record.invalid_emails, nested.invalid_emails, record.invalid, nested.invalid].find(Array.isArray);
  if (!list) return undefined;
  const found: InvalidEmail[] = [];
  for (const item of list as unknown[]) {
    if (typeof item === 'string') found.push({ email: item });
    else if (item && typeof item === 'object' && typeof (item as InvalidEmail).email === 'string') {
      const { email, index, reason } = item as InvalidEmail;
      found.push({ email, index: typeof index === 'number' ? index : undefined, reason: typeof reason === 'string' ? reason : undefined });
    }
  }
  return found.length ? found : undefined;
}

export class RateLimitError extends ApiError {
  /** Milliseconds to wait before retrying, from X-RateLimit-Reset (or Retry-After); undefined if not given. */
  readonly retryAfterMs: number | undefined;
  /** Epoch milliseconds when the allowance resets, when known. */
  readonly retryAt: number | undefined;
  constructor(init: ApiErrorInit, retryAfterMs: number | undefined, nowMs: number) {
    const when = retryAfterMs === undefined ? 'later' : `in about ${formatWait(retryAfterMs)}`;
    super(init, `The API allowance of your plan is used up for now. Try again ${when}; allowances count verified addresses.`);
    this.retryAfterMs = retryAfterMs;
    this.retryAt = retryAfterMs === undefined ? undefined : nowMs + retryAfterMs;
  }
}

export class ServiceUnavailableError extends ApiError {
  readonly retryAfterMs: number | undefined;
  constructor(init: ApiErrorInit, retryAfterMs: number | undefined) {
    const when = retryAfterMs === undefined ? 'later' : `in about ${formatWait(retryAfterMs)}`;
    super(init, `The service has paused new jobs for now. Try again ${when}. Nothing was charged.`);
    this.retryAfterMs = retryAfterMs;
  }
}

export class ServerError extends ApiError {
  constructor(init: ApiErrorInit) {
    super(init, `The email verification service had an internal problem (HTTP ${init.status}). Try again in a few minutes.`);
  }
}

/** The request never got an answer (refused, reset, DNS). */
export class ConnectionError extends EvfError {}

/** No answer within the time allowed for the call. */
export class RequestTimeoutError extends EvfError {}

/** The caller aborted the call. */
export class AbortedError extends EvfError {}

/**
 * A bulk submission may have reached the server but no answer came back. Resending could charge the
 * list twice, so the client never does it on its own.
 */
export class SubmissionUncertainError extends EvfError {
  constructor(cause: unknown) {
    super(
      'The list was sent but no answer came back, so it may have been accepted and charged. Check your recent jobs (GET /v1/jobs, or the "Get Many Jobs" operation) before submitting it again.',
      { cause },
    );
  }
}

/** Part of a long list was submitted before an error stopped the rest. */
export class PartialSubmissionError extends EvfError {
  readonly submittedJobIds: string[];
  readonly unsubmittedCount: number;
  constructor(cause: EvfError, submittedJobIds: string[], unsubmittedCount: number) {
    super(
      `${submittedJobIds.length} job(s) were submitted (${submittedJobIds.join(', ')}), then the rest (${unsubmittedCount} addresses) stopped: ${cause.message}`,
      { cause },
    );
    this.submittedJobIds = submittedJobIds;
    this.unsubmittedCount = unsubmittedCount;
  }
}

export class JobWaitTimeoutError extends EvfError {
  readonly jobId: string;
  readonly lastStatus: string | undefined;
  constructor(jobId: string, waitedMs: number, lastStatus: string | undefined) {
    super(
      `Job ${jobId} was still ${lastStatus ?? 'running'} after ${formatWait(waitedMs)}. It keeps running on the service; read it again later or raise the timeout.`,
    );
    this.jobId = jobId;
    this.lastStatus = lastStatus;
  }
}

export function formatWait(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 120) return `${s} seconds`;
  const m = Math.round(s / 60);
  if (m < 120) return `${m} minutes`;
  return `${Math.round(m / 60)} hours`;
}
