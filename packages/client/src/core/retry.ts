/**
 * Reads a server's "wait until" header. X-RateLimit-Reset is not standardised, so the three forms seen
 * in practice are accepted: epoch seconds, delta seconds, or an HTTP date. Returns milliseconds to wait.
 */
export function parseRetryHeader(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const n = Number(text);
    // Epoch seconds are ten digits today; a delta of over a billion seconds (31 years) is not a delta.
    if (n >= 1_000_000_000) {
      // An epoch in milliseconds (13 digits) is tolerated too.
      const epochMs = n >= 100_000_000_000 ? n : n * 1000;
      return Math.max(0, Math.ceil(epochMs - nowMs));
    }
    return Math.ceil(n * 1000);
  }
  const date = Date.parse(text);
  if (!Number.isNaN(date)) return Math.max(0, date - nowMs);
  return undefined;
}

export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Full-jitter exponential backoff: spreads retries of many clients instead of synchronising them. */
export function backoffDelay(attempt: number, random: () => number, options: BackoffOptions): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
