/**
 * The same failures as transport-verdicts.test.ts, met for real on loopback sockets by Node's fetch and by
 * Zapier's z.request (zapier-platform-core's app tester): a refused connection, a name that does not
 * resolve, a TLS certificate nobody trusts, a cancel before sending, a connection reset after the request
 * arrived, a cancel while waiting and a cancel while the body streams. Both transports must reach the same
 * verdict, and it must be what happened on the wire.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { createAppTester, type ZObject } from 'zapier-platform-core';
import { TransportError, type Transport, type TransportRequest } from '@evf/client';
import { fetchTransport } from '@evf/client/node';
import App from '../../packages/zapier/src/index';
import { zapierTransport } from '../../packages/zapier/src/transport';

const TLS_DIR = join(__dirname, '../support/fixtures/loopback-tls');
const appTester = createAppTester(App);

type Verdict = 'not sent' | 'maybe sent';

const servers: Server[] = [];
const sockets = new Set<Socket>();
function track(server: Server): Server {
  servers.push(server);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return server;
}
async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

let closedPort = 0;
let resetPort = 0;
let hangPort = 0;
let stallPort = 0;
let tlsPort = 0;
beforeAll(async () => {
  const closed = createHttpServer();
  closedPort = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
  // Reads the whole request, then drops the connection without a word.
  resetPort = await listen(
    track(createHttpServer((req) => req.on('end', () => req.socket.destroy()).resume())),
  );
  hangPort = await listen(track(createHttpServer(() => undefined)));
  // Answers 200 and starts the body, then stalls.
  stallPort = await listen(
    track(
      createHttpServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"job_id":');
      }),
    ),
  );
  tlsPort = await listen(
    track(
      createHttpsServer(
        {
          key: readFileSync(join(TLS_DIR, 'localhost.key')),
          cert: readFileSync(join(TLS_DIR, 'localhost.crt')),
        },
        (_req, res) => res.end('{}'),
      ) as unknown as Server,
    ),
  );
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

interface Case {
  name: string;
  url: () => string;
  expected: Verdict;
  /** When to cancel: before the call, or this many ms after it. */
  abort?: 'before' | number;
}
const CASES: Case[] = [
  {
    name: 'a refused connection',
    url: () => `http://127.0.0.1:${closedPort}/api/v1/verify/bulk`,
    expected: 'not sent',
  },
  {
    name: 'a host name that does not resolve',
    url: () => 'https://evf-transport-test.invalid/api/v1/verify/bulk',
    expected: 'not sent',
  },
  {
    name: 'a TLS certificate nobody trusts',
    url: () => `https://localhost:${tlsPort}/api/v1/verify/bulk`,
    expected: 'not sent',
  },
  {
    name: 'a cancel before sending',
    url: () => `http://127.0.0.1:${hangPort}/api/v1/verify/bulk`,
    expected: 'not sent',
    abort: 'before',
  },
  {
    name: 'a reset after the request arrived',
    url: () => `http://127.0.0.1:${resetPort}/api/v1/verify/bulk`,
    expected: 'maybe sent',
  },
  {
    name: 'a cancel while waiting for the answer',
    url: () => `http://127.0.0.1:${hangPort}/api/v1/verify/bulk`,
    expected: 'maybe sent',
    abort: 300,
  },
  {
    name: 'a cancel while the body streams',
    url: () => `http://127.0.0.1:${stallPort}/api/v1/verify/bulk`,
    expected: 'maybe sent',
    abort: 300,
  },
];

async function attempt(transport: Transport, c: Case): Promise<unknown> {
  const controller = new AbortController();
  if (c.abort === 'before') controller.abort();
  const timer = typeof c.abort === 'number' ? setTimeout(() => controller.abort(), c.abort) : undefined;
  const request: TransportRequest = {
    method: 'POST',
    url: c.url(),
    headers: { 'content-type': 'application/json' },
    body: '{"emails":["a@x.com"]}',
    timeoutMs: 10_000,
    signal: controller.signal,
  };
  try {
    await transport(request);
    return undefined;
  } catch (error) {
    return error;
  } finally {
    clearTimeout(timer);
  }
}

function verdict(error: unknown): string {
  if (!(error instanceof TransportError)) return `not a TransportError: ${String(error)}`;
  return error.sent === false ? 'not sent' : 'maybe sent';
}

describe.each(CASES)('$name', (c) => {
  it(`fetch and z.request both say ${c.expected}`, async () => {
    const viaFetch = verdict(await attempt(fetchTransport, c));
    const viaZapier = verdict(await appTester(async (z: ZObject) => attempt(zapierTransport(z), c)));
    expect({ fetch: viaFetch, zapier: viaZapier }).toEqual({ fetch: c.expected, zapier: c.expected });
  }, 30_000);
});
