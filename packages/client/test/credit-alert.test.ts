/**
 * Low credit: once per drop below a threshold, and a list checked against the balance. Pure.
 */
import { InputError, coverList, creditBelow, creditThreshold, type BelowMemory } from '@evf/client';

const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);

test('a balance falling through the threshold fires once per drop, with a new id after a rise', () => {
  const polls = [1500, 900, 700, 400, 1200, 800];
  let memory: BelowMemory = { since: null };
  const ids: string[] = [];
  polls.forEach((credits, i) => {
    const out = creditBelow(memory, credits, 1000, T0 + i * 60_000);
    memory = out.memory;
    if (out.item) ids.push(out.item.id);
  });
  const first = `below:1000:${new Date(T0 + 60_000).toISOString()}`;
  const second = `below:1000:${new Date(T0 + 5 * 60_000).toISOString()}`;
  expect(ids).toEqual([first, first, first, second]);
  expect(new Set(ids).size).toBe(2);
  expect(creditBelow({ since: null }, 400, 1000, T0).item).toMatchObject({
    credits_short: 600,
    threshold: 1000,
  });
  expect(creditBelow(undefined, 1000, 1000, T0)).toEqual({ item: null, memory: { since: null } });
});

test('the threshold is a whole number of credits, 1 or more', () => {
  expect(creditThreshold('1,000')).toBe(1000);
  expect(creditThreshold(25)).toBe(25);
  for (const bad of ['', '0', '1.5', 'abc', null]) expect(() => creditThreshold(bad)).toThrow(InputError);
});

test('a list larger than the balance: how many credits are missing, and what is sent', () => {
  expect(coverList(100, 100, 'sendNothing')).toEqual({ covered: true, send: 100, missing: 0, message: null });
  expect(coverList(1200, 1000, 'sendNothing')).toEqual({
    covered: false,
    send: 0,
    missing: 200,
    message:
      'The list has 1,200 addresses and 1,000 credits are left: 200 credits are missing. Nothing was sent and nothing was charged.',
  });
  expect(coverList(1200, 1000, 'sendWhatFits')).toMatchObject({ send: 1000, missing: 200 });
  expect(coverList(1200, 1000, 'sendWhatFits').message).toContain('Sending the first 1,000');
  expect(coverList(5, 0, 'sendWhatFits')).toMatchObject({ send: 0, missing: 5 });
});
