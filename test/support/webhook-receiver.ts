/**
 * The one webhook receiver of the tests, on loopback, in two modes over one server:
 * - verifying (startWebhookReceiver): written the way a user would write one with the client: node:http,
 *   the raw body collected before anything parses it, verifyWebhook over it, 401 for anything that does
 *   not verify, and duplicates ignored by job_id (the spec's dedupe rule) while still acknowledged so the
 *   sender stops retrying;
 * - raw (startRawReceiver): judges nothing and answers what the test scripts (a status, a redirect, or
 *   no answer at all), so a suite that checks the sender sees every delivery exactly as it arrived.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  verifyWebhook,
  WebhookVerificationError,
  type VerifiedWebhook,
  type WebhookFailure,
} from '@evf/client';

export interface ReceivedEvent {
  jobId: string;
  event: VerifiedWebhook['event'];
  body: VerifiedWebhook['body'];
}

export interface ReceiverLogEntry {
  status: number;
  /** Why a delivery was refused, when it was. */
  failure?: WebhookFailure;
  duplicate?: boolean;
}

/** One delivery exactly as it arrived (header names lower case). */
export interface RawDelivery {
  headers: Record<string, string>;
  rawBody: string;
  /** Date.now() when the body was complete. */
  at: number;
  /** The request target, path and query. */
  path: string;
}

interface ReceiverBase {
  url: string;
  port: number;
  /** Every delivery exactly as it arrived, for checking the sender or replaying it. */
  raw: RawDelivery[];
  close(): Promise<void>;
}

export interface WebhookReceiver extends ReceiverBase {
  /** One entry per job: what the receiver acts on. */
  events: ReceivedEvent[];
  /** Every request answered, in order. */
  log: ReceiverLogEntry[];
  /** Secrets accepted, newest first; replace to rotate. */
  secrets: string[];
  /** Clock used for the timestamp window (ms); replace to replay recorded vectors. */
  now: () => number;
  /** Answer this many of the next deliveries with 503 before handling any (a receiver that is down). */
  failNext(n: number): void;
}

export type RawReceiver = ReceiverBase;

/** What a raw receiver answers to the nth delivery (from 1): a status, or 'hang' to never answer. */
export type RawAnswer = (n: number) => number | 'hang';

function readRaw(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The server both modes share: records each request, then lets the mode answer it. */
async function serve(
  path: string,
  answer: (req: IncomingMessage, res: ServerResponse, raw: Buffer, delivery: RawDelivery | undefined) => void,
): Promise<ReceiverBase> {
  const deliveries: RawDelivery[] = [];
  const server = http.createServer(async (req, res) => {
    const raw = await readRaw(req);
    let delivery: RawDelivery | undefined;
    if (req.method === 'POST' && req.url === path) {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      delivery = { headers, rawBody: raw.toString('utf8'), at: Date.now(), path: req.url };
      deliveries.push(delivery);
    }
    answer(req, res, raw, delivery);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    raw: deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function startWebhookReceiver(secrets: string[], path = '/hooks/evf'): Promise<WebhookReceiver> {
  let down = 0;
  const seen = new Set<string>();
  const state = {
    events: [] as ReceivedEvent[],
    log: [] as ReceiverLogEntry[],
    secrets,
    now: () => Date.now(),
    failNext: (n: number) => {
      down = n;
    },
  };
  const base = await serve(path, (req, res, raw, delivery) => {
    const answer = (status: number, entry: Omit<ReceiverLogEntry, 'status'> = {}): void => {
      state.log.push({ status, ...entry });
      res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    };
    if (!delivery) return answer(404);
    if (down > 0) {
      down -= 1;
      return answer(503);
    }
    let verified: VerifiedWebhook;
    try {
      verified = verifyWebhook({
        rawBody: raw,
        headers: req.headers,
        secrets: state.secrets,
        now: state.now,
      });
    } catch (error) {
      if (error instanceof WebhookVerificationError) return answer(401, { failure: error.code });
      return answer(500);
    }
    if (seen.has(verified.jobId)) return answer(200, { duplicate: true });
    seen.add(verified.jobId);
    state.events.push({ jobId: verified.jobId, event: verified.event, body: verified.body });
    answer(200);
  });
  // One object: tests replace `secrets` and `now` on it and the handler reads them from `state`.
  return Object.assign(state, base) as WebhookReceiver;
}

/**
 * A receiver that judges nothing: answers the nth delivery (from 1) with `answer(n)`; a 3xx carries a
 * Location on the same server, so a sender that followed redirects would be seen doing it.
 */
export async function startRawReceiver(answer: RawAnswer = () => 200, path = '/hook'): Promise<RawReceiver> {
  let port = 0;
  let count = 0;
  const base = await serve(path, (_req, res, _raw, delivery) => {
    const status = delivery ? answer(++count) : 404;
    if (status === 'hang') return;
    if (status >= 300 && status < 400) res.setHeader('Location', `http://127.0.0.1:${port}/redirected`);
    res.statusCode = status;
    res.end();
  });
  port = base.port;
  return base;
}

/** Sends a recorded delivery to a receiver exactly as given (headers and raw bytes untouched). */
export async function postRaw(
  url: string,
  headers: Record<string, string>,
  rawBody: string,
): Promise<number> {
  // Connection-level headers belong to the original connection; fetch sets its own.
  const hopByHop = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);
  const sent = Object.fromEntries(Object.entries(headers).filter(([k]) => !hopByHop.has(k.toLowerCase())));
  const res = await fetch(url, { method: 'POST', headers: sent, body: rawBody });
  await res.text();
  return res.status;
}
