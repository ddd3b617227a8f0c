import {
  AbortedError,
  ApiError,
  type ApiErrorInit,
  AuthenticationError,
  ConnectionError,
  EvfError,
  InsufficientCreditsError,
  NotFoundError,
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

export const DEFAULT_RETRY: RetryOptions = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 15_000, maxServerWaitMs: 60_000 };

export interface RequestOptions {
  /** Time allowed for one attempt, in milliseconds. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface CallSpec extends RequestOptions {
  method: HttpMethod;
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** What a 404 means for this call, in words. */
  notFound?: string;
  /**
   * For POSTs: the error to throw when the request may have reached the server but no answer came back.
   * Such a request is never sent again by the client.
   */
  onUncertain?: (cause: EvfError) => EvfError;
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
    const isPost = spec.method === 'POST';

    for (let attempt = 0; ; attempt++) {
      if (spec.signal?.aborted) throw new AbortedError('The request was cancelled before it was sent.');
      this.options.onRequest?.({ method: spec.method, path: spec.path, attempt });
      let response: TransportResponse;
      try {
        response = await transport({
          method: spec.method,
          url,
          headers,
          body,
          timeoutMs: spec.timeoutMs ?? this.options.timeoutMs,
          signal: spec.signal,
        });
      } catch (error) {
        const failure = toClientError(error);
        if (failure instanceof AbortedError) throw failure;
        const mayResend = !isPost || (error instanceof TransportError && error.sent === false);
        if (!mayResend) throw spec.onUncertain ? spec.onUncertain(failure) : failure;
        if (attempt >= retry.maxRetries) throw failure;
        await this.pause(backoffDelay(attempt, runtime.random, retry), spec.signal);
        continue;
      }

      if (response.status >= 200 && response.status < 300) {
        return { data: parseBody(response, spec) as T, status: response.status, headers: response.headers };
      }

      const error = this.toApiError(response, spec);
      const serverWait = error instanceof RateLimitError || error instanceof ServiceUnavailableError ? error.retryAfterMs : undefined;
      // 429 and 503 say the server did not take the request: safe to send again, POST included.
      const retryable =
        error instanceof RateLimitError ||
        error instanceof ServiceUnavailableError ||
        (!isPost && error instanceof ServerError);
      if (isPost && error instanceof ServerError && spec.onUncertain) throw spec.onUncertain(error);
      if (!retryable || attempt >= retry.maxRetries) throw error;
      if (serverWait !== undefined && serverWait > retry.maxServerWaitMs) throw error;
      const wait = serverWait ?? backoffDelay(attempt, runtime.random, retry);
      await this.pause(wait, spec.signal);
    }
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
      case 401:
      case 403:
        return new AuthenticationError(init);
      case 402:
        return new InsufficientCreditsError(init);
      case 404:
        return new NotFoundError(init, spec.notFound);
      case 408:
        return new VerificationTimeoutError(init);
      case 422:
        return new UnprocessableError(init);
      case 429:
        return new RateLimitError(
          init,
          parseRetryHeader(response.headers['x-ratelimit-reset'], now) ?? parseRetryHeader(response.headers['retry-after'], now),
          now,
        );
      case 503:
        return new ServiceUnavailableError(init, parseRetryHeader(response.headers['retry-after'], now));
      default:
        return response.status >= 500 ? new ServerError(init) : new ApiError(init);
    }
  }
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
      { status: response.status, body: response.body.slice(0, 500), headers: response.headers, method: spec.method, path: spec.path },
      `The service answered ${spec.method} ${spec.path} with something that is not JSON. Check the base URL: it must end in /api.`,
    );
  }
}

function toClientError(error: unknown): EvfError {
  if (error instanceof TransportError) {
    if (error.kind === 'aborted') return new AbortedError('The request was cancelled.', { cause: error });
    if (error.kind === 'timeout') {
      return new RequestTimeoutError('The email verification service did not answer in time.', { cause: error });
    }
    return new ConnectionError(`Could not reach the email verification service: ${error.message}`, { cause: error });
  }
  if (error instanceof EvfError) return error;
  return new ConnectionError(
    `Could not reach the email verification service: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}
