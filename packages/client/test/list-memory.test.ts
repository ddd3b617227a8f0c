/**
 * nextSend and rememberRun: what a step sends now for a list it may have sent part of before. Pure.
 */
import { nextSend, rememberRun, type ListSubmission } from '@evf/client';

const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);
const DAY = 24 * 3600_000;
const list = ['a@x.com', 'B@x.com', 'c@x.com', 'd@x.com', 'e@x.com'];
type Run = Pick<ListSubmission, 'jobs' | 'unsent' | 'unsentAfter' | 'stoppedBy'>;
const job = (id: string, n: number) => ({
  job_id: id,
  status: 'queued',
  total_emails: n,
  estimated_seconds: 1,
  credits_used: n,
  credits_remaining: 0,
  created_at: new Date(T0).toISOString(),
});

test('a list never seen is sent whole', () => {
  expect(nextSend(list, undefined, T0)).toMatchObject({
    send: list,
    remembered: false,
    done: false,
    alreadySent: 0,
  });
});

test('after a stop: nothing before its time, then only the unsent, whether given the list or the unsent', () => {
  const day1: Run = {
    jobs: [job('j1', 2)],
    unsent: ['c@x.com', 'd@x.com', 'e@x.com'],
    unsentAfter: new Date(T0 + DAY).toISOString(),
    stoppedBy: 'allowance',
  };
  const memory = rememberRun(undefined, list, day1);
  expect(JSON.parse(JSON.stringify(memory))).toEqual(memory);
  // The same list again at once, in another order and case: remembered, nothing to send yet.
  expect(
    nextSend(['e@x.com', 'A@X.COM', 'b@x.com', 'c@x.com', 'd@x.com', 'a@x.com'], memory, T0 + 1000),
  ).toMatchObject({
    send: [],
    notBefore: day1.unsentAfter,
    remembered: true,
    alreadySent: 2,
    done: false,
  });
  // The next day: only the unsent, from the list or from the unsent mapped into the next run.
  expect(nextSend(list, memory, T0 + DAY).send).toEqual(day1.unsent);
  expect(nextSend(day1.unsent, memory, T0 + DAY).send).toEqual(day1.unsent);

  const day2: Run = {
    jobs: [job('j2', 2)],
    unsent: ['e@x.com'],
    unsentAfter: new Date(T0 + 2 * DAY).toISOString(),
    stoppedBy: 'allowance',
  };
  const memory2 = rememberRun(memory, day1.unsent, day2);
  expect(memory2.jobs.map((j) => j.job_id)).toEqual(['j1', 'j2']);
  // Day 1's unsent list given again on day 3: the addresses sent on day 2 are not sent again.
  expect(nextSend(day1.unsent, memory2, T0 + 2 * DAY).send).toEqual(['e@x.com']);
  expect(nextSend(list, memory2, T0 + 2 * DAY).send).toEqual(['e@x.com']);

  const day3: Run = { jobs: [job('j3', 1)], unsent: [] };
  const done = rememberRun(memory2, list, day3);
  expect(nextSend(list, done, T0 + 3 * DAY)).toMatchObject({ send: [], done: true, alreadySent: 5 });
  expect(done.jobs.map((j) => j.job_id)).toEqual(['j1', 'j2', 'j3']);
});

test('a stop with no time (the time budget): the rest can go at once', () => {
  const memory = rememberRun(undefined, list, {
    jobs: [job('j1', 2)],
    unsent: ['c@x.com', 'd@x.com', 'e@x.com'],
    stoppedBy: 'time_budget',
  });
  expect(nextSend(list, memory, T0).send).toEqual(['c@x.com', 'd@x.com', 'e@x.com']);
});

test('another list is not this memory: sent whole, and the memory after it is about it', () => {
  const memory = rememberRun(undefined, list, { jobs: [job('j1', 5)], unsent: [] });
  const other = ['z@x.com'];
  expect(nextSend(other, memory, T0)).toMatchObject({ send: other, remembered: false });
  expect(rememberRun(memory, other, { jobs: [job('j9', 1)], unsent: [] }).jobs.map((j) => j.job_id)).toEqual([
    'j9',
  ]);
});
