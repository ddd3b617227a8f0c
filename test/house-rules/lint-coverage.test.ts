/**
 * `npm run lint` lints every file of the repository's own code: its TypeScript and its JavaScript
 * (.cjs, .mjs and .js: scripts, configs, the Zapier entry), with the n8n package's TypeScript left to
 * `n8n-node lint` and Make's app (JSON and IML) to its own checks. Read from the files, not by running
 * ESLint (loading it takes seconds): the lint script lints `.`, and no file a clone has is matched by
 * a global ignore of eslint.config.mjs but those two.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoFiles, ROOT } from '../support/repo-files';

/** Linted by another tool, not the root config. */
const ELSEWHERE = /^packages\/n8n\/.*\.ts$|^packages\/make\/app\//;
const CODE = /\.(ts|cjs|mjs|js)$/;

/** An ESLint glob as a regular expression over a path from the root (`**` any folders, `*` a name's part). */
const globRegExp = (glob: string): RegExp => {
  const parts = glob.split('/');
  const body = parts.map((part, i) => {
    const last = i === parts.length - 1;
    if (part === '**') return last ? '.*' : '(?:.*/)?';
    return part.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*') + (last ? '' : '/');
  });
  return new RegExp(`^${body.join('')}$`);
};

/** The patterns of the config's first `ignores` list: ESLint's global ignores. */
function globalIgnores(config: string): string[] {
  const list = config.slice(config.indexOf('ignores: ['), config.indexOf('],', config.indexOf('ignores: [')));
  return [...list.matchAll(/'([^']+)'/g)].map(([, glob]) => glob!);
}

const lintedNowhere = (files: string[], ignores: string[]): string[] =>
  files.filter((f) => CODE.test(f) && !ELSEWHERE.test(f) && ignores.some((g) => globRegExp(g).test(f)));

test('npm run lint lints the whole tree with the root config', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  expect(pkg.scripts.lint).toMatch(/^eslint \. &&/);
});

test('no file of our own code is ignored by the root config', () => {
  const ignores = globalIgnores(readFileSync(join(ROOT, 'eslint.config.mjs'), 'utf8'));
  expect(ignores).toEqual(expect.arrayContaining(['**/node_modules/**', '**/dist/**']));
  const files = repoFiles();
  expect(files.filter((f) => /\.(cjs|mjs|js)$/.test(f)).length).toBeGreaterThan(15);
  expect(lintedNowhere(files, ignores)).toEqual([]);
});

test('an ignore that takes in our JavaScript is caught', () => {
  const files = [
    'scripts/test.cjs',
    'packages/client/build.mjs',
    'packages/n8n/nodes/a.ts',
    'jest.config.js',
  ];
  expect(lintedNowhere(files, ['**/dist/**', 'packages/n8n/**/*.ts'])).toEqual([]);
  expect(lintedNowhere(files, ['**/*.cjs', '**/*.mjs'])).toEqual([
    'scripts/test.cjs',
    'packages/client/build.mjs',
  ]);
  expect(lintedNowhere(files, ['packages/**', '*.js'])).toEqual([
    'packages/client/build.mjs',
    'jest.config.js',
  ]);
  expect(globRegExp('**/dist/**').test('packages/client/dist/index.cjs')).toBe(true);
  expect(globRegExp('**/dist/**').test('packages/distant/x.js')).toBe(false);
  expect(
    globalIgnores("x({\n  ignores: [\n    '**/dist/**',\n    'a/*.js',\n  ],\n}, { ignores: ['b'] })"),
  ).toEqual(['**/dist/**', 'a/*.js']);
});
