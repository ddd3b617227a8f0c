import { TransportError, type Transport, type TransportRequest, type TransportResponse } from '@evf/client';
import type { HttpRequestOptions, ZObject } from 'zapier-platform-core';
import { assertSafeBaseUrl } from './config';

/**
 * Options z.request understands but its type definitions do not list yet. `throwForThrottlingEarly:
 * false` stops core (>= 18) from turning a 429 into its own ThrottledError, which only reads
 * Retry-After: the client must see the 429 to honour X-RateLimit-Reset.
 */
type ZRequestOptions = HttpRequestOptions & {
  url: string;
  throwForThrottlingEarly: boolean;
  signal?: AbortSignal;
};

interface FetchLikeError {
  name?: string;
  type?: string;
  code?: string;
  errno?: string;
  message?: string;
}

const REFUSED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** node-fetch (inside z.request) failures, as the client's TransportError kinds. */
function toTransportError(err: unknown): TransportError {
  const e = (err ?? {}) as FetchLikeError;
  const code = e.code ?? e.errno ?? '';
  if (e.name === 'AbortError' || e.type === 'aborted') {
    return new TransportError('The request was cancelled.', { kind: 'aborted', sent: 'unknown' });
  }
  if (e.type === 'request-timeout' || e.type === 'body-timeout' || code === 'ETIMEDOUT') {
    return new TransportError('The service did not answer in time.', { kind: 'timeout', sent: 'unknown' });
  }
  if (REFUSED_CODES.has(code)) {
    // The connection was never made, so the request provably did not reach the service.
    return new TransportError(`Could not connect to the service (${code}).`, {
      kind: 'connect',
      sent: false,
    });
  }
  return new TransportError(`The connection to the service failed${code ? ` (${code})` : ''}.`, {
    kind: 'network',
    sent: 'unknown',
  });
}

function headersToRecord(headers: {
  forEach(cb: (value: string, name: string) => void): void;
}): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

/**
 * The client's transport over z.request, so Zapier logs each call (with the key scrubbed) and its
 * middleware applies. Statuses are returned, never thrown: the client owns retries and error meaning.
 */
export function zapierTransport(z: ZObject): Transport {
  return async (req: TransportRequest): Promise<TransportResponse> => {
    // The last gate before the wire, whatever built the URL: a key never travels over plain http
    // except to this machine. clientFor checks the base URL first, so this only guards future mistakes.
    try {
      assertSafeBaseUrl(req.url);
    } catch (error) {
      throw new TransportError((error as Error).message, { kind: 'connect', sent: false });
    }
    const options: ZRequestOptions = {
      url: req.url,
      method: req.method,
      headers: req.headers,
      body: req.body,
      timeout: req.timeoutMs,
      skipThrowForStatus: true,
      throwForThrottlingEarly: false,
      signal: req.signal,
    };
    let response;
    try {
      response = await z.request(options);
    } catch (err) {
      throw toTransportError(err);
    }
    return { status: response.status, headers: headersToRecord(response.headers), body: response.content };
  };
}
