/**
 * Verify an email address on a cell that holds no single address: a free Invalid verdict
 * that routes like any other, or, when asked, a stop. Make modules are IML, so the module cannot call
 * the client's badInputVerdict; this runs both over the same table of cells and holds them equal:
 * the same cells are sent, and a bad cell gets the client's verdict fields (the reason in the same
 * words where IML can say them; a malformed cell's fine-grained why is the client's alone).
 */
import nock from 'nock';
import { badInputVerdict } from '@evf/client';
import { replyWithFixture, useNock } from '../../../test/support/nock';
import { MakeModuleError, runModule, type MakeConnection } from './harness/make-runtime';
import { RETRIED_BY_MAKE } from './harness/make-rules';

const ORIGIN = 'https://api.evf.test';
const conn: MakeConnection = { apiKey: 'evf_make_unit_key_8e3f10', baseUrl: `${ORIGIN}/api` };
useNock();
const api = () => nock(`${ORIGIN}/api`, { reqheaders: { 'x-api-key': conn.apiKey } });

const CELLS: string[] = [
  '',
  '   ',
  'ada@@acme',
  'n/a',
  'a@b.co, c@d.co',
  'a@b.co;c@d.co',
  'a@b.co c@d.co\nx@y.io',
  'ada@acme.io, n/a',
  'ada@acme.io,',
  'ada@acme.io',
  '  ada@acme.io ',
  'Ada Lovelace <ada@acme.io>',
  '"Lovelace, Ada" <ada@acme.io>',
  'mailto:ada@acme.io',
  'mailto:ada@acme.io?subject=hi',
  'a%40acme.io',
  'ada@acme',
  'ada.@acme.io',
  '.ada@acme.io',
  `${'a'.repeat(65)}@acme.io`,
  'josé@acme.io',
  'plainaddress',
  '@acme.io',
  'ada@-acme.io',
  'ada@acme.c',
  'ada@xn--80ak6aa92e.com',
  'x'.repeat(300),
  'Ada <not an address>',
];

/** Runs the module on one cell: what it sent, and its bundle or its error. */
async function make(cell: string, params: Record<string, unknown> = {}) {
  const post = api()
    .post('/v1/verify/single')
    .reply(200, (_uri, body) => ({
      ...(require('../../../shared/fixtures/verify-single.200.json') as { body: object }).body,
      email: (body as { email: string }).email,
    }));
  replyWithFixture(api().get('/v1/account'), 'account.200');
  try {
    const r = await runModule('verifyEmail', { email: cell, ...params }, conn);
    return { requests: r.requests, bundle: r.bundles[0] as Record<string, unknown>, error: undefined };
  } catch (error) {
    return { requests: [], bundle: undefined, error };
  } finally {
    post.persist(false);
    nock.cleanAll();
  }
}

describe.each(CELLS.map((c) => [JSON.stringify(c).slice(0, 60), c] as const))('cell %s', (_label, cell) => {
  const expected = badInputVerdict(cell);

  it(
    expected
      ? 'a free Invalid verdict, as the client gives it, nothing sent'
      : 'sent, as the client sends it',
    async () => {
      const { requests, bundle, error } = await make(cell);
      expect(error).toBeUndefined();
      const posts = requests.filter((r) => r.method === 'POST');
      if (!expected) {
        expect(posts).toHaveLength(1);
        expect(bundle).toMatchObject({ sent: true });
        return;
      }
      expect(posts).toHaveLength(0);
      const { reason, ...fields } = expected;
      const { reason: makeReason, ...makeFields } = bundle as { reason: string };
      expect(makeFields).toEqual(fields);
      if (expected.problem === 'malformed') {
        expect(makeReason).toMatch(
          /is not an email address\. Fix it in the source row\. Nothing was sent or charged\.$/,
        );
        expect(makeReason.startsWith(reason.slice(0, reason.indexOf(' is not an email address')))).toBe(true);
      } else expect(makeReason).toBe(reason);
    },
  );
});

test('Unusable cell set to stop: the same words as a DataError (not rerun), nothing sent', async () => {
  const { requests, error } = await make('ada@@acme', { bad_cell: 'error' });
  expect(error).toBeInstanceOf(MakeModuleError);
  const e = error as MakeModuleError;
  expect(e.type).toBe('DataError');
  expect(RETRIED_BY_MAKE).not.toContain(e.type);
  expect(e.message).toMatch(/"ada@@acme" is not an email address/);
  expect(requests.filter((r) => r.method === 'POST')).toHaveLength(0);
});

test('a bad key still errors on a bad cell (the free read checks it)', async () => {
  replyWithFixture(api().get('/v1/account'), 'error.401');
  const err = await runModule('verifyEmail', { email: 'n/a' }, conn).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(MakeModuleError);
  expect((err as MakeModuleError).type).toBe('InvalidAccessTokenError');
});
