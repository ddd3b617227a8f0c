import {
  AbortedError,
  ApiError,
  TimeBudgetSpentError,
  type ApiErrorInit,
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  EvfError,
  InsufficientCreditsError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RequestTimeoutError,
  ServerError,
  ServiceUnavailableError,
  UnprocessableError,
  VerificationTimeoutError,
} from '../errors';
import { backoffDelay, parseRetryHeader } from './retry';
import type { Runtime } from './runtime';
import { type HttpMethod, type Transport, TransportError, type TransportResponse } from './transport';

export interface RetryOptions {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * The longest server-requested wait (429/503) the client sits through by itself. Beyond it the error
   * is thrown with its retryAfterMs, so a platform can reschedule (Zapier throttling, n8n fail clearly).
   */
  maxServerWaitMs: number;
}

export const DEFAULT_RETRY: RetryOptions = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 15_000,
  maxServerWaitMs: 60_000,
};

export interface RequestOptions {
  /** Time allowed for one attempt, in milliseconds. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * The caller's time budget, as a time of the runtime's clock (epoch ms): every attempt, retry pause and
   * server-requested wait fits before it. An attempt is cut to the time left; a wait that would end after
   * it is not taken (the error that asked for it is thrown); with no time left nothing is sent
   * (TimeBudgetSpentError). For platforms that stop a step at a fixed time (Zapier: 30 s).
   */
  deadline?: number;
}

export interface CallSpec extends RequestOptions {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** What a 404 means for this call, in words. */
  notFound?: string;
  /**
   * For calls that cost credits (the POSTs): the error to throw when the request may have been acted on
   * but no answer proves what happened. Such a request is never sent again by the client. `sentAt` is
   * when the attempt left (epoch ms).
   */
  onUncertain?: (cause: EvfError, sentAt: number) => EvfError;
  /** Credits the call costs if accepted, for a 402's message when the service does not say. */
  credits?: number;
  /** The spec's 408 on this endpoint: no answer from the mail server in 30 s, credit refunded. */
  verificationTimeout?: boolean;
  /** The spec's 422 on this endpoint charges nothing. */
  unprocessableChargesNothing?: boolean;
  /**
   * An earlier attempt of this (idempotent) call may have taken effect but its answer was lost; given
   * the error the resent attempt got, return the result that error proves, or undefined to throw it.
   */
  afterLostAnswer?: (error: ApiError) => HttpResult<unknown> | undefined;
}

export interface HttpCoreOptions {
  baseUrl: string;
  apiKey?: string;
  transport: Transport;
  runtime: Runtime;
  timeoutMs: number;
  retry: RetryOptions;
  userAgent?: string;
  /** Called once per attempt (for request accounting in tests and benchmarks). */
  onRequest?: (info: { method: HttpMethod; path: string; attempt: number }) => void;
}

export interface HttpResult<T> {
  data: T;
  status: number;
  headers: Record<string, string>;
}

/** One place that sends, retries and maps errors, so every endpoint gets the same rules. */
export class HttpCore {
  constructor(private readonly options: HttpCoreOptions) {}

  get runtime(): Runtime {
    return this.options.runtime;
  }

  async call<T>(spec: CallSpec): Promise<HttpResult<T>> {
    const { runtime, transport, retry } = this.options;
    const url = this.buildUrl(spec.path, spec.query);
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.options.apiKey) headers['X-API-Key'] = this.options.apiKey;
    if (this.options.userAgent) headers['User-Agent'] = this.options.userAgent;
    let body: string | undefined;
    if (spec.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(spec.body);
    }
    const costsCredits = spec.onUncertain !== undefined;
    let answerLost = false;

    const deadline = spec.deadline;
    for (let attempt = 0; ; attempt++) {
      if (spec.signal?.aborted) throw new AbortedError('The request was cancelled before it was sent.');
      const sentAt = runtime.now();
      const left = deadline === undefined ? Number.POSITIVE_INFINITY : deadline - sentAt;
      if (left <= 0) throw new TimeBudgetSpentError(spec.method, spec.path);
      this.options.onRequest?.({ method: spec.method, path: spec.path, attempt });
      let response: TransportResponse;
      try {
        response = await transport({
          method: spec.method,
          url,
          headers,
          body,
          timeoutMs: Math.min(spec.timeoutMs ?? this.options.timeoutMs, left),
          signal: spec.signal,
        });
      } catch (error) {
        const failure = toClientError(error);
        const provablyNotSent = error instanceof TransportError && error.sent === false;
        // An abort or a timeout after sending says nothing about what the service did with it.
        if (costsCredits && !provablyNotSent) throw spec.onUncertain!(failure, sentAt);
        if (failure instanceof AbortedError || attempt >= retry.maxRetries) throw failure;
        answerLost ||= !provablyNotSent;
        const backoff = backoffDelay(attempt, runtime.random, retry);
        if (!this.fitsBefore(deadline, backoff)) throw failure;
        await this.pause(backoff, spec.signal);
        continue;
      }

      if (response.status >= 200 && response.status < 300) {
        let data: T;
        try {
          data = parseBody(response, spec) as T;
        } catch (error) {
          // A success whose body cannot be read still means the service acted.
          if (costsCredits) throw spec.onUncertain!(error as EvfError, sentAt);
          throw error;
        }
        return { data, status: response.status, headers: response.headers };
      }

      const error = this.toApiError(response, spec);
      if (answerLost && spec.afterLostAnswer) {
        const proven = spec.afterLostAnswer(error);
        if (proven) return proven as HttpResult<T>;
      }
      const refusal = isServiceRefusal(error);
      if (costsCredits && !refusal && !isDefiniteRefusal(error)) throw spec.onUncertain!(error, sentAt);
      // A call that costs credits is sent again only after the service's own "not now" (429/503).
      const retryable = costsCredits
        ? refusal
        : error instanceof RateLimitError ||
          error instanceof ServiceUnavailableError ||
          error instanceof ServerError;
      if (!retryable || attempt >= retry.maxRetries) throw error;
      const serverWait =
        error instanceof RateLimitError || error instanceof ServiceUnavailableError
          ? error.retryAfterMs
          : undefined;
      if (serverWait !== undefined && serverWait > retry.maxServerWaitMs) throw error;
      const wait = serverWait ?? backoffDelay(attempt, runtime.random, retry);
      if (!this.fitsBefore(deadline, wait)) throw error;
      await this.pause(wait, spec.signal);
    }
  }

  /** Per-attempt timeout used when a call sets none. */
  get defaultTimeoutMs(): number {
    return this.options.timeoutMs;
  }

  /** A wait is worth taking only when a further attempt can still start after it, before the deadline. */
  private fitsBefore(deadline: number | undefined, waitMs: number): boolean {
    return deadline === undefined || this.options.runtime.now() + waitMs < deadline;
  }

  private async pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.options.runtime.sleep(ms, signal);
    } catch (error) {
      if (signal?.aborted) throw new AbortedError('The request was cancelled while waiting to retry.');
      throw error;
    }
  }

  buildUrl(path: string, query?: CallSpec['query']): string {
    const base = this.options.baseUrl.replace(/\/+$/, '');
    const params: string[] = [];
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined) params.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
    }
    return `${base}${path}${params.length ? `?${params.join('&')}` : ''}`;
  }

  private toApiError(response: TransportResponse, spec: CallSpec): ApiError {
    const init: ApiErrorInit = {
      status: response.status,
      body: parseLoose(response.body),
      headers: response.headers,
      method: spec.method,
      path: spec.path,
    };
    const now = this.options.runtime.now();
    switch (response.status) {
      case 400:
        return new BadRequestError(init);
      case 401:
        return new AuthenticationError(init);
      case 402:
        return new InsufficientCreditsError(init, spec.credits);
      case 403:
        return new PermissionDeniedError(init);
      case 404:
        return new NotFoundError(init, spec.notFound);
      case 408:
        return spec.verificationTimeout
          ? new VerificationTimeoutError(init)
          : new ApiError(init, 'The request timed out at the service or at a gateway in front of it.');
      case 422:
        return new UnprocessableError(init, spec.unprocessableChargesNothing === true);
      case 429:
        return new RateLimitError(
          init,
          parseRetryHeader(response.headers['x-ratelimit-reset'], now) ??
            parseRetryHeader(response.headers['retry-after'], now),
          now,
        );
      case 503:
        return new ServiceUnavailableError(init, parseRetryHeader(response.headers['retry-after'], now), now);
      default:
        return response.status >= 500 ? new ServerError(init) : new ApiError(init);
    }
  }
}

/**
 * The service's own "not now": a 429 with X-RateLimit-Reset or a 503 with Retry-After, each with a JSON
 * error body, as the spec describes them. Such an answer proves nothing was done. A bare 503 from a
 * gateway (an HTML page, no wait header) proves nothing: the service behind it may have acted.
 */
function isServiceRefusal(error: ApiError): boolean {
  const jsonBody = error.body !== null && typeof error.body === 'object';
  if (error instanceof RateLimitError)
    return jsonBody && error.headers['x-ratelimit-reset'] !== undefined && error.retryAfterMs !== undefined;
  if (error instanceof ServiceUnavailableError) return jsonBody && error.retryAfterMs !== undefined;
  return false;
}

/** Statuses that say the request was refused as it stood: 4xx but the timeout and "not now" ones. */
function isDefiniteRefusal(error: ApiError): boolean {
  if (error instanceof VerificationTimeoutError) return true; // the spec: no answer, credit refunded
  return error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

function parseLoose(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function parseBody(response: TransportResponse, spec: CallSpec): unknown {
  if (response.status === 204 || response.body === '') return undefined;
  try {
    return JSON.parse(response.body);
  } catch {
    throw new ApiError(
      {
        status: response.status,
        body: undefined,
        headers: response.headers,
        method: spec.method,
        path: spec.path,
      },
      `The answer to ${spec.method} ${spec.path} was not the JSON the service sends: the base URL may point elsewhere (it must end in /api), or the answer was cut short.`,
    );
  }
}

function toClientError(error: unknown): EvfError {
  if (error instanceof TransportError) {
    if (error.kind === 'aborted') return new AbortedError('The request was cancelled.', { cause: error });
    if (error.kind === 'timeout') {
      return new RequestTimeoutError('The email verification service did not answer in time.', {
        cause: error,
      });
    }
    return new ConnectionError(`Could not reach the email verification service: ${error.message}`, {
      cause: error,
    });
  }
  if (error instanceof EvfError) return error;
  return new ConnectionError(
    `Could not reach the email verification service: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}
