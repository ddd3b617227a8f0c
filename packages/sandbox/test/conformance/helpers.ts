/**
 * Raw HTTP access to a running sandbox for the conformance suite. Every answer to a contract
 * operation is validated against the OpenAPI document (body and required headers) before the test
 * sees it, so no test can pass on a response the contract would reject.
 */
import { findOperation, validateResponse } from '@evf/contract';
import { startSandbox, type Sandbox, type SandboxOptions } from '@evf/sandbox';

export interface RawResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  body: T;
  text: string;
}

export interface CallOptions {
  /** API key; pass null to send none. Defaults to the sandbox's demo key. */
  key?: string | null;
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  rawBody?: string;
  query?: Record<string, string | number>;
}

export function client(sb: Sandbox) {
  return async function call<T = any>(
    method: string,
    path: string,
    opts: CallOptions = {},
  ): Promise<RawResponse<T>> {
    const url = new URL(sb.baseUrl + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {};
    const key = opts.key === undefined ? sb.apiKey : opts.key;
    if (key !== null) headers['X-API-Key'] = key;
    let payload: string | undefined;
    if (opts.rawBody !== undefined) payload = opts.rawBody;
    else if (opts.body !== undefined) payload = JSON.stringify(opts.body);
    if (payload !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(url, { method, headers, body: payload });
    const text = await res.text();
    const responseHeaders: Record<string, string> = {};
    res.headers.forEach((v, k) => (responseHeaders[k] = v));
    const body = text === '' ? undefined : JSON.parse(text);
    if (findOperation(method, path)) {
      const verdict = validateResponse(method, path, res.status, body, responseHeaders);
      if (!verdict.valid) {
        throw new Error(
          `${method} ${path} -> ${res.status} breaks the contract:\n  ${verdict.errors.join('\n  ')}\nbody: ${text.slice(0, 500)}`,
        );
      }
    }
    return { status: res.status, headers: responseHeaders, body, text };
  };
}

export async function start(options: SandboxOptions = {}): Promise<Sandbox> {
  return startSandbox({ port: 0, timeScale: 0.01, rowsPerSecond: 2000, queueDelayMs: 200, ...options });
}

export async function eventually<T>(
  probe: () => Promise<T | undefined | false>,
  { timeoutMs = 10_000, everyMs = 10 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Polls a job over HTTP until it is terminal. */
export async function waitTerminal(call: ReturnType<typeof client>, jobId: string, key?: string) {
  return eventually(async () => {
    const r = await call('GET', `/v1/jobs/${jobId}`, { key });
    return r.body.terminal ? r.body : undefined;
  });
}

/** Reads every stored row of a finished job page by page until has_more is false. */
export async function readAll(call: ReturnType<typeof client>, jobId: string, perPage = 1000, key?: string) {
  const rows: any[] = [];
  for (let page = 1; ; page++) {
    const r = await call('GET', `/v1/jobs/${jobId}/results`, { key, query: { page, per_page: perPage } });
    expect(r.status).toBe(200);
    rows.push(...r.body.results);
    if (!r.body.has_more) return rows;
  }
}
