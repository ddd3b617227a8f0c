import { readFileSync } from 'node:fs';
import type { AccountSeed } from './engine/accounts';
import type { FaultOptions } from './faults';
import type { ResetFormat, RetryAfterFormat } from './http/reply';
import type { Resolver } from './webhooks';

export interface SandboxOptions {
  /** 0 = any free port (tests). Default 0. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Multiplies every wait: queueing, processing, the 30 s single wait, webhook timeouts and retry waits. 1 = real time. */
  timeScale?: number;
  /** Bulk processing speed in rows per second of spec time. Default 200. */
  rowsPerSecond?: number;
  /** Spec milliseconds a new job stays queued. Default 1000. */
  queueDelayMs?: number;
  /** Spec milliseconds a normal single verification takes. Default 300. */
  singleLatencyMs?: number;
  /** Lets webhook_url be http:// on loopback (local development and tests only). Default false: the spec's rules. */
  allowInsecureWebhooks?: boolean;
  /** Real milliseconds added to every API response. Default 0. */
  latencyMs?: number;
  /** Accounts to seed; default one demo account on the pro plan. */
  accounts?: AccountSeed[];
  /** A JSON file with any of these options (accounts, timeScale, ...); explicit options win. */
  configFile?: string;
  /** Form of X-RateLimit-Reset on 429. Default epoch-seconds. */
  rateLimitResetFormat?: ResetFormat;
  /** Form of Retry-After on 503. Default delta-seconds. */
  retryAfterFormat?: RetryAfterFormat;
  /** Host name resolver for webhook_url checks; default the system resolver. */
  resolver?: Resolver;
  /** Faults armed from the start. */
  faults?: FaultOptions;
  /** Serve the admin API under /__sandbox/. Default true. */
  adminApi?: boolean;
  /** Wall clock source (ms); default Date.now. Tests can also move time with sandbox.advanceTime. */
  now?: () => number;
  /** Spec milliseconds between webhook attempts; default [2000, 10000, 60000, 300000]. */
  webhookRetryWaitsMs?: number[];
  /** Largest accepted request body. Default 32 MiB. */
  maxBodyBytes?: number;
  /**
   * GET /v1/account answers with fields the spec does not show: account_id, name, email, created_at,
   * credits_used_this_month, top_up_total and api_allowance (keys, per_hour, per_day). Only for tests of
   * code that must tolerate further fields; no client or platform code may need them. Default false:
   * plan, credits and credits_used_today, the spec's shape.
   */
  accountExtras?: boolean;
}

const FILE_KEYS = new Set([
  'port',
  'host',
  'timeScale',
  'rowsPerSecond',
  'queueDelayMs',
  'singleLatencyMs',
  'allowInsecureWebhooks',
  'latencyMs',
  'accounts',
  'rateLimitResetFormat',
  'retryAfterFormat',
  'adminApi',
  'webhookRetryWaitsMs',
  'maxBodyBytes',
  'accountExtras',
]);

/** Reads a JSON config file; unknown keys are refused so a typo does not go unnoticed. */
export function loadConfigFile(path: string): SandboxOptions {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new TypeError(`sandbox config file ${path} could not be read as JSON: ${(err as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new TypeError(`sandbox config file ${path} must hold a JSON object`);
  for (const key of Object.keys(parsed)) {
    if (!FILE_KEYS.has(key))
      throw new TypeError(
        `sandbox config file ${path}: unknown option "${key}"; known: ${[...FILE_KEYS].join(', ')}`,
      );
  }
  return parsed as SandboxOptions;
}

export function positive(name: string, value: number): number {
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value))
    throw new TypeError(`${name} must be a positive number; got ${String(value)}`);
  return value;
}

export function nonNegative(name: string, value: number): number {
  if (typeof value !== 'number' || !(value >= 0) || !Number.isFinite(value))
    throw new TypeError(`${name} must be a number >= 0; got ${String(value)}`);
  return value;
}

/** Where `npm start` serves the sandbox (http://127.0.0.1:8787/api) unless PORT says otherwise. */
export const DEFAULT_PORT = 8787;
