/**
 * What the client needs from its platform. The core never touches timers, the process or the global
 * object itself: each platform injects these (Node's defaults live in the `node` entry point; n8n
 * passes its own `sleep`).
 */
export interface Runtime {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or rejects when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1), for retry jitter. */
  random(): number;
  /** Resolves a host name to its IP addresses (for the webhook_url public-address check). */
  lookup?(host: string): Promise<string[]>;
}
