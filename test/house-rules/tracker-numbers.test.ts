/**
 * Code, tests, scripts, configs and docs say what a thing is, not which ticket asked for it: the
 * tracker lives outside the repository, so a reader of a clone cannot follow its numbers. No file of
 * the repository (every one a clone has, shipped or not, Markdown included) holds a hash followed by
 * a number, or the word issue, ticket, PR or pull request followed by one.
 *
 * Not references: a quoted `"#2"` (a string a platform shows, such as Zapier's label of a second
 * connection), `&#38;` and `##0` (an entity, a number format), and the text of a Markdown link to an
 * outside page (another project's issue, cited where a reader can follow it). Data and images, and
 * package-lock.json (npm writes it), are not read; every other file must be of a kind this test knows,
 * so a new kind is classed here rather than skipped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitignoreRules, ignored, repoFiles, ROOT } from '../support/repo-files';

/** Files read for references, by extension or, for files without one, by name. */
const TEXT =
  /\.(ts|cjs|mjs|js|json|jsonc|ya?ml|md|sh|py)$|(^|\/)(\.npmrc|\.gitignore|\.prettierignore|\.zapierapprc|run|commit-msg)$/;
/** Files not read: table and TLS fixtures, images, and the lockfile npm writes. */
const NOT_READ = /\.(csv|tsv|txt|xlsx|png|svg|crt|key)$|^package-lock\.json$/;

const REFERENCE = /(?<![\w&#$/'"`])#\d+\b|\b(?:issues?|tickets?|PRs?|pull requests?)\s*#?\s*\d+\b/gi;
/** `[text](https://...)`: the text of a link to an outside page, a citation a reader can follow. */
const OUTSIDE_LINK = /\[[^\]\n]*\]\(https?:\/\/[^)\s]+\)/g;

/** Each reference of one file, as `file:line: reference`. */
function trackerReferences(file: string, text: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) =>
      [...line.replace(OUTSIDE_LINK, '').matchAll(REFERENCE)].map(([ref]) => `${file}:${i + 1}: ${ref}`),
    );
}

describe('no tracker numbers', () => {
  const files = repoFiles();

  test('every file of the clone is one this check reads or one it names as data', () => {
    expect(files.length).toBeGreaterThan(500);
    expect(files.filter((f) => !TEXT.test(f) && !NOT_READ.test(f))).toEqual([]);
    // The ones that matter most are read: shipped code, tests, scripts, configs, docs, Make's app.
    for (const f of [
      'packages/n8n/nodes/EmailVerification/helpers/listMemory.ts',
      'packages/zapier/index.js',
      'packages/make/app/makecomapp.json',
      'scripts/test.cjs',
      '.ci/run',
      '.github/workflows/test.yml',
      'README.md',
    ])
      expect({ f, read: files.includes(f) && TEXT.test(f) }).toEqual({ f, read: true });
  });

  test('no file cites a tracker number', () => {
    const found = files
      .filter((f) => TEXT.test(f) && !NOT_READ.test(f))
      .flatMap((f) => trackerReferences(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(found).toEqual([]);
  });
});

describe('the check fires on each form', () => {
  // Built from parts, so that this file holds no reference itself.
  const hash = '#';
  const n = (word: string, num: number | string) => `${word} ${num}`;
  const refs = (text: string) => trackerReferences('x.ts', text).map((r) => r.replace(/^x\.ts:\d+: /, ''));

  test('a hash and a number, alone or in brackets, and issue, ticket or PR with a number', () => {
    expect(refs(`// a stop to continue from (${hash}29)`)).toEqual([`${hash}29`]);
    expect(refs(` * ${n('Issue', hash + 29)}'s matrix`)).toEqual([n('Issue', hash + 29)]);
    expect(refs(`not built yet (${n('issue', 29)}); ${n('issues', 12)} and 15`)).toEqual([
      n('issue', 29),
      n('issues', 12),
    ]);
    expect(refs(`it('a free verdict (${hash}30 point 1)', () => {`)).toEqual([`${hash}30`]);
    expect(refs(`${n('ticket', 7)}, ${n('PR', hash + 8)}, ${n('pull request', 9)}`)).toEqual([
      n('ticket', 7),
      n('PR', hash + 8),
      n('pull request', 9),
    ]);
    expect(trackerReferences('a.md', `one\nsee ${hash}12\n`)).toEqual([`a.md:2: ${hash}12`]);
  });

  test('a quoted label, an entity, a number format, a heading or an outside link is not one', () => {
    expect(refs(`(the app's name, "${hash}2", ...)`)).toEqual([]);
    expect(refs(`'&${hash}38;', '${hash}${hash}0.00', "${hash},${hash}${hash}0", '${hash}f'`)).toEqual([]);
    expect(refs(`${hash}${hash} 0.1.0 (2027-01-01)`)).toEqual([]);
    expect(refs(`([${n('n8n issue', 11234)}](https://github.com/n8n-io/n8n/issues/11234))`)).toEqual([]);
    expect(refs('https://github.com/n8n-io/n8n/issues/11234 and the Issue column')).toEqual([]);
    // A link into this repository does not excuse a reference.
    expect(refs(`[${n('issue', 4)}](README.md)`)).toEqual([n('issue', 4)]);
  });
});

describe('the walk of the clone', () => {
  test('leaves out .git and what .gitignore keeps out', () => {
    expect(repoFiles().filter((f) => /(^|\/)(node_modules|dist|\.git)\//.test(f))).toEqual([]);
  });

  test('reads .gitignore patterns as git does', () => {
    const rules = [
      ...gitignoreRules('node_modules/\n*.tgz\nbench/results/\n# a comment\n', ''),
      ...gitignoreRules('build/\n.env\nexamples/ready/\n', 'packages/zapier'),
    ];
    expect(ignored('packages/client/node_modules', true, rules)).toBe(true);
    expect(ignored('node_modules', false, rules)).toBe(false);
    expect(ignored('a/b/n8n-nodes-evf-0.1.0.tgz', false, rules)).toBe(true);
    expect(ignored('bench/results', true, rules)).toBe(true);
    expect(ignored('packages/bench/results', true, rules)).toBe(false);
    expect(ignored('packages/zapier/build', true, rules)).toBe(true);
    expect(ignored('packages/make/build', true, rules)).toBe(false);
    expect(ignored('packages/zapier/examples/ready', true, rules)).toBe(true);
    expect(ignored('packages/zapier/src/.env', false, rules)).toBe(true);
    expect(() => gitignoreRules('!keep.me\n', '')).toThrow(/not read by repo-files/);
  });
});
