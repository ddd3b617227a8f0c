/**
 * Verify File and Wait's download and first look at the file, against a local file host on loopback:
 * a PDF or a web page is named for what it is, a host that never answers times out, a body larger than
 * the cap is stopped while it streams (no Content-Length), and socket failures are told in words.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { InputError } from '@evf/client';
import { appTester } from './helpers';
import { downloadTableFile, readTableFile } from '../src/table-file';

let server: Server;
let base = '';
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/report.pdf') return res.end('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n');
    if (req.url === '/sheet-link') {
      res.setHeader('Content-Type', 'text/html');
      return res.end('<!DOCTYPE html><html><head><title>leads - Google Sheets</title></head></html>');
    }
    if (req.url === '/hang') return; // never answers
    if (req.url === '/endless') {
      // Chunked, no Content-Length: only a streamed cap can stop it.
      res.writeHead(200, { 'Content-Type': 'text/csv' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const push = () => {
        if (res.destroyed) return;
        res.write(chunk);
        setImmediate(push);
      };
      return push();
    }
    res.statusCode = 404;
    res.end();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** The InputError the file step would show, from download and first read. */
async function problem(url: string, limits = {}): Promise<InputError> {
  const outcome = await appTester(async (z) => {
    try {
      readTableFile(await downloadTableFile(z, url, 'file', limits), undefined);
    } catch (e) {
      return e;
    }
    return undefined;
  });
  expect(outcome).toBeInstanceOf(InputError);
  return outcome as InputError;
}

it('a PDF is named as one, with how to export the sheet', async () => {
  const e = await problem(`${base}/report.pdf`);
  expect(e.field).toBe('file');
  expect(e.message).toMatch(
    /^The file is a PDF, not a table.*Export the sheet as CSV or XLSX.*Nothing was sent or charged/,
  );
});

it('a web page (a sharing link) is named as one, with the field to map instead', async () => {
  const e = await problem(`${base}/sheet-link`);
  expect(e.message).toMatch(
    /^The file is a web page, not a table.*sharing or web view link.*Google Drive step that exports it/,
  );
});

it('a host that never answers times out, in words', async () => {
  const e = await problem(`${base}/hang`, { timeoutMs: 300 });
  expect(e.message).toMatch(
    /^The file could not be downloaded: the file's host did not send it within 0.3 seconds/,
  );
  expect(e.message).not.toMatch(/FetchError|network timeout/);
});

it('a body over the cap is stopped while it streams, without Content-Length', async () => {
  const e = await problem(`${base}/endless`, { maxBytes: 1_000_000, timeoutMs: 20_000 });
  expect(e.message).toMatch(/^The file could not be downloaded: the file is larger than 1 MB; split it/);
});

it('a refused connection is told in words, not as a raw FetchError', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const e = await problem(`http://127.0.0.1:${port}/leads.csv`);
  expect(e.message).toMatch(/^The file could not be downloaded: the file's host refused the connection/);
  expect(e.message).not.toMatch(/FetchError|ECONNREFUSED 127/);
});
