/**
 * The app's modules run through the harness's model of Make's runtime against the service's contract
 * fixtures (nock, no sandbox): each sends a request the contract has, and its bundle carries the
 * answer's fields unchanged plus the category fields, so a broken module fails the unit tier on its
 * own. sandbox-modules.sandbox.test.ts runs the same modules against the sandbox.
 */
import nock from 'nock';
import { findOperation } from '@evf/contract';
import { loadFixture } from '@evf/contract/fixtures';
import { replyWithFixture, useNock } from '../../../test/support/nock';
import { MakeModuleError, runModule, type MakeConnection, type SentRequest } from './harness/make-runtime';

const ORIGIN = 'https://api.evf.test';
const conn: MakeConnection = { apiKey: 'evf_make_unit_key_8e3f10', baseUrl: `${ORIGIN}/api` };
const JOB = 'job_7f3c2a9e41b84d05';

useNock();

/** The API with the key checked on every request: a call without it finds no interceptor and fails. */
const api = () => nock(`${ORIGIN}/api`, { reqheaders: { 'x-api-key': conn.apiKey } });
const body = (fixture: string): Record<string, unknown> =>
  loadFixture<Record<string, unknown>>(fixture).body ?? {};

function expectContractRequests(requests: SentRequest[]): void {
  expect(requests.length).toBeGreaterThan(0);
  for (const r of requests) expect(findOperation(r.method, r.path)).toBeDefined();
}

test('Verify an email address: the answer unchanged, with its category, group and safe_to_send', async () => {
  replyWithFixture(api().post('/v1/verify/single'), 'verify-single.200');
  const r = await runModule('verifyEmail', { email: 'valid.anna@acme-corp.com' }, conn);
  expectContractRequests(r.requests);
  expect(r.requests[0]!.body).toMatchObject({ email: 'valid.anna@acme-corp.com' });
  expect(r.bundles).toEqual([
    {
      ...body('verify-single.200'),
      category: 'Valid',
      group: 'safe_to_send',
      safe_to_send: true,
      sent: true,
    },
  ]);
});

test('Get credits: the balance unchanged, beside the subscription', async () => {
  replyWithFixture(api().get('/v1/account/credits'), 'credits.200');
  replyWithFixture(api().get('/v1/subscription'), 'subscription.200');
  const r = await runModule('getCredits', {}, conn);
  expectContractRequests(r.requests);
  expect(r.bundles[0]).toMatchObject(body('credits.200'));
});

test('Get a bulk job: the job unchanged', async () => {
  replyWithFixture(api().get(`/v1/jobs/${JOB}`), 'job.completed.200');
  const r = await runModule('getJob', { job_id: JOB }, conn);
  expectContractRequests(r.requests);
  expect(r.bundles[0]).toMatchObject(body('job.completed.200'));
});

test('Get a bulk job: a 2xx that holds no job fails, instead of an empty bundle', async () => {
  api().get(`/v1/jobs/${JOB}`).reply(200, {});
  const err = await runModule('getJob', { job_id: JOB }, conn).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(MakeModuleError);
  expect((err as MakeModuleError).type).toBe('ConnectionError');
  expect((err as MakeModuleError).message).toMatch(/held no bulk job/);
});

test('Submit a bulk job: the addresses sent once, the accepted job out', async () => {
  replyWithFixture(api().post('/v1/verify/bulk'), 'verify-bulk.202');
  const r = await runModule(
    'submitBulk',
    { input_as: 'array', emails: ['a@acme-corp.com', 'b@acme-corp.com'] },
    conn,
  );
  expectContractRequests(r.requests);
  expect(r.requests).toHaveLength(1);
  expect(r.requests[0]!.body).toMatchObject({ emails: ['a@acme-corp.com', 'b@acme-corp.com'] });
  expect(r.bundles[0]).toMatchObject({ job_id: body('verify-bulk.202').job_id });
});

test('List results: every row of every page, each with its category', async () => {
  for (const page of [1, 2])
    replyWithFixture(
      api()
        .get(`/v1/jobs/${JOB}/results`)
        .query((q) => q.page === String(page)),
      `results.page${page}.200`,
    );
  const r = await runModule('listResults', { job_id: JOB, start_page: 1 }, conn);
  expectContractRequests(r.requests);
  const rows = [
    ...(body('results.page1.200')['results'] as object[]),
    ...(body('results.page2.200')['results'] as object[]),
  ];
  expect(r.bundles).toHaveLength(rows.length);
  rows.forEach((row, i) => expect(r.bundles[i]).toMatchObject({ ...row, category: expect.any(String) }));
});

test('Revoke an API key: DELETE for that key', async () => {
  replyWithFixture(api().delete('/v1/keys/key_5d1e8b'), 'revoke-key.204');
  const r = await runModule('revokeKey', { key_id: 'key_5d1e8b' }, conn);
  expectContractRequests(r.requests);
  expect(r.requests[0]!.method).toBe('DELETE');
  expect(r.requests[0]!.path).toMatch(/\/v1\/keys\/key_5d1e8b$/);
});
