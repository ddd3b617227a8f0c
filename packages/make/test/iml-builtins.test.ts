/**
 * The app's logic written in Make's built-in IML functions, run beside the client's own code it
 * copies: the category mapping (Verify, List bulk job results) over every primary_label x tag combination,
 * and the one terminal-status rule (Check a bulk job, List bulk job results) over every status the
 * client knows and some it does not. Make cannot import @evf/client, so these copies are pinned here.
 */
import { categorize, isJobStopped, JOB_STATUSES, STOPPED_STATUSES } from '@evf/client';
import { readJsonc } from './harness/app-files';
import { evaluate, evaluateString } from './harness/iml';
import { loadModule, type Directive } from './harness/make-runtime';

/** A module's request, or the first of its requests (Check a bulk job repeats the first, then reads once more). */
const single = (id: string): Directive => {
  const c = loadModule(id).communication;
  return Array.isArray(c) ? c[0]! : c;
};

const LABELS = [
  'valid',
  'catch_all',
  'inbox_full',
  'invalid',
  'disabled',
  'unknown',
  'not_verified',
  'a_label_added_later',
  '',
  undefined,
  null,
];
const TAGS = ['spam_trap', 'disposable', 'role', 'free_provider'];
const subsets = <T>(xs: T[]): T[][] =>
  xs.reduce<T[][]>((acc, x) => [...acc, ...acc.map((s) => [...s, x])], [[]]);

const DETAILS: unknown[] = [
  null,
  undefined,
  {},
  { tags: null },
  ...LABELS.flatMap((primary_label) =>
    subsets(TAGS).map((tags) => ({ primary_label, tags: tags.map((label) => ({ label })) })),
  ),
  // Tags in another order, and a tag without a label: tags still win in the spec's order.
  { primary_label: 'valid', tags: [{ label: 'role' }, { label: 'spam_trap' }] },
  { primary_label: 'valid', tags: [{}, { label: 'disposable' }] },
];

const expected = (details: unknown, source: 'bulk' | 'single' = 'bulk') => {
  const c = categorize(details as Parameters<typeof categorize>[0], { source });
  return { category: c.category, group: c.group, safe_to_send: c.safeToSend };
};

const vars = (extra: Record<string, unknown>) => ({ variables: { parameters: {}, temp: {}, ...extra } });

describe('the category mapping in built-in IML equals the client', () => {
  it(`Verify an email address: ${DETAILS.length} details`, () => {
    const d = single('verifyEmail');
    for (const details of DETAILS) {
      const body = { email: 'a@example.com', details };
      const temp = evaluate(d.response!.temp, vars({ body })) as Record<string, unknown>;
      const out = evaluate(d.response!.output, vars({ body, temp })) as Record<string, unknown>;
      expect({
        details,
        got: { category: out.category, group: out.group, safe_to_send: out.safe_to_send },
      }).toEqual({ details, got: expected(details, 'single') });
    }
  });

  it(`List bulk job results: ${DETAILS.length} details, and the group filter picks the same rows`, () => {
    const d = single('listResults');
    const iterate = d.response!.iterate as { condition: string };
    for (const details of DETAILS) {
      const item = { email: 'a@example.com', details };
      const page = { page: 1, per_page: 1000, total: 1, has_more: false, status: 'completed' };
      const temp = { rows_per_page: 1000, pages: 3, last_page: 3 };
      const out = evaluate(d.response!.output, vars({ item, body: page, temp })) as Record<string, unknown>;
      expect({
        details,
        got: { category: out.category, group: out.group, safe_to_send: out.safe_to_send },
      }).toEqual({ details, got: expected(details) });
      for (const group of ['safe_to_send', 'risky', 'invalid']) {
        expect(evaluateString(iterate.condition, vars({ item, parameters: { group } }))).toBe(
          expected(details).group === group,
        );
      }
      expect(evaluateString(iterate.condition, vars({ item, parameters: {} }))).toBe(true);
    }
  });
});

describe('one terminal-status rule: the Make copies equal the client isJobStopped', () => {
  const statuses = [...JOB_STATUSES, 'paused', 'archived', 'COMPLETED', ''];

  it('the status lists written in the app are the client STOPPED_STATUSES', () => {
    const text = JSON.stringify([single('waitForJob'), single('listResults')]);
    const lists = [...text.matchAll(/split\('([^']*)', ','\)/g)].map((m) => m[1]);
    expect(lists).toHaveLength(3);
    for (const l of lists) expect(l!.split(',')).toEqual([...STOPPED_STATUSES]);
  });

  it('Check a bulk job: stops exactly when the client would (flag first, then status; unknown = running)', () => {
    const d = single('waitForJob');
    for (const status of statuses) {
      for (const terminal of [true, false, undefined, null]) {
        const temp = evaluate(d.response!.temp, vars({ body: { status, terminal } })) as Record<
          string,
          unknown
        >;
        const keepWaiting = evaluateString(d.repeat!.condition, { variables: { temp } });
        expect({ status, terminal, stopped: !keepWaiting }).toEqual({
          status,
          terminal,
          stopped: isJobStopped({ status: status as never, terminal }),
        });
      }
    }
  });
});

describe('error messages come from built-in IML only and say what to do', () => {
  const base = readJsonc('general/base.iml.json') as {
    response: { error: Record<string, { message: string }> };
  };

  it('422 names the refused addresses; 429 and 503 carry their wait headers', () => {
    const e = base.response.error;
    const body = {
      error: {
        message: 'invalid input',
        invalid_emails: [
          { email: 'no-at-sign', index: 1, reason: 'syntax' },
          { email: 'x@', index: 3 },
        ],
      },
    };
    expect(evaluateString(e['422']!.message, vars({ body, headers: {}, statusCode: 422 }))).toContain(
      'no-at-sign, x@',
    );
    expect(
      evaluateString(
        e['422']!.message,
        vars({ body: { error: { message: 'bad field' } }, headers: {}, statusCode: 422 }),
      ),
    ).toContain('none named');
    expect(
      evaluateString(
        e['429']!.message,
        vars({ body: {}, headers: { 'x-ratelimit-reset': '1767225600' }, statusCode: 429 }),
      ),
    ).toContain('after 1 January 2026, 00:00 UTC'); // epoch seconds read as a date
    expect(
      evaluateString(
        e['503']!.message,
        vars({ body: {}, headers: { 'retry-after': '20' }, statusCode: 503, now: new Date() }),
      ),
    ).toMatch(/Reading is safe to run again after \d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC\./);
    expect(
      evaluateString(
        e.message as unknown as string,
        vars({ body: 'plain text', headers: {}, statusCode: 500 }),
      ),
    ).toBe('The email verification service answered HTTP 500: no reason given.');
  });

  type ErrorSpecs = Record<string, { type?: string; message: string }>;
  /** The request that sends (Submit may read the plan first; Verify reads the account for a bad cell). */
  const sending = (id: string): Directive => {
    const c = loadModule(id).communication;
    return Array.isArray(c) ? (c.find((d) => d.method === 'POST') ?? c[0]!) : c;
  };
  const ownErrors = (id: string) => (sending(id).response!.error ?? {}) as unknown as ErrorSpecs;
  const typeOf = (spec: { type?: string }, v: ReturnType<typeof vars>) =>
    spec.type === undefined ? 'RuntimeError' : evaluateString(spec.type, v);

  it('the charged POSTs get a type Make reruns exactly when the status comes with its wait header, whatever the body', () => {
    // The spec shows no error body shape: the service's own "not now" is the status with its header.
    const cases: [string, string, string][] = [
      ['429', 'x-ratelimit-reset', 'RateLimitError'],
      ['503', 'retry-after', 'ConnectionError'],
    ];
    for (const id of ['submitBulk', 'verifyEmail']) {
      const e = ownErrors(id);
      for (const [status, header, retried] of cases) {
        const spec = e[status]!;
        const at = (body: unknown, headers: Record<string, string>) =>
          typeOf(spec, vars({ body, headers, statusCode: Number(status) }));
        for (const body of [
          { error: { code: 'rate_limited', message: 'over the allowance' } },
          { message: 'Too many requests' },
          'Too Many Requests',
          undefined,
        ]) {
          expect({ body, type: at(body, { [header]: '30' }) }).toEqual({ body, type: retried });
          // Without the wait header nobody said "not now": it may have been acted on, never rerun.
          expect({ body, type: at(body, {}) }).toEqual({ body, type: 'RuntimeError' });
          expect({ body, type: at(body, { [header]: '' }) }).toEqual({ body, type: 'RuntimeError' });
        }
      }
      // Every other status and the default: a type Make does not rerun.
      for (const [key, spec] of Object.entries(e)) {
        if (key === '429' || key === '503' || key === 'message' || key === 'type') continue;
        expect(['RuntimeError', 'DataError', 'InvalidAccessTokenError']).toContain(spec.type);
      }
      expect((e as unknown as { type: string }).type).toBe('RuntimeError');
    }
  });

  it("every 503's Retry-After reads as a date, rounded up to the minute", () => {
    const now = new Date('2026-01-01T00:00:00Z');
    for (const id of ['submitBulk', 'verifyEmail', 'makeApiCall']) {
      const text = evaluateString(
        ownErrors(id)['503']!.message,
        vars({
          body: {},
          headers: { 'retry-after': '90' },
          statusCode: 503,
          now,
          parameters: { method: 'POST' },
        }),
      ) as string;
      expect({ id, date: text.includes('1 January 2026, 00:02 UTC'), raw: /\b90\b/.test(text) }).toEqual({
        id,
        date: true,
        raw: false,
      });
    }
  });

  it('every 429 says when as a date, from epoch seconds, seconds to wait or an HTTP date', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const forms: [string, string][] = [
      ['1767229200', '1 January 2026, 01:00 UTC'],
      // 90 s is 00:01:30: the minute shown is rounded up, never one before the request fits.
      ['90', '1 January 2026, 00:02 UTC'],
      ['Thu, 01 Jan 2026 02:00:00 GMT', 'Thu, 01 Jan 2026 02:00:00 GMT'],
    ];
    for (const id of ['submitBulk', 'verifyEmail', 'makeApiCall']) {
      const spec = ownErrors(id)['429']!;
      for (const [header, shown] of forms) {
        const text = evaluateString(
          spec.message,
          vars({
            body: {},
            headers: { 'x-ratelimit-reset': header },
            statusCode: 429,
            now,
            parameters: { method: 'POST' },
          }),
        ) as string;
        expect({ id, header, text: text.includes(shown) }).toEqual({ id, header, text: true });
        if (header === '1767229200') expect(text).not.toContain(header);
      }
    }
  });

  it('the entries a module repeats from the base (401, 402, 403) are the same words, so they cannot drift apart', () => {
    const b = base.response.error as unknown as ErrorSpecs;
    for (const id of ['submitBulk', 'verifyEmail', 'makeApiCall']) {
      const e = ownErrors(id);
      for (const status of ['401', '402', '403']) expect(e[status]).toEqual(b[status]);
    }
  });
});
