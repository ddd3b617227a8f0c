import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A callback as Zapier hands it to performResume: header names prefixed "Http-", the body untouched. */
export interface CapturedCallback {
  method: 'POST';
  headers: Record<string, string>;
  content: string;
  querystring: string;
}

export interface CallbackReceiver {
  /** The URL to give the service as webhook_url (stands in for z.generateCallbackUrl()). */
  url: string;
  /** Resolves with the next delivery (or one already received and not yet taken). */
  next(timeoutMs?: number): Promise<CapturedCallback>;
  /** How many deliveries arrived. */
  received(): number;
  close(): Promise<void>;
}

/** "x-service-signature" -> "Http-X-Service-Signature", the form Zapier uses in bundle.rawRequest.headers. */
export function zapierHeaderName(name: string): string {
  return `Http-${name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase())
    .join('-')}`;
}

function capture(req: IncomingMessage, body: Buffer): CapturedCallback {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined)
      headers[zapierHeaderName(name)] = Array.isArray(value) ? value.join(', ') : value;
  }
  const url = new URL(req.url ?? '/', 'http://receiver');
  return {
    method: 'POST',
    headers,
    content: body.toString('utf8'),
    querystring: url.search.replace(/^\?/, ''),
  };
}

/**
 * A small local HTTP receiver standing in for Zapier's callback URL: the sandbox delivers its signed
 * webhook here, and the captured raw request is what Zapier would pass to performResume.
 */
export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const queue: CapturedCallback[] = [];
  const waiters: ((c: CapturedCallback) => void)[] = [];
  let count = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      const captured = capture(req, Buffer.concat(chunks));
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}');
      const waiter = waiters.shift();
      if (waiter) waiter(captured);
      else queue.push(captured);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/catch/demo`,
    received: () => count,
    next(timeoutMs = 30_000) {
      const ready = queue.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(done), 1);
          reject(new Error(`no callback arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        const done = (c: CapturedCallback): void => {
          clearTimeout(timer);
          resolve(c);
        };
        waiters.push(done);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
