import { EmailVerificationClient, type Runtime } from '@evf/client';
import { nodeRuntime } from '@evf/client/node';
import type { Bundle, ZObject } from 'zapier-platform-core';
import { baseUrl, MAX_IN_STEP_WAIT_MS, REQUEST_TIMEOUT_MS } from './config';
import { zapierTransport } from './transport';

/**
 * Waits for real, but never longer than a step can afford: Zapier stops a step at 30 s, so a server
 * asking for a longer pause is answered by the client's error (mapped to ThrottledError) instead.
 */
const runtime: Runtime = {
  ...nodeRuntime,
  sleep: (ms, signal) => nodeRuntime.sleep(Math.min(Math.max(0, ms), MAX_IN_STEP_WAIT_MS), signal),
};

/**
 * The key as pasted: a key copied from a web page or a sheet often carries a trailing newline or spaces,
 * which are never part of a key.
 */
export function apiKeyOf(bundle: Pick<Bundle, 'authData'>): string | undefined {
  const raw: unknown = bundle.authData?.api_key;
  return typeof raw === 'string' ? raw.trim() : undefined;
}

/** The one place a client is made: the connection's key, the configured base URL, z.request underneath. */
export function clientFor(z: ZObject, bundle: Pick<Bundle, 'authData'>): EmailVerificationClient {
  return new EmailVerificationClient({
    apiKey: apiKeyOf(bundle),
    baseUrl: baseUrl(),
    transport: zapierTransport(z),
    runtime,
    timeoutMs: REQUEST_TIMEOUT_MS,
    retry: { maxRetries: 2, maxDelayMs: MAX_IN_STEP_WAIT_MS, maxServerWaitMs: MAX_IN_STEP_WAIT_MS },
  });
}

/**
 * The signing secrets held by the connection. Several may be pasted (separated by spaces or commas)
 * while a secret is being rotated, so messages signed with either are accepted until the switch is done.
 */
export function webhookSecrets(bundle: Pick<Bundle, 'authData'>): string[] {
  const raw = bundle.authData?.webhook_secret;
  if (typeof raw !== 'string') return [];
  return raw.split(/[\s,]+/).filter((s) => s !== '');
}
