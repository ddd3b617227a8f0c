/**
 * The Zapier steps' waits on the wall clock, against nock: a short 429 waited out inside the step, and
 * a results read that stops when its time budget is spent. Timed by the wall clock, so e2e; the rest
 * of these steps' behaviour is in operations.test.ts.
 */
import { BASE, run, steps, bundle, useBaseUrl } from './helpers';
import { api, replyWith, useNock } from './mock-api';
import { clientFor } from '../src/client';
import { collectRows } from '../src/rows';

useBaseUrl(() => BASE);
useNock();

describe('Submit Bulk Verification', () => {
  it('waits out a short 429 itself and then succeeds', async () => {
    replyWith(api().post('/v1/verify/bulk'), 'error.429', undefined, { 'x-ratelimit-reset': '1' });
    replyWith(api().post('/v1/verify/bulk'), 'verify-bulk.202');
    const started = Date.now();
    const out: any = await run(steps.bulk, bundle({ emails: ['a@acme-corp.com'] }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(out.job_count).toBe(1);
  });
});

describe('reading results within Zapier limits', () => {
  const JOB = 'job_7f3c2a9e41b84d05';
  const collect = (maxRows: number, budgetMs: number) =>
    run(
      async (z, b) => collectRows(clientFor(z, b), JOB, { maxRows, deadline: Date.now() + budgetMs }),
      bundle(),
    );

  it('stops when the time budget is spent and returns what was read', async () => {
    replyWith(api().get(`/v1/jobs/${JOB}`), 'job.completed.200');
    replyWith(
      api()
        .get(`/v1/jobs/${JOB}/results`)
        .query((q) => q.page === '1'),
      'results.page1.200',
    );
    replyWith(
      api()
        .get(`/v1/jobs/${JOB}/results`)
        .query((q) => q.page === '2')
        .delay(5_000),
      'results.page2.200',
    );
    const started = Date.now();
    // A 1 s budget: page 1 (answered at once) must be in before it runs out, even on a loaded machine.
    const out = await collect(1_000, 1_000);
    // The slow page is abandoned, not awaited: far below its 5 s even on a loaded machine.
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(out.rows).toHaveLength(5);
    expect(out.truncated).toBe(true);
    expect(out.nextStartRow).toBe(6);
    expect(out.note).toMatch(/30-second step limit; 5 rows are returned.*Start at Row = 6/);
  });
});
