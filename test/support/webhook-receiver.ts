/**
 * A webhook receiver written the way a user would write one with the client: node:http, the raw body
 * collected before anything parses it, verifyWebhook over it, 401 for anything that does not verify,
 * and duplicates ignored by job_id (the spec's dedupe rule) while still acknowledged so the sender
 * stops retrying.
 */
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookVerificationError, type VerifiedWebhook, type WebhookFailure } from '@evf/client';

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

export interface WebhookReceiver {
  url: string;
  /** One entry per job: what the receiver acts on. */
  events: ReceivedEvent[];
  /** Every request answered, in order. */
  log: ReceiverLogEntry[];
  /** Every delivery exactly as it arrived (header names lower case), for replaying it. */
  raw: Array<{ headers: Record<string, string>; rawBody: string }>;
  /** Secrets accepted, newest first; replace to rotate. */
  secrets: string[];
  /** Clock used for the timestamp window (ms); replace to replay recorded vectors. */
  now: () => number;
  /** Answer this many of the next deliveries with 503 before handling any (a receiver that is down). */
  failNext(n: number): void;
  close(): Promise<void>;
}

function readRaw(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startWebhookReceiver(secrets: string[], path = '/hooks/evf'): Promise<WebhookReceiver> {
  let down = 0;
  const seen = new Set<string>();
  const receiver: Omit<WebhookReceiver, 'url' | 'close'> = {
    events: [],
    log: [],
    raw: [],
    secrets,
    now: () => Date.now(),
    failNext: (n) => {
      down = n;
    },
  };
  const server = http.createServer(async (req, res) => {
    const raw = await readRaw(req);
    const answer = (status: number, entry: Omit<ReceiverLogEntry, 'status'> = {}): void => {
      receiver.log.push({ status, ...entry });
      res.writeHead(status, { 'Content-Type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
    };
    if (req.method !== 'POST' || req.url !== path) return answer(404);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    receiver.raw.push({ headers, rawBody: raw.toString('utf8') });
    if (down > 0) {
      down -= 1;
      return answer(503);
    }
    let verified: VerifiedWebhook;
    try {
      verified = verifyWebhook({ rawBody: raw, headers: req.headers, secrets: receiver.secrets, now: receiver.now });
    } catch (error) {
      if (error instanceof WebhookVerificationError) return answer(401, { failure: error.code });
      return answer(500);
    }
    if (seen.has(verified.jobId)) return answer(200, { duplicate: true });
    seen.add(verified.jobId);
    receiver.events.push({ jobId: verified.jobId, event: verified.event, body: verified.body });
    answer(200);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver as WebhookReceiver, {
    url: `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

/** Sends a recorded delivery to a receiver exactly as given (headers and raw bytes untouched). */
export async function postRaw(url: string, headers: Record<string, string>, rawBody: string): Promise<number> {
  // Connection-level headers belong to the original connection; fetch sets its own.
  const hopByHop = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);
  const sent = Object.fromEntries(Object.entries(headers).filter(([k]) => !hopByHop.has(k.toLowerCase())));
  const res = await fetch(url, { method: 'POST', headers: sent, body: rawBody });
  await res.text();
  return res.status;
}
