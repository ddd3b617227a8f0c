/**
 * The list run's rules, each on its own, against a tiny in-memory service behind the client's pluggable
 * transport (no socket, no wall clock): the doubt is stored before the POST leaves, a lost answer is
 * settled from the job list and never guessed, the one window and the user's period, and the service
 * check where no memory is kept. The sandbox matrix (list-run.sandbox.test.ts) crosses them with failures.
 */
import {
  EmailVerificationClient,
  LIST_WINDOW_MS,
  runList,
  SETTLE_AFTER_MS,
  type ListBook,
  type ListRunInput,
  type Transport,
} from '@evf/client';

const BASE = 'https://api.evf.test/api';
const DAY = 24 * 3600_000;
const list = ['a@x.com', 'b@x.com', 'c@x.com'];

interface FakeJob {
  job_id: string;
  status: string;
  total_emails: number;
  processed: number;
  progress_percent: number;
  created_at: string;
}

/** The service as the spec shows it, in memory; `loseNext` takes a POST and loses its answer. */
function fakeService(clock: { t: number }) {
  const jobs: FakeJob[] = [];
  const state = { loseNext: false, dropNext: false, onPost: (): void => undefined };
  const reply = (status: number, body: unknown) => ({
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const transport: Transport = async (req) => {
    const url = new URL(req.url);
    const path = url.pathname.replace('/api', '');
    if (req.method === 'POST' && path === '/v1/verify/bulk') {
      state.onPost();
      if (state.dropNext) {
        state.dropNext = false;
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      }
      const emails = (JSON.parse(req.body ?? '{}') as { emails: string[] }).emails;
      const job: FakeJob = {
        job_id: `job_${jobs.length + 1}`,
        status: 'completed',
        total_emails: new Set(emails.map((e) => e.toLowerCase())).size,
        processed: emails.length,
        progress_percent: 100,
        created_at: new Date(clock.t).toISOString(),
      };
      jobs.unshift(job);
      if (state.loseNext) {
        state.loseNext = false;
        throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      }
      return reply(202, {
        ...job,
        status: 'queued',
        estimated_seconds: 1,
        credits_used: job.total_emails,
        credits_remaining: 100,
      });
    }
    if (req.method === 'GET' && path === '/v1/jobs') {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      return reply(200, { jobs: jobs.slice(offset, offset + limit), limit, offset });
    }
    if (req.method === 'GET' && path === '/v1/account')
      return reply(200, { plan: 'pro', credits: 100, credits_used_today: 0 });
    return reply(404, { error: 'not_found' });
  };
  return { jobs, state, transport };
}

function setup() {
  const clock = { t: Date.UTC(2026, 0, 15, 9, 0, 0) };
  const service = fakeService(clock);
  const client = new EmailVerificationClient({
    apiKey: 'evf_unit_key_1234567890',
    baseUrl: BASE,
    transport: service.transport,
    runtime: { now: () => clock.t, sleep: async (ms) => void (clock.t += ms), random: () => 0.5 },
    retry: { maxRetries: 0 },
  });
  let stored: ListBook | undefined;
  const go = (extra: Partial<ListRunInput> = {}) =>
    runList(client, {
      list: { emails: list },
      book: stored,
      now: clock.t,
      store: (book) => void (stored = structuredClone(book)),
      ...extra,
    });
  return { clock, service, go, stored: () => stored, forget: () => void (stored = undefined) };
}

test('the doubt is stored before the POST leaves, and cleared once the job is known', async () => {
  const s = setup();
  let atPost: ListBook | undefined;
  s.service.state.onPost = () => void (atPost = s.stored());
  const result = await s.go();
  expect(atPost?.lists[0]?.inDoubt).toMatchObject({ emails: list, sizes: [3] });
  expect(result.outcome.kind).toBe('sent');
  expect(s.stored()?.lists[0]?.inDoubt).toBeUndefined();
  expect(s.stored()?.lists[0]?.memory.jobs.map((j) => j.job_id)).toEqual(['job_1']);
});

test('a lost answer is settled from the job list: the job is taken as sent, nothing is sent twice', async () => {
  const s = setup();
  s.service.state.loseNext = true;
  const first = await s.go();
  expect(first.recovered.map((j) => j.job_id)).toEqual(['job_1']);
  expect(first.note).toMatch(/lost on the way back; the service shows the job/);
  s.clock.t += 1000;
  const again = await s.go();
  expect(again.outcome).toMatchObject({ kind: 'held', reason: 'finished' });
  expect(s.service.jobs).toHaveLength(1);
});

test('a request that never arrived stays in doubt until it could no longer arrive, then goes', async () => {
  const s = setup();
  s.service.state.dropNext = true;
  const first = await s.go();
  expect(s.service.jobs).toHaveLength(0);
  expect(first.unsent).toEqual(list);
  expect(Date.parse(String(first.unsentAfter))).toBe(s.clock.t + SETTLE_AFTER_MS);
  s.clock.t += 1000;
  expect((await s.go()).outcome).toMatchObject({ kind: 'held', reason: 'in_doubt' });
  expect(s.service.jobs).toHaveLength(0);
  s.clock.t += SETTLE_AFTER_MS;
  expect((await s.go()).outcome.kind).toBe('sent');
  expect(s.service.jobs).toHaveLength(1);
});

test('one window: a finished list given again within 30 days stays finished, and the window slides', async () => {
  const s = setup();
  await s.go();
  for (let day = 1; day <= 3; day++) {
    s.clock.t += 20 * DAY;
    expect((await s.go()).outcome).toMatchObject({ kind: 'held', reason: 'finished' });
  }
  s.clock.t += LIST_WINDOW_MS + DAY;
  expect((await s.go()).outcome.kind).toBe('sent');
  expect(s.service.jobs).toHaveLength(2);
});

test("the user's period forgets a finished list that long after it finished", async () => {
  const s = setup();
  await s.go({ keepFinishedMs: 3 * DAY });
  s.clock.t += 2 * DAY;
  expect((await s.go({ keepFinishedMs: 3 * DAY })).outcome.kind).toBe('held');
  s.clock.t += 2 * DAY;
  expect((await s.go({ keepFinishedMs: 3 * DAY })).outcome.kind).toBe('sent');
});

test('without memory the service is asked first: a job of the same size holds the list, unless sent again', async () => {
  const s = setup();
  const first = await s.go({ memoryKept: false });
  expect(first.note).toMatch(/keeps no memory: running it again could charge these 3 addresses again/);
  s.forget();
  s.clock.t += DAY;
  const held = await s.go({ memoryKept: false });
  expect(held.outcome).toMatchObject({ kind: 'held', reason: 'earlier_on_service' });
  expect(held.unsent).toEqual(list);
  s.forget();
  expect((await s.go({ memoryKept: false, sendAgain: true })).outcome.kind).toBe('sent');
  expect(s.service.jobs).toHaveLength(2);
});

test('a run that dies after its POST left (a worker lost) leaves the doubt, which the next run settles', async () => {
  const s = setup();
  let atPost: ListBook | undefined;
  s.service.state.onPost = () => void (atPost = s.stored());
  await s.go();
  // What storage holds when the process dies as the request leaves: the doubt, nothing else.
  const next = await s.go({ book: atPost, load: undefined });
  expect(next.recovered.map((j) => j.job_id)).toEqual(['job_1']);
  expect(next.outcome).toMatchObject({ kind: 'held', reason: 'finished' });
  expect(s.service.jobs).toHaveLength(1);
});
