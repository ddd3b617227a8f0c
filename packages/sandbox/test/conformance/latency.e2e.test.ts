/**
 * The sandbox's delays in real milliseconds: injected slow answers and latency, and a slow single
 * verification held for the spec's 30 s (scaled) before its 408. Timed by the wall clock, so e2e; each
 * bound is a lower one (a delay is at least as long as asked) or far above the time expected.
 */
import type { Sandbox } from '@evf/sandbox';
import { client, start } from './helpers';

let sb: Sandbox;
let call: ReturnType<typeof client>;
beforeEach(async () => {
  sb = await start();
  call = client(sb);
});
afterEach(() => sb.close());

test('slow responses and per-request latency delay answers by real milliseconds', async () => {
  // A long hold, so "the second call is not held" has a wide margin on a loaded machine.
  sb.faults.slow({ path: '/v1/jobs', delayMs: 1500, count: 1 });
  let t = Date.now();
  await call('GET', '/v1/jobs');
  expect(Date.now() - t).toBeGreaterThanOrEqual(1490);
  t = Date.now();
  await call('GET', '/v1/jobs');
  expect(Date.now() - t).toBeLessThan(750);
  sb.faults.setLatency(80);
  t = Date.now();
  await call('GET', '/v1/account');
  expect(Date.now() - t).toBeGreaterThanOrEqual(75);
});

test('a slow verification is held 30 s of spec time before its 408', async () => {
  const started = Date.now();
  const r = await call('POST', '/v1/verify/single', { body: { email: 'slow1@example.com' } });
  expect(r.status).toBe(408);
  expect(Date.now() - started).toBeGreaterThanOrEqual(300 * 0.9); // 30 s at timeScale 0.01
});
