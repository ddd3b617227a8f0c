/**
 * Every EVF_ environment switch the tests read is in the root README's testing section ("The two
 * commands", with "Testing one change" under it): a reader can turn on what CI turns on, and a switch
 * that skips cells (EVF_FULL_MATRIX) cannot hide. The tests are the files under test/ and under each
 * package's test/ (harnesses and support included); a read is an EVF_ name taken from an `env` object
 * (`process.env.` or `env[...]`), not one assigned or deleted there.
 *
 * Not switches: names the tests themselves give to what they start or configure, listed below with
 * where; each must still be read, so the list cannot go stale.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoFiles, ROOT } from '../support/repo-files';

const SET_BY_TESTS: Record<string, string> = {
  // The Zapier app's own setting (`zapier-platform env:set`), set per suite to the sandbox's address.
  EVF_BASE_URL: 'packages/zapier/test/helpers.ts',
  // The key the Zapier build test hands the built app it runs.
  EVF_E2E_API_KEY: 'packages/zapier/test/support/run-built-app.cjs',
  // Each n8n process's role in the queue-mode test, read back by its workflows.
  EVF_N8N_PROCESS: 'packages/n8n/test/real-n8n-queue.e2e.test.ts',
};

const ENV_NAME = /(\bdelete\s+)?\benv(?:\.|\[['"`])(EVF_[A-Z0-9_]+)(?:['"`]\])?(\s*=(?!=))?/g;

/** The EVF_ names each text reads from the environment, with `file` for each. */
function switchesRead(files: { file: string; text: string }[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const { file, text } of files)
    for (const [, deleted, name, assigned] of text.matchAll(ENV_NAME)) {
      if (deleted || assigned) continue;
      const where = found.get(name!) ?? [];
      if (!where.includes(file)) where.push(file);
      found.set(name!, where);
    }
  return found;
}

function testingSection(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Every test\n');
  expect(start).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

const testFiles = () =>
  repoFiles()
    .filter((f) => /^(test|packages\/[^/]+\/test)\//.test(f) && /\.(ts|cjs|mjs|js)$/.test(f))
    .map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

test("every EVF_ switch the tests read is in the README's testing section", () => {
  const read = switchesRead(testFiles());
  expect([...read.keys()]).toEqual(expect.arrayContaining(['EVF_FULL_MATRIX', 'EVF_REQUIRE_ALL_SUITES']));
  const section = testingSection();
  const undocumented = [...read]
    .filter(([name]) => !(name in SET_BY_TESTS) && !new RegExp(`\\b${name}\\b`).test(section))
    .map(([name, files]) => `${name} (${files.join(', ')})`);
  expect(undocumented).toEqual([]);
});

test('each name the tests set themselves is still read where the list says', () => {
  const read = switchesRead(testFiles());
  for (const [name, file] of Object.entries(SET_BY_TESTS))
    expect({ name, readIn: read.get(name)?.includes(file) }).toEqual({ name, readIn: true });
});

test('a read is found in each form, in each file; a write is not a read', () => {
  // Built from parts, so that this file reads no switch itself.
  const env = (name: string, quoted = false) => (quoted ? `env['EVF_${name}']` : `env.EVF_${name}`);
  const read = switchesRead([
    { file: 'a.ts', text: `process.${env('ONE')} === '1'; process.${env('TWO', true)} || 'x';` },
    { file: 'b.ts', text: `return ${env('ONE')} ? 1 : 0; // EVF_THREE in a comment is not a read` },
    { file: 'c.ts', text: `delete ${env('FOUR')}; ${env('FIVE')} = url; ${env('SIX', true)} = '';` },
  ]);
  expect(Object.fromEntries(read)).toEqual({ EVF_ONE: ['a.ts', 'b.ts'], EVF_TWO: ['a.ts'] });
});
