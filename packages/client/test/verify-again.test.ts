/**
 * When an Unknown or Not Verified answer is tried again: the delays, the cap, definite answers never. Pure.
 */
import {
  VERIFY_AGAIN_DELAYS_MS,
  dueAgain,
  isDueAgain,
  mayVerifyAgain,
  openVerifyAgain,
  recordAnswers,
  verifyAgainFields,
  entryFor,
  answeredRowFields,
  isRowDueAgain,
} from '@evf/client';

const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);
const HOUR = 3600_000;

test('only Unknown and Not Verified may be tried again', () => {
  expect(mayVerifyAgain('unknown')).toBe(true);
  expect(mayVerifyAgain('not_verified')).toBe(true);
  for (const s of ['valid', 'invalid', 'disposable', 'catch_all', undefined, 3])
    expect(mayVerifyAgain(s)).toBe(false);
  expect(VERIFY_AGAIN_DELAYS_MS).toEqual([6 * HOUR, 24 * HOUR]);
});

test('an Unknown row is due once after 6 hours, then after 24, then never, with a reason', () => {
  let memory = recordAnswers(openVerifyAgain(undefined), [{ email: 'A@x.com', status: 'unknown' }], T0);
  expect(verifyAgainFields(entryFor(memory, 'a@x.com'), 'unknown')).toEqual({
    verify_again_after: new Date(T0 + 6 * HOUR).toISOString(),
    verify_attempts: 1,
    verify_again_reason: null,
  });
  expect(isDueAgain(memory, 'a@x.com', 'unknown', T0 + 6 * HOUR - 1)).toBe(false);
  expect(isDueAgain(memory, 'a@x.com', 'unknown', T0 + 6 * HOUR)).toBe(true);

  const t1 = T0 + 7 * HOUR;
  memory = recordAnswers(memory, [{ email: 'a@x.com', status: 'unknown' }], t1);
  expect(verifyAgainFields(entryFor(memory, 'a@x.com'), 'unknown').verify_again_after).toBe(
    new Date(t1 + 24 * HOUR).toISOString(),
  );
  expect(isDueAgain(memory, 'a@x.com', 'unknown', t1 + 23 * HOUR)).toBe(false);
  expect(isDueAgain(memory, 'a@x.com', 'unknown', t1 + 24 * HOUR)).toBe(true);

  memory = recordAnswers(memory, [{ email: 'a@x.com', status: 'not_verified' }], t1 + 25 * HOUR);
  expect(verifyAgainFields(entryFor(memory, 'a@x.com'), 'not_verified')).toEqual({
    verify_again_after: null,
    verify_attempts: 3,
    verify_again_reason: 'Unknown after being verified 3 times: not tried again.',
  });
  expect(isDueAgain(memory, 'a@x.com', 'not_verified', t1 + 1000 * HOUR)).toBe(false);
  expect(dueAgain(memory, t1 + 1000 * HOUR)).toEqual({ due: [], nextAt: null });
});

test('a definite answer is never open again and is forgotten', () => {
  let memory = recordAnswers(openVerifyAgain(null), [{ email: 'a@x.com', status: 'unknown' }], T0);
  memory = recordAnswers(memory, [{ email: 'a@x.com', status: 'valid' }], T0 + 7 * HOUR);
  expect(entryFor(memory, 'a@x.com')).toBeUndefined();
  expect(isDueAgain(memory, 'a@x.com', 'valid', T0 + 1000 * HOUR)).toBe(false);
  expect(verifyAgainFields(undefined, 'invalid')).toEqual({
    verify_again_after: null,
    verify_attempts: 1,
    verify_again_reason: null,
  });
});

test('a row the memory never saw is due from the time its answer was written', () => {
  const memory = openVerifyAgain({ emails: { bad: { attempts: 'x' } } });
  expect(memory.emails).toEqual({});
  const at = new Date(T0).toISOString();
  expect(isDueAgain(memory, 'b@x.com', 'unknown', T0 + 5 * HOUR, {}, at)).toBe(false);
  expect(isDueAgain(memory, 'b@x.com', 'unknown', T0 + 6 * HOUR, {}, at)).toBe(true);
  expect(isDueAgain(memory, 'b@x.com', 'unknown', T0 + 6 * HOUR)).toBe(false);
});

test('a stated policy: one more try after an hour; dueAgain gives the next time', () => {
  const policy = { delaysMs: [HOUR] };
  const memory = recordAnswers(
    openVerifyAgain(undefined),
    [
      { email: 'a@x.com', status: 'unknown' },
      { email: 'b@x.com', status: 'valid' },
    ],
    T0,
  );
  expect(dueAgain(memory, T0, policy)).toEqual({ due: [], nextAt: new Date(T0 + HOUR).toISOString() });
  expect(dueAgain(memory, T0 + HOUR, policy)).toEqual({ due: ['a@x.com'], nextAt: null });
  const after = recordAnswers(memory, [{ email: 'a@x.com', status: 'unknown' }], T0 + HOUR);
  expect(verifyAgainFields(entryFor(after, 'a@x.com'), 'unknown', policy).verify_again_reason).toBe(
    'Unknown after being verified 2 times: not tried again.',
  );
});

test('a row that keeps its own count: fields for a new answer, and when it is due', () => {
  const first = answeredRowFields('', 'unknown', T0);
  expect(first).toEqual({
    verify_again_after: new Date(T0 + 6 * HOUR).toISOString(),
    verify_attempts: 1,
    verify_again_reason: null,
  });
  expect(isRowDueAgain(first, T0 + 6 * HOUR - 1)).toBe(false);
  expect(isRowDueAgain(first, T0 + 6 * HOUR)).toBe(true);
  expect(answeredRowFields(1, 'unknown', T0).verify_again_after).toBe(new Date(T0 + 24 * HOUR).toISOString());
  const capped = answeredRowFields('2', 'unknown', T0);
  expect(capped).toMatchObject({ verify_again_after: null, verify_attempts: 3 });
  expect(isRowDueAgain(capped, T0 + 1000 * HOUR)).toBe(false);
  expect(answeredRowFields(1, 'valid', T0)).toEqual({
    verify_again_after: null,
    verify_attempts: 2,
    verify_again_reason: null,
  });
  expect(isRowDueAgain({ verify_again_after: 'soon' }, T0)).toBe(false);
});

test('a result row is read by its primary label: an Unknown is status risky', () => {
  const row = { email: 'a@x.com', status: 'risky', details: { primary_label: 'unknown', tags: [] } };
  expect(mayVerifyAgain(row)).toBe(true);
  expect(mayVerifyAgain({ ...row, details: { primary_label: 'catch_all', tags: [] } })).toBe(false);
  expect(answeredRowFields(undefined, row, T0).verify_again_after).toBe(
    new Date(T0 + 6 * HOUR).toISOString(),
  );
});
