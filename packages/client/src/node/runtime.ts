import { lookup as dnsLookup } from 'node:dns/promises';
import type { Runtime } from '../core/runtime';

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason ?? new Error('aborted'));
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const nodeRuntime: Runtime = {
  now: () => Date.now(),
  sleep,
  random: () => Math.random(),
  lookup: async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address),
};

/**
 * A runtime whose clock and sleeps run `speed` times faster than real time: for tests and demos against
 * a sandbox with a matching time scale. Polling rules are kept in the client's own units.
 */
export function acceleratedRuntime(speed: number, base: Runtime = nodeRuntime): Runtime {
  if (!(speed > 0)) throw new RangeError('speed must be > 0');
  const origin = base.now();
  return {
    now: () => origin + (base.now() - origin) * speed,
    sleep: (ms, signal) => base.sleep(ms / speed, signal),
    random: base.random,
    lookup: base.lookup,
  };
}
