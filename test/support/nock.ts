import nock from 'nock';

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
