/**
 * One HTTP exchange on a connection of its own, closed after the answer: how the harness sends what
 * Make would send. Nothing is pooled, so no request can go out on an idle keep-alive connection that
 * the other end has already closed. That is a race of the test's own making, not of the app: the
 * sandbox runs in the test's process, and while the runner works through thousands of bundles
 * synchronously, the other end's close of an idle connection can sit unprocessed in the event loop;
 * the fetch of Node 20 (its bundled undici 6) writes the next request onto such a socket and fails
 * ("other side closed", ECONNRESET). undici 7 looks at an idle socket before reusing it
 * (GHSA-35p6-xmwp-9g52); Node 20 does not bundle it. Whether Make pools connections to an app's API
 * is not documented, so the harness depends on no reuse.
 *
 * What the harness holds stays as strict: a request that was sent and got no answer, or an answer
 * that was cut off, is still a failure the caller turns into Make's ConnectionError.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface Exchange {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
}

/** Why an exchange ended without a whole answer. */
export class ExchangeFailure extends Error {
  constructor(
    readonly kind: 'timeout' | 'no-answer' | 'cut-off',
    message: string,
  ) {
    super(message);
    this.name = 'ExchangeFailure';
  }
}

function flatHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export function exchangeOnOwnConnection(
  url: URL,
  req: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number },
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let answered = false;
    const timer = setTimeout(() => {
      outgoing.destroy(new ExchangeFailure('timeout', `no answer within ${req.timeoutMs} ms`));
    }, req.timeoutMs);
    const fail = (err: Error) => {
      clearTimeout(timer);
      if (err instanceof ExchangeFailure) reject(err);
      else if (answered) reject(new ExchangeFailure('cut-off', `The answer was cut off: ${err.message}`));
      else reject(new ExchangeFailure('no-answer', `No answer: ${err.message}`));
    };
    const outgoing = send(
      url,
      // agent: false gives the request a connection of its own; Connection: close ends it after.
      {
        method: req.method,
        headers: {
          ...req.headers,
          connection: 'close',
          ...(req.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(req.body)) }),
        },
        agent: false,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', fail);
        res.on('aborted', () => fail(new Error('the connection closed before the answer ended')));
        res.on('end', () => {
          if (!res.complete) return fail(new Error('the connection closed before the answer ended'));
          clearTimeout(timer);
          resolve({
            status: res.statusCode ?? 0,
            headers: flatHeaders(res.headers),
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    outgoing.on('error', fail);
    outgoing.end(req.body);
  });
}
