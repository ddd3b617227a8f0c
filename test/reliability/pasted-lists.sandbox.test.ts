/**
 * Found by the list property (fixed in the client since): a pasted line or cell holding several
 * addresses lost all of them when its FIRST address was malformed, because the syntax scan stopped at
 * that address's error before reaching the separator, so the line was never split and was reported as
 * one malformed "address". The valid addresses after it were neither verified nor reported: rows lost.
 */
import type { Sandbox } from '@evf/sandbox';
import { clientFor, startFastSandbox } from '../support/sandbox';
import { installSecretGuard } from '../support/secret-guard';

installSecretGuard();

let sb: Sandbox;
beforeAll(async () => {
  sb = await startFastSandbox();
});
afterAll(() => sb.close());

const FIRST_MALFORMED = [
  'two@@example.com',
  '@example.com',
  '.leading@example.com',
  'user@.example.com',
  'a(b@example.com',
  'ünïcödé@example.com',
  `${'l'.repeat(65)}@example.com`,
];

test.each(FIRST_MALFORMED.map((bad) => [JSON.stringify(bad.slice(0, 24)), bad] as const))(
  'a line starting with malformed %s keeps the valid addresses after it (comma, semicolon, tab)',
  async (_b, bad) => {
    const { client } = clientFor(sb);
    for (const sep of [', ', ';', '\t']) {
      const line = [bad, 'valid.after.one@example.com', 'valid.after.two@example.com'].join(sep);
      // Once as pasted text (one line), once as one spreadsheet cell in an array.
      for (const emails of [line, [line, 'valid.other.row@example.com']]) {
        const sub = await client.submitList({ emails });
        expect(sub.preflight.malformed.map((m) => m.email)).toEqual([bad]);
        expect(sub.preflight.unique).toEqual(
          expect.arrayContaining(['valid.after.one@example.com', 'valid.after.two@example.com']),
        );
      }
    }
  },
);

test('control: the same line with the malformed address last already works', async () => {
  const { client } = clientFor(sb);
  const sub = await client.submitList({
    emails: 'valid.after.one@example.com, valid.after.two@example.com, two@@example.com',
  });
  expect(sub.preflight.unique).toEqual(['valid.after.one@example.com', 'valid.after.two@example.com']);
  expect(sub.preflight.malformed.map((m) => m.email)).toEqual(['two@@example.com']);
});
