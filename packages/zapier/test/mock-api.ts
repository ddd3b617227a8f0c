/**
 * nock-based helpers for unit tests. Kept apart from helpers.ts on purpose: loading nock patches Node's
 * http module for the whole process, and the sandbox end-to-end suite must run on untouched sockets.
 */
import nock from 'nock';
import { useNock as useNockForFile } from '../../../test/support/nock';
import { BASE, KEY, ORIGIN } from './helpers';

/** The API with the key checked on every request: a call without it finds no interceptor and fails. */
export function api(): nock.Scope {
  return nock(BASE, { reqheaders: { 'x-api-key': KEY } });
}

/** Replies with a contract fixture checked against the contract (one helper for every nock suite). */
export { replyWithFixture as replyWith } from '../../../test/support/nock';

/**
 * Counts every request that reaches the API host, whatever the method or path: for "nothing was
 * sent" assertions. Replies 500 so a request that should not exist also shows up as a failure.
 */
const CATCH_ALL = /.*/;

export function requestCounter(): { count: () => number } {
  let n = 0;
  const scope = nock(ORIGIN).persist();
  const hit = (): [number, string] => {
    n++;
    return [500, '{}'];
  };
  scope.get(CATCH_ALL).reply(hit).post(CATCH_ALL).reply(hit).delete(CATCH_ALL).reply(hit);
  return { count: () => n };
}

/** Mocks the network for one test file; requestCounter's catch-all interceptors are meant to stay unused. */
export function useNock(): void {
  useNockForFile({ unusedAllowed: (mock) => mock.endsWith(CATCH_ALL.toString()) });
}
