/** What a route answers; the server writes it, so faults can replace or cut it in one place. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** A non-JSON body sent as is (a gateway's HTML error page), with its own Content-Type in headers. */
  rawBody?: string;
}

export type ResetFormat = 'epoch-seconds' | 'delta-seconds' | 'http-date';
export type RetryAfterFormat = 'delta-seconds' | 'http-date';

/** Formats "wait until atMs" in one of the forms clients must accept. */
export function formatWaitHeader(atMs: number, nowMs: number, format: ResetFormat): string {
  const atSeconds = Math.ceil(atMs / 1000);
  switch (format) {
    case 'epoch-seconds':
      return String(atSeconds);
    case 'delta-seconds':
      return String(Math.max(0, Math.ceil((atMs - nowMs) / 1000)));
    case 'http-date':
      return new Date(atSeconds * 1000).toUTCString();
  }
}
