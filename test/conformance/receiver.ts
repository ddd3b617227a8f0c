import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  at: number;
  path: string;
}

/**
 * A real webhook receiver on loopback. `answer` picks the status (or 'hang' to never answer) for the
 * nth delivery, counted from 1.
 */
export async function startReceiver(answer: (n: number) => number | 'hang' = () => 200) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
        path: req.url ?? '',
      });
      const a = answer(received.length);
      if (a === 'hang') return;
      if (a >= 300 && a < 400) res.setHeader('Location', `http://127.0.0.1:${port}/redirected`);
      res.statusCode = a;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
