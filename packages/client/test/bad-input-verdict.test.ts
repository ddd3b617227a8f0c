/**
 * badInputVerdict and verifyCell: a cell that holds no single usable address gets a free verdict that
 * routes like any other (group invalid), names the problem and the fix, and sends nothing.
 */
import nock from 'nock';
import { badInputVerdict, withCategory } from '@evf/client';
import { api, makeClient } from './helpers';

afterEach(() => nock.cleanAll());

describe('badInputVerdict', () => {
  test.each([
    ['', 'empty', /The cell is empty: put the email address in it/],
    ['   ', 'empty', /empty/],
    [null, 'empty', /empty/],
    [undefined, 'empty', /empty/],
    [
      'ada@@acme',
      'malformed',
      /"ada@@acme" is not an email address: it has more than one @\. Fix it in the source row/,
    ],
    ['n/a', 'malformed', /"n\/a" is not an email address: it has no @/],
    [
      'a@b.co, c@d.co',
      'several_addresses',
      /holds 2 addresses \("a@b\.co, c@d\.co"\): put one address in each row/,
    ],
    ['a@b.co;c@d.co e@f.co', 'several_addresses', /holds 3 addresses/],
    [{ email: 'a@b.co' }, 'malformed', /map the column that holds the email address/],
  ])('%j -> %s', (cell, problem, reason) => {
    const verdict = badInputVerdict(cell)!;
    expect(verdict).toMatchObject({
      category: 'Invalid',
      group: 'invalid',
      safe_to_send: false,
      status: 'invalid',
      valid: false,
      credits_used: 0,
      sent: false,
      problem,
    });
    expect(verdict.reason).toMatch(reason);
    expect(verdict.reason).toMatch(/Nothing was sent or charged\.$/);
    expect(verdict.email).toBe(typeof cell === 'string' ? cell.trim() : '');
  });

  test.each([
    'ada@acme.com',
    '  ada@acme.com ',
    'Ada Lovelace <ada@acme.com>',
    '"Lovelace, Ada" <ada@acme.com>',
    'mailto:ada@acme.com',
  ])('a usable address gives undefined: %j', (cell) => expect(badInputVerdict(cell)).toBeUndefined());

  test('a long cell is shown cut, the verdict keeps the text up to 254 characters', () => {
    const verdict = badInputVerdict('x'.repeat(400))!;
    expect(verdict.email).toHaveLength(254);
    expect(verdict.reason.length).toBeLessThan(300);
  });
});

describe('verifyCell', () => {
  test('a bad cell sends nothing', async () => {
    const { client, requests } = makeClient();
    for (const cell of ['', 'ada@@acme', 'n/a', 'a@b.co, c@d.co']) {
      await expect(client.verifyCell(cell)).resolves.toMatchObject({
        group: 'invalid',
        credits_used: 0,
        sent: false,
      });
    }
    expect(requests).toEqual([]);
  });

  test('a usable cell is verified once, and a charged unknown is not called refunded', async () => {
    const { client, requests } = makeClient();
    api()
      .post('/v1/verify/single', { email: 'ada@acme.com', check_smtp: false })
      .reply(200, {
        email: 'ada@acme.com',
        status: 'risky',
        valid: false,
        score: 0.3,
        reason: 'no answer',
        details: { primary_label: 'unknown', tags: [], label_reasons: [] },
        credits_used: 1,
        credits_remaining: 9,
        processed_at: '2026-01-15T10:00:00Z',
      });
    const result = await client.verifyCell(' Ada <ada@acme.com> ', { check_smtp: false });
    expect(requests).toEqual(['POST /v1/verify/single']);
    expect(withCategory(result as Parameters<typeof withCategory>[0])).toMatchObject({
      category: 'Unknown / Not Verified (charged)',
      group: 'risky',
    });
  });
});
