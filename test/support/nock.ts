import nock from 'nock';
import { validateResponse } from '@evf/contract';
import { loadFixture } from '@evf/contract/fixtures';

/**
 * Mocks the network for one test file and checks after each test that every mock was used (except
 * those `unusedAllowed` accepts, such as a catch-all that must stay unused). nock patches Node's http
 * module and fetch, which outlive the file's module registry, so it starts from a clean activation and
 * is restored afterwards: a later file in the same worker runs on real sockets.
 */
export function useNock(options: { unusedAllowed?: (mock: string) => boolean } = {}): void {
  beforeAll(() => {
    nock.restore();
    nock.activate();
    nock.disableNetConnect();
  });
  afterEach(() => {
    const pending = nock.pendingMocks().filter((m) => !options.unusedAllowed?.(m));
    nock.cleanAll();
    expect(pending).toEqual([]);
  });
  afterAll(() => {
    nock.cleanAll();
    nock.enableNetConnect();
    nock.restore();
  });
}

/**
 * Replies with a contract fixture (shared/fixtures), after checking that the body, edited or not, still
 * matches the contract: a nock reply can never drift from what the service may send.
 */
export function replyWithFixture(
  interceptor: nock.Interceptor,
  name: string,
  edit?: (body: any) => any,
  headers: Record<string, string> = {},
): nock.Scope {
  const fx = loadFixture<any>(name);
  const body = edit ? edit(fx.body) : fx.body;
  const verdict = validateResponse(fx.request.method, fx.request.path.split('?')[0]!, fx.status, body);
  if (!verdict.valid)
    throw new Error(`fixture ${name} no longer matches the contract: ${JSON.stringify(verdict.errors)}`);
  return interceptor.reply(fx.status, body === undefined ? '' : JSON.stringify(body), {
    'content-type': 'application/json',
    ...(fx.headers ?? {}),
    ...headers,
  });
}
