import {
  failureContextOf,
  lowerCaseHeaders,
  transportFailure,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from '@evf/client';
import type { HttpRequestOptions, ZObject } from 'zapier-platform-core';

/**
 * Options z.request understands but its type definitions do not list yet. `throwForThrottlingEarly:
 * false` stops core (>= 18) from turning a 429 into its own ThrottledError, which only reads
 * Retry-After: the client must see the 429 to honour X-RateLimit-Reset.
 */
type ZRequestOptions = HttpRequestOptions & {
  url: string;
  raw?: boolean;
  throwForThrottlingEarly: boolean;
  signal?: AbortSignal;
};

/**
 * The client's transport over z.request, so Zapier logs each call (with the key scrubbed) and its
 * middleware applies. Statuses are returned, never thrown: the client owns retries and error meaning,
 * and the client's adapter kit decides what a failure of node-fetch (inside z.request) proves.
 */
export function zapierTransport(z: ZObject): Transport {
  return async (req: TransportRequest): Promise<TransportResponse> => {
    const context = failureContextOf(req);
    const options: ZRequestOptions = {
      url: req.url,
      method: req.method,
      headers: req.headers,
      body: req.body,
      timeout: req.timeoutMs,
      skipThrowForStatus: true,
      throwForThrottlingEarly: false,
      signal: req.signal,
      // A page of result rows (up to 1,000 rows, about 300 KB) is read as text once: core would parse it
      // twice more and scrub its whole text for the log, which at 50 pages a step cost seconds of a
      // 30-second step on a busy machine. Zapier still logs the call, its status and time; not the rows.
      ...(isRowsPage(req) ? { raw: true } : {}),
    };
    let response;
    let body: string;
    try {
      response = await z.request(options);
      body = options.raw
        ? await (response as unknown as { text(): Promise<string> }).text()
        : response.content;
    } catch (err) {
      throw transportFailure(err, context);
    }
    return { status: response.status, headers: lowerCaseHeaders(response.headers), body };
  };
}

/** GET /v1/jobs/{id}/results: the one large answer a step reads many of. */
function isRowsPage(req: TransportRequest): boolean {
  return req.method === 'GET' && /\/v1\/jobs\/[^/?]+\/results(\?|$)/.test(req.url);
}
