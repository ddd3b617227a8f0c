import nock from 'nock';
import { EmailVerificationClient, type Runtime } from '@evf/client';
import { fetchTransport } from '@evf/client/node';

export const BASE = 'https://api.evf.test/api';
export const KEY = 'evf_test_key_1234567890';

/** A runtime whose sleeps return at once and are recorded, with a clock that advances by them. */
export function fakeRuntime(
  start = Date.UTC(2026, 0, 15, 10, 0, 0),
): Runtime & { sleeps: number[]; clock: { t: number } } {
  const clock = { t: start };
  const sleeps: number[] = [];
  return {
    clock,
    sleeps,
    now: () => clock.t,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw new Error('aborted');
      sleeps.push(ms);
      clock.t += ms;
    },
    random: () => 0.5,
  };
}

export function makeClient(
  runtime = fakeRuntime(),
  extra: Partial<ConstructorParameters<typeof EmailVerificationClient>[0]> = {},
) {
  const requests: string[] = [];
  const client = new EmailVerificationClient({
    apiKey: KEY,
    baseUrl: BASE,
    transport: fetchTransport,
    runtime,
    onRequest: ({ method, path }) => requests.push(`${method} ${path}`),
    ...extra,
  });
  return { client, runtime, requests };
}

export { replyWithFixture } from '../../../test/support/nock';

export function api() {
  return nock(BASE, { reqheaders: { 'x-api-key': KEY } });
}
