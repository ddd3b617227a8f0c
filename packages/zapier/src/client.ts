import { EmailVerificationClient, type Runtime } from '@evf/client';
import type { Bundle, ZObject } from 'zapier-platform-core';
import { baseUrl, MAX_IN_STEP_WAIT_MS } from './config';
import { zapierTransport } from './transport';

/**
 * Waits for real, but never longer than a step can afford: Zapier stops a step at 30 s, so a server
 * asking for a longer pause is answered by the client's error (mapped to ThrottledError) instead.
 */
const runtime: Runtime = {
  now: () => Date.now(),
  random: () => Math.random(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(resolve, Math.min(Math.max(0, ms), MAX_IN_STEP_WAIT_MS));
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(signal.reason);
        },
        { once: true },
      );
    }),
};

export interface ClientOptions {
  timeoutMs?: number;
}

/** The one place a client is made: the connection's key, the configured base URL, z.request underneath. */
export function clientFor(z: ZObject, bundle: Pick<Bundle, 'authData'>, options: ClientOptions = {}): EmailVerificationClient {
  return new EmailVerificationClient({
    apiKey: bundle.authData.api_key,
    baseUrl: baseUrl(),
    transport: zapierTransport(z),
    runtime,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
  });
}
