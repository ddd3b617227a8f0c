/**
 * Local stand-ins for the two file services a Zap's steps use, on loopback:
 * - a file host that serves a file by URL, as a trigger's file field gives it to the next step (Zapier:
 *   "Files are referenced by URL and fetched as needed by the receiving action", operating constraints);
 *   it records the headers of every download, so a test can prove no credential was sent there;
 * - the file stash behind z.stashFile. zapier-platform-core 19 runs its own stashFile code unchanged: it
 *   asks the RPC service (event.rpc_base) for `get_presigned_upload_post_data`, posts the file as a
 *   multipart form to that URL (S3's POST policy form) and returns `new URL(fields.key, url)`
 *   (src/tools/create-file-stasher.js, uploader.js). This stand-in answers that RPC call, takes the form,
 *   and serves the stored file at the returned URL.
 * Stricter than the real services, never looser: any other RPC method is refused, an upload must carry
 * the key it was given, a file name and a content type, and must fit core's 150 MB non-streaming limit.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

const NON_STREAM_UPLOAD_MAX_BYTES = 150 * 1000 * 1000;

export interface StoredFile {
  name: string;
  contentType: string;
  bytes: Buffer;
}

export interface ZapierFiles {
  origin: string;
  /** The RPC address core is given as event.rpc_base. */
  rpcBase: string;
  /** Serves `bytes` as a file a trigger would hand over; returns its URL. */
  host(name: string, bytes: Buffer | string): string;
  /** Takes a hosted file away, as when the trigger's file is deleted before the step resumes. */
  unhost(name: string): void;
  /** Headers of every download from the file host, lower-case names. */
  downloads: Record<string, string | string[] | undefined>[];
  /** Files stored through z.stashFile, by URL. */
  stashed: Map<string, StoredFile>;
  /** Rejected RPC calls and uploads, with the reason (a test expects none). */
  refusals: string[];
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

interface FormPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** multipart/form-data (RFC 7578), as form-data writes it. */
function parseForm(raw: Buffer, contentType: string): FormPart[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!boundary) throw new Error('no multipart boundary');
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: FormPart[] = [];
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next < 0) break;
    const chunk = raw.subarray(start + 2, next - 2); // CRLF after the delimiter, CRLF before the next
    const split = chunk.indexOf('\r\n\r\n');
    const head = chunk.subarray(0, split).toString('utf8');
    const disposition = /content-disposition:[^\r\n]*/i.exec(head)?.[0] ?? '';
    parts.push({
      name: /\bname="([^"]*)"/.exec(disposition)?.[1] ?? '',
      filename: /\bfilename="([^"]*)"/.exec(disposition)?.[1],
      contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim(),
      data: chunk.subarray(split + 4),
    });
    at = next;
  }
  return parts;
}

export async function startZapierFiles(): Promise<ZapierFiles> {
  const hosted = new Map<string, Buffer>();
  const issuedKeys = new Set<string>();
  const files = { downloads: [], stashed: new Map(), refusals: [] } as unknown as ZapierFiles;
  const server: Server = createServer((req, res) => {
    // One request per connection: a kept-alive socket closed by the server while the client reuses it
    // would show up as a reset that has nothing to do with the app.
    res.setHeader('connection', 'close');
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://local');
      const raw = await body(req);
      if (req.method === 'GET' && url.pathname.startsWith('/files/')) {
        files.downloads.push({ ...req.headers });
        const bytes = hosted.get(decodeURIComponent(url.pathname.slice('/files/'.length)));
        if (!bytes) return res.writeHead(404).end();
        return res.writeHead(200, { 'content-length': bytes.length }).end(bytes);
      }
      if (req.method === 'POST' && url.pathname === '/rpc') {
        const call = JSON.parse(raw.toString('utf8')) as { id: string; method: string };
        if (!req.headers['x-deploy-key'] && !req.headers['x-token']) {
          files.refusals.push(`rpc ${call.method} without credentials`);
          return res.writeHead(401).end();
        }
        if (call.method !== 'get_presigned_upload_post_data') {
          files.refusals.push(`rpc ${call.method} is not served here`);
          return res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ id: call.id, error: `${call.method} is not available` }));
        }
        const key = `stash/${randomBytes(8).toString('hex')}/file`;
        issuedKeys.add(key);
        const result = {
          url: `${files.origin}/s3/`,
          fields: { key, policy: 'local', 'x-amz-signature': 'local' },
        };
        return res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ id: call.id, result }));
      }
      if (req.method === 'POST' && url.pathname === '/s3/') {
        const parts = parseForm(raw, req.headers['content-type'] ?? '');
        const key = parts.find((p) => p.name === 'key')?.data.toString('utf8') ?? '';
        const file = parts.find((p) => p.name === 'file');
        const refuse = (why: string) => {
          files.refusals.push(`upload: ${why}`);
          res.writeHead(400).end(why);
        };
        if (!issuedKeys.delete(key)) return refuse('a key that was never issued');
        if (!file?.filename || !file.contentType) return refuse('no file name or content type');
        if (file.data.length > NON_STREAM_UPLOAD_MAX_BYTES) return refuse('larger than 150 MB');
        files.stashed.set(new URL(key, `${files.origin}/s3/`).href, {
          name: file.filename,
          contentType: file.contentType,
          bytes: file.data,
        });
        return res.writeHead(204).end();
      }
      if (req.method === 'GET' && url.pathname.startsWith('/s3/')) {
        const stored = files.stashed.get(`${files.origin}${url.pathname}`);
        if (!stored) return res.writeHead(404).end();
        return res
          .writeHead(200, {
            'content-type': stored.contentType,
            'content-disposition': `attachment; filename="${stored.name}"`,
          })
          .end(stored.bytes);
      }
      res.writeHead(404).end();
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  files.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  files.rpcBase = `${files.origin}/rpc`;
  files.host = (name, bytes) => {
    hosted.set(name, Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'utf8'));
    return `${files.origin}/files/${encodeURIComponent(name)}`;
  };
  files.unhost = (name) => void hosted.delete(name);
  files.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return files;
}
