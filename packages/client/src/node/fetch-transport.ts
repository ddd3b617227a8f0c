import { type Transport } from '../core/transport';
import { lowerCaseHeaders } from '../adapter-kit/headers';
import { failureContextOf, transportFailure } from '../adapter-kit/transport-failure';

/** The default transport: Node's global fetch, with a per-attempt timeout and the caller's AbortSignal. */
export const fetchTransport: Transport = async (req) => {
  const context = failureContextOf(req);
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(req.url, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal,
      redirect: 'manual',
    });
  } catch (error) {
    throw transportFailure(error, { ...context, timedOut: timeout.aborted });
  }
  let body: string;
  try {
    body = await response.text();
  } catch (error) {
    throw transportFailure(error, { ...context, timedOut: timeout.aborted, answerStarted: true });
  }
  return { status: response.status, headers: lowerCaseHeaders(response.headers), body };
};
