/**
 * The https-only base-URL rule is the client's (baseUrlProblem). Make's IML cannot import code, so Make's
 * connection holds a copy as a field pattern; this pins that copy to the client's rule: whatever the Make
 * pattern lets through, the client accepts too (Make is never looser), and an https address ending in
 * /api that the client accepts, the pattern accepts too (Make refuses no real service address).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { parse } from 'jsonc-parser';
import { baseUrlProblem } from '@evf/client';

interface Param {
  name: string;
  validate?: { pattern?: string };
}
const FILE = join(__dirname, '../../packages/make/app/connections/api-key/api-key.params.iml.json');
const params = parse(readFileSync(FILE, 'utf8')) as Param[];
const makePattern = new RegExp(params.find((p) => p.name === 'baseUrl')!.validate!.pattern!);

const host = fc.oneof(
  fc.constantFrom(
    'api.example.com',
    'evf.example.org',
    '127.0.0.1',
    'localhost',
    '[::1]',
    '10.0.0.7',
    '127.0.0.2',
    'app.localhost',
    'user:pw@api.example.com',
  ),
  fc.domain(),
);
const url = fc
  .tuple(
    fc.constantFrom('https', 'http', 'ftp', 'HTTPS'),
    host,
    fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
    fc.constantFrom('/api', '/v2/api', '/api/', '', '/x', '/api?x=1'),
  )
  .map(([scheme, h, port, path]) => `${scheme}://${h}${port === undefined ? '' : `:${port}`}${path}`);

describe("Make's copy of the base-URL rule", () => {
  it('property: an address the Make pattern accepts is one the client accepts', () => {
    fc.assert(
      fc.property(url, (u) => {
        if (makePattern.test(u)) expect([u, baseUrlProblem(u)]).toEqual([u, undefined]);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: an https address ending in /api that the client accepts, the Make pattern accepts', () => {
    fc.assert(
      fc.property(
        fc.domain(),
        fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        (h, port) => {
          const u = `https://${h}${port === undefined ? '' : `:${port}`}/api`;
          if (baseUrlProblem(u) === undefined) expect([u, makePattern.test(u)]).toEqual([u, true]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each([
    ['http://api.example.com/api', false],
    ['http://10.0.0.7/api', false],
    ['https://user:pw@api.example.com/api', false],
    ['http://127.0.0.1:8787/api', true],
    ['https://api.example.com/api', true],
  ])('%s: Make %s, and the client agrees', (u, accepted) => {
    expect(makePattern.test(u)).toBe(accepted);
    expect(baseUrlProblem(u) === undefined).toBe(accepted);
  });
});
