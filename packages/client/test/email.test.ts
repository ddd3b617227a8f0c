import {
  addressesByItem,
  isEmailSyntaxValid,
  emailProblem,
  preflightEmails,
  summarizePreflight,
} from '@evf/client';
import { planSubmission } from '../src/bulk';
import { parseEmailList, scanEmail, SCAN_OK_UPPER } from '../src/validation/email';

describe('email syntax', () => {
  test.each([
    'anna@acme.com',
    'first.last+tag@sub.example.co.uk',
    "o'brien@example.ie",
    'x@a-b.io',
    'UPPER@EXAMPLE.COM',
    'user@xn--bcher-kva.ch',
    'a@b.xn--p1ai',
    '1234567890@numbers.com',
    `${'a'.repeat(64)}@example.com`,
  ])('accepts %s', (email) => expect(isEmailSyntaxValid(email)).toBe(true));

  test.each([
    ['', 'is empty'],
    ['plainaddress', 'has no @'],
    ['a@@b.com', 'has more than one @'],
    ['a@b@c.com', 'has more than one @'],
    ['@example.com', 'has nothing before the @'],
    ['anna@', 'has nothing after the @'],
    ['.anna@example.com', 'dot'],
    ['anna.@example.com', 'dot'],
    ['an..na@example.com', 'dot'],
    ['anna@localhost', 'without a dot'],
    ['anna@example.c', 'top-level'],
    ['anna@example.123', 'top-level'],
    ['anna@-example.com', 'hyphen'],
    ['anna@example-.com', 'hyphen'],
    ['anna@exa..mple.com', 'empty'],
    ['anna@exam_ple.com', 'not allowed in a domain'],
    ['"quoted"@example.com', 'not allowed before the @'],
    ['anna@[192.168.0.1]', 'not allowed in a domain'],
    ['jörg@example.de', 'non-ASCII character (such as é or ü) before the @'],
    ['anna@bücher.de', 'non-ASCII characters in its domain'],
    [`${'a'.repeat(65)}@example.com`, 'more than 64'],
    [`a@${'b'.repeat(64)}.com`, 'over-long'],
    [`a@${'b.'.repeat(130)}com`, 'longer than'],
    ['anna smith@example.com', 'space'],
  ])('refuses %j (%s)', (email, why) => {
    expect(isEmailSyntaxValid(email)).toBe(false);
    expect(emailProblem(email)).toContain(why);
  });

  test('a non-ASCII name is not told to fix its domain (it has no xn-- form)', () => {
    expect(emailProblem('josé@example.com')).not.toMatch(/domain|xn--/);
    expect(emailProblem('jose@exämple.com')).toMatch(/xn--/);
  });

  test('notes upper case in the same pass', () => {
    expect(scanEmail('Anna@acme.com')).toBe(SCAN_OK_UPPER);
    expect(scanEmail('anna@acme.com')).toBe(0);
  });
});

describe('parseEmailList', () => {
  test('splits pasted text on lines, commas, semicolons and tabs', () => {
    expect(parseEmailList('a@x.com\r\nb@x.com, c@x.com;d@x.com\te@x.com\n\n')).toEqual([
      'a@x.com',
      'b@x.com',
      'c@x.com',
      'd@x.com',
      'e@x.com',
    ]);
  });
  test('splits list items that hold several addresses and drops empty cells', () => {
    expect(parseEmailList(['a@x.com, b@x.com', '', null, ' c@x.com '])).toEqual([
      'a@x.com',
      'b@x.com',
      'c@x.com',
    ]);
  });
});

describe('preflightEmails', () => {
  test('removes duplicates ignoring case, keeps the first spelling, reports the rest', () => {
    const r = preflightEmails(['Anna@Acme.com', 'bob@acme.com', 'anna@acme.COM', 'BOB@ACME.COM']);
    expect(r.unique).toEqual(['Anna@Acme.com', 'bob@acme.com']);
    expect(r.duplicates).toEqual([
      { email: 'anna@acme.COM', index: 2, firstIndex: 0 },
      { email: 'BOB@ACME.COM', index: 3, firstIndex: 1 },
    ]);
    expect(r.uniqueSourceIndex).toEqual([0, 1]);
  });

  test('splits malformed addresses out with reasons; they never reach the list', () => {
    const r = preflightEmails(['good@acme.com', 'bad@@acme.com', 'nope', 'also.good@acme.com']);
    expect(r.unique).toEqual(['good@acme.com', 'also.good@acme.com']);
    expect(r.malformed.map((m) => [m.email, m.index])).toEqual([
      ['bad@@acme.com', 1],
      ['nope', 2],
    ]);
    expect(r.malformed[0]!.reason).toMatch(/more than one @/);
    expect(r.received).toBe(4);
  });

  test('cells holding several addresses keep their row index', () => {
    const r = preflightEmails(['a@x.com; b@x.com', 'c@x.com']);
    expect(r.unique).toEqual(['a@x.com', 'b@x.com', 'c@x.com']);
    expect(r.uniqueSourceIndex).toEqual([0, 0, 1]);
  });

  test('text input is read line by line', () => {
    const r = preflightEmails('a@x.com\nA@X.COM\nbroken\n');
    expect(r.unique).toEqual(['a@x.com']);
    expect(r.duplicates).toHaveLength(1);
    expect(r.malformed).toHaveLength(1);
  });

  test('lists over 50,000 are split into jobs of at most 50,000, order kept', () => {
    const list = Array.from({ length: 120_001 }, (_, i) => `user${i}@example.com`);
    const r = preflightEmails(list);
    expect(r.chunks.map((c) => c.length)).toEqual([50_000, 50_000, 20_001]);
    expect(r.chunks[2]![20_000]).toBe('user120000@example.com');
    expect(preflightEmails(list.slice(0, 10), { maxPerJob: 4 }).chunks.map((c) => c.length)).toEqual([
      4, 4, 2,
    ]);
    expect(() => preflightEmails(list, { maxPerJob: 50_001 })).toThrow(RangeError);
  });

  test('summary names every removal', () => {
    const r = preflightEmails(['a@x.com', 'A@x.com', 'bad']);
    expect(summarizePreflight(r)).toBe(
      '1 unique address(es) to verify; 1 duplicate(s) removed; 1 malformed address(es) skipped (not charged)',
    );
  });
});

describe('pasted forms: "Name <address>" and mailto: cells are understood and reported', () => {
  test('each form gives its address, keeps its row index, and is listed in preflight.unwrapped', () => {
    const report = preflightEmails([
      'Ada Lovelace <ada@example.com>',
      '"Lovelace, Ada" <ada2@example.com>',
      'mailto:bob@example.com',
      'mailto:carol%40example.com?subject=Hello',
      '<dan@example.com>',
      'plain@example.com',
    ]);
    expect(report.unique).toEqual([
      'ada@example.com',
      'ada2@example.com',
      'bob@example.com',
      'carol@example.com',
      'dan@example.com',
      'plain@example.com',
    ]);
    expect(report.uniqueSourceIndex).toEqual([0, 1, 2, 3, 4, 5]);
    expect(report.malformed).toEqual([]);
    expect(report.unwrapped).toEqual([
      { input: 'Ada Lovelace <ada@example.com>', email: 'ada@example.com', index: 0, how: 'display_name' },
      {
        input: '"Lovelace, Ada" <ada2@example.com>',
        email: 'ada2@example.com',
        index: 1,
        how: 'display_name',
      },
      { input: 'mailto:bob@example.com', email: 'bob@example.com', index: 2, how: 'mailto' },
      {
        input: 'mailto:carol%40example.com?subject=Hello',
        email: 'carol@example.com',
        index: 3,
        how: 'mailto',
      },
      { input: '<dan@example.com>', email: 'dan@example.com', index: 4, how: 'display_name' },
    ]);
    expect(summarizePreflight(report)).toMatch(/5 taken from "Name <address>" or mailto: cells/);
  });

  test('an unwrapped address dedupes against the plain one, ignoring case', () => {
    const report = preflightEmails(['ADA@example.com', 'Ada <ada@EXAMPLE.com>']);
    expect(report.unique).toEqual(['ADA@example.com']);
    expect(report.duplicates).toEqual([{ email: 'ada@EXAMPLE.com', index: 1, firstIndex: 0 }]);
  });

  test('what is inside must still be a valid address; otherwise the cell is malformed as it stands', () => {
    const report = preflightEmails(['Ada <not-an-address>', 'mailto:', 'Ada ada@example.com']);
    expect(report.unique).toEqual([]);
    expect(report.malformed.map((m) => m.email)).toEqual([
      'Ada <not-an-address>',
      'mailto:',
      'Ada ada@example.com',
    ]);
    expect(report.unwrapped).toEqual([]);
  });
});

describe('addressesByItem: what each input item sent, to match results back to rows', () => {
  it('gives each item the addresses taken from it after unwrapping, duplicates included, malformed left out', () => {
    const items = [
      'Ada Lovelace <ada@x.com>',
      'mailto:bob@y.org?subject=Hi',
      '"Lee, Jr." <lee@z.net>',
      'BOB <BOB@Y.ORG>',
      'broken@',
      '',
      'c@x.com; d@x.com',
      null,
    ];
    const report = preflightEmails(items);
    expect(addressesByItem(report, items.length)).toEqual([
      ['ada@x.com'],
      ['bob@y.org'],
      ['lee@z.net'],
      ['BOB@Y.ORG'],
      [],
      [],
      ['c@x.com', 'd@x.com'],
      [],
    ]);
  });

  it('accounts for every address the report kept, once, at the item it came from', () => {
    const items = Array.from({ length: 300 }, (_, i) =>
      i % 7 === 0 ? `Name ${i} <u${i % 50}@x.com>` : i % 11 === 0 ? 'bad@' : `U${i % 50}@X.com`,
    );
    const report = preflightEmails(items);
    const byItem = addressesByItem(report, items.length);
    expect(byItem.flat()).toHaveLength(report.unique.length + report.duplicates.length);
    report.malformed.forEach((m) => expect(byItem[m.index]).toEqual([]));
    report.unique.forEach((email, k) => expect(byItem[report.uniqueSourceIndex[k]!]).toContain(email));
  });
});

describe('planSubmission with allowNothingToSend', () => {
  it('turns a list with no valid address into a plan with no jobs and the report, where the default refuses it', () => {
    const items = ['broken@', 'not an address', ''];
    expect(() => planSubmission(items)).toThrow(expect.objectContaining({ rule: 'min_items' }));
    const plan = planSubmission(items, { allowNothingToSend: true });
    expect(plan.chunks).toEqual([]);
    expect(plan.preflight.unique).toEqual([]);
    expect(plan.preflight.malformed.map((m) => m.index)).toEqual([0, 1]);
  });
});
