/**
 * Make's 40 s module timeout (harness/make-rules.ts) counts a module's declared repeat waits and the
 * real time of its requests together: with 30 s of waits declared, a request that never answers is cut
 * after the remaining 10 s of real time. Timed by the wall clock, so e2e; the bound is twice the 10 s
 * expected and half of the 40 s a timeout ignoring the waits would take.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MakeRuleError } from './harness/make-rules';
import { runModuleDef } from './harness/make-runtime';

it('a module whose declared waits and a slow answer together pass 40 s is cut off', async () => {
  // Three quick "still running" answers, then one that never comes.
  let calls = 0;
  const server = createServer((_req, res) => {
    calls += 1;
    if (calls <= 3) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ terminal: false }));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    const slowConn = {
      apiKey: 'evf_test_module_timeout',
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
    };
    const started = Date.now();
    const error = await runModuleDef(
      {
        id: 'slow',
        moduleType: 'action',
        params: [{ name: 'job_id', type: 'text', label: 'Job ID', required: true }],
        communication: {
          url: '/v1/jobs/{{parameters.job_id}}',
          method: 'GET',
          repeat: { condition: '{{temp.t != true}}', delay: 10000, limit: 4 },
          response: { temp: { t: '{{body.terminal}}' }, output: '{{body}}' },
        },
      },
      { job_id: 'job_x' },
      slowConn,
      { repeatDelayMs: 1 },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MakeRuleError);
    expect((error as MakeRuleError).rule).toBe('moduleTimeout');
    expect(calls).toBe(4);
    expect(Date.now() - started).toBeLessThan(20_000);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}, 60_000);
