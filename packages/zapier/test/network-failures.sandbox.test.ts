/**
 * Failures below HTTP (no answer, dropped connection) against real sockets on loopback, since a mock
 * cannot reproduce what node-fetch inside z.request really throws.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { TransportError } from '@evf/client';
import { appTester, bundle, run, steps, useBaseUrl, zapierError } from './helpers';
import { zapierTransport } from '../src/transport';

// Short, yet a wide margin for the POST to reach the hanging server before it runs out (the tests count it).
jest.mock('../src/config', () => ({
  ...jest.requireActual('../src/config'),
  SINGLE_VERIFY_TIMEOUT_MS: 1_000,
}));

type Behaviour = 'hang' | 'drop';
let behaviour: Behaviour = 'hang';
let requests = 0;
let posts = 0;
const sockets = new Set<Socket>();
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    if (req.method === 'POST') posts++;
    if (behaviour === 'drop') req.socket.destroy();
    // 'hang': never answer; the client's timeout must end the wait.
    void res;
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  requests = 0;
  posts = 0;
});
useBaseUrl(() => base);

it('the transport reports a request that got no answer in time as a timeout that may have been sent', async () => {
  behaviour = 'hang';
  const error = await appTester(async (z) => {
    try {
      await zapierTransport(z)({ method: 'GET', url: `${base}/v1/account`, headers: {}, timeoutMs: 200 });
    } catch (e) {
      return e;
    }
    return undefined;
  });
  expect(error).toBeInstanceOf(TransportError);
  expect(error).toMatchObject({ kind: 'timeout', sent: 'unknown' });
});

it('the transport reports a refused connection as provably not sent', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const error = await appTester(async (z) => {
    try {
      await zapierTransport(z)({
        method: 'POST',
        url: `http://127.0.0.1:${port}/api/v1/verify/bulk`,
        headers: {},
        body: '{}',
        timeoutMs: 1000,
      });
    } catch (e) {
      return e;
    }
    return undefined;
  });
  expect(error).toMatchObject({ kind: 'connect', sent: false });
});

it('Verify Email Address fails the step on its own timeout, never claiming a refund or a verdict', async () => {
  behaviour = 'hang';
  const error = await zapierError(run(steps.verify, bundle({ email: 'slow@acme-corp.com' })));
  expect(error).toMatchObject({ name: 'AppError', code: 'no_verdict' });
  expect(error.message).toMatch(
    /no answer came back in time\. The service may have verified it and used 1 credit\./,
  );
  // A POST that may have reached the service is never sent twice.
  expect(requests).toBe(1);
});

it('Verify Email Address fails the step when the connection drops after sending', async () => {
  behaviour = 'drop';
  const error = await zapierError(run(steps.verify, bundle({ email: 'slow@acme-corp.com' })));
  expect(error.message).toMatch(
    /the connection broke before an answer came back\. The service may have verified it/,
  );
  expect(posts).toBe(1);
});

it('a bulk submission whose connection dropped halts (no auto-replay that could charge twice) and is not resent', async () => {
  behaviour = 'drop';
  const error = await zapierError(run(steps.bulk, bundle({ emails: ['a@acme-corp.com'] })));
  expect(error.name).toBe('HaltedError');
  expect(error.message).toMatch(
    /may have accepted and charged it\. Before you replay this run, look for the job/,
  );
  expect(error.message).not.toMatch(/\/v1\/|Get Many Jobs|operation/);
  // The account read (free, to size what fits today) may be retried; the POST never is.
  expect(posts).toBe(1);
});

it('a read whose connection dropped is retried, then reported as a connection problem', async () => {
  behaviour = 'drop';
  const error = await zapierError(run(steps.findJob, bundle({ job_id: 'job_x' })));
  expect(error.message).toMatch(/Could not reach the email verification service/);
  expect(requests).toBe(3);
});
