import { TransportError, lowerCaseHeaders, type Transport } from '../core/transport';

/** Error codes that prove the request never reached a server: safe to resend even a POST. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function causeCode(error: unknown): string | undefined {
  let e: unknown = error;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The default transport: Node's global fetch, with a per-attempt timeout and the caller's AbortSignal. */
export const fetchTransport: Transport = async (req) => {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal, redirect: 'manual' });
  } catch (error) {
    if (req.signal?.aborted) throw new TransportError('cancelled', { kind: 'aborted', sent: 'unknown', cause: error });
    if (timeout.aborted) throw new TransportError(`no answer within ${req.timeoutMs} ms`, { kind: 'timeout', sent: 'unknown', cause: error });
    const code = causeCode(error);
    const sent = code !== undefined && NOT_SENT_CODES.has(code) ? false : 'unknown';
    throw new TransportError(code ? `network error (${code})` : 'network error', { kind: sent === false ? 'connect' : 'network', sent, cause: error });
  }
  let body: string;
  try {
    body = await response.text();
  } catch (error) {
    // The status line arrived, so the server had the request: never "not sent".
    if (timeout.aborted) throw new TransportError(`the answer did not finish within ${req.timeoutMs} ms`, { kind: 'timeout', sent: true, cause: error });
    throw new TransportError('the connection dropped while reading the answer', { kind: 'network', sent: true, cause: error });
  }
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  return { status: response.status, headers: lowerCaseHeaders(headers), body };
};
