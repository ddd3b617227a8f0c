/**
 * Watch new bulk jobs through the harness's model of Make's polling trigger (make-runtime.ts: Make
 * keeps the newest (date, id) it emitted and, on the worse reading of `limit`, only the newest
 * `limit` new items), against a job list in the spec's shape served by nock: newest first, pages by
 * limit and offset, `created_at` in whole seconds (as the spec's examples give it) and random hex
 * job IDs, so two jobs of one second sort by an ID that says nothing about which came first.
 */
import nock from 'nock';
import { validateResponse } from '@evf/contract';
import { useNock } from '../../../test/support/nock';
import { runModule, type MakeConnection, type TriggerState } from './harness/make-runtime';

const ORIGIN = 'https://api.evf.test';
const conn: MakeConnection = { apiKey: 'evf_make_unit_key_8e3f10', baseUrl: `${ORIGIN}/api` };
const T0 = Date.parse('2026-11-20T09:00:00Z');

useNock();

interface Job {
  job_id: string;
  status: string;
  total_emails: number;
  processed: number;
  progress_percent: number;
  created_at: string;
}

/** The service's job list; `jobs` is kept oldest first, the answer is newest first. */
function serve(jobs: Job[]): void {
  nock(`${ORIGIN}/api`, { reqheaders: { 'x-api-key': conn.apiKey } })
    .get('/v1/jobs')
    .query(true)
    .reply((uri) => {
      const q = new URL(uri, ORIGIN).searchParams;
      const limit = Math.min(Number(q.get('limit') ?? 20), 100);
      const offset = Number(q.get('offset') ?? 0);
      const body = { jobs: [...jobs].reverse().slice(offset, offset + limit), limit, offset };
      expect(validateResponse('GET', '/v1/jobs', 200, body).errors).toEqual([]);
      return [200, body];
    })
    .persist();
}

let seq = 0;
/** A job created at `atMs` (stored to the whole second) with an ID that sorts by `idPrefix`. */
function job(atMs: number, idPrefix = ''): Job {
  seq += 1;
  const rand = ((seq * 2654435761) >>> 0).toString(16).padStart(8, '0');
  return {
    job_id: `job_${idPrefix}${rand}${seq.toString(16).padStart(6, '0')}`,
    status: 'queued',
    total_emails: 10,
    processed: 0,
    progress_percent: 0,
    created_at: new Date(Math.floor(atMs / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
  };
}

async function poll(state: TriggerState | undefined, nowMs: number, params: Record<string, unknown> = {}) {
  const r = await runModule('watchNewJobs', params, conn, { triggerState: state, now: new Date(nowMs) });
  return { ids: (r.bundles as Job[]).map((b) => b.job_id), state: r.triggerState };
}

test('250 new jobs between two runs (more than 100, the old default Limit): every one emitted once, oldest first', async () => {
  const jobs: Job[] = [job(T0)];
  serve(jobs);
  const first = await poll(undefined, T0 + 3_600_000);
  expect(first.ids).toEqual([jobs[0]!.job_id]);
  const burst = Array.from({ length: 250 }, (_, i) => job(T0 + 60_000 + i * 1000));
  jobs.push(...burst);
  const seen = new Set<string>();
  let state = first.state;
  for (let run = 0; run < 3; run++) {
    const r = await poll(state, T0 + 7_200_000 + run * 900_000);
    for (const id of r.ids) {
      expect(seen.has(id)).toBe(false);
      seen.add(id);
    }
    state = r.state;
  }
  expect([...seen]).toEqual(burst.map((j) => j.job_id));
});

test('jobs created in the same second: none skipped, none twice, whatever their IDs sort as', async () => {
  const jobs: Job[] = [];
  serve(jobs);
  const second = T0 + 10_000;
  // The first job of the second has an ID that sorts high; the next, created later in the same
  // second, one that sorts low (Make sorts by date, then id).
  jobs.push(job(second, 'f'));
  const early = await poll(undefined, second + 500);
  jobs.push(job(second + 400, '0'));
  const seen: string[] = [...early.ids];
  let state = early.state;
  for (const at of [second + 900, second + 5_000, second + 120_000, second + 240_000]) {
    const r = await poll(state, at);
    seen.push(...r.ids);
    state = r.state;
  }
  expect(seen.sort()).toEqual(jobs.map((j) => j.job_id).sort());
});
