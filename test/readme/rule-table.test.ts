/**
 * The root README's "Where is the rule for X" table names files a reader opens: every path in it exists.
 * A cell may shorten a path after a full one (`packages/client/src/bulk.ts`, `core/retry.ts`) or after
 * the package it names ("sandbox `src/rules/ip.ts`"), so each path is looked up from the repository root,
 * from the folders of the cell's earlier full paths, and from the packages the cell names. And the table
 * is complete: every top-level module and folder of the client, as the disk has them today, is where
 * some rule is defined.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { clientModules, CLIENT_SRC } from '../support/repo-files';

const root = join(__dirname, '..', '..');
const PACKAGE_WORDS: Record<string, string[]> = {
  sandbox: ['packages/sandbox'],
  zapier: ['packages/zapier/src', 'packages/zapier'],
  n8n: ['packages/n8n'],
  make: ['packages/make'],
  client: ['packages/client/src', 'packages/client'],
};

function ruleTable(): string[][] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('### Where is the rule for X');
  expect(start).toBeGreaterThan(-1);
  const rows = readme
    .slice(start)
    .split('\n')
    .filter((line) => line.startsWith('|'));
  // Header and separator off; a table ends at the first line that is not a row.
  return rows.slice(2).map((row) => row.split('|').slice(1, -1));
}

const exists = (path: string): boolean => {
  if (!path.includes('*')) return existsSync(join(root, path));
  const dir = dirname(path);
  const pattern = new RegExp(
    `^${path
      .slice(dir.length + 1)
      .replace(/\./g, '\\.')
      .replace(/\*/g, '.*')}$`,
  );
  return existsSync(join(root, dir)) && readdirSync(join(root, dir)).some((name) => pattern.test(name));
};

/** Each path of one cell, with the path from the root it resolves to, or undefined. */
function pathsIn(cell: string): { token: string; found: string | undefined }[] {
  const bases = Object.entries(PACKAGE_WORDS)
    .filter(([word]) => new RegExp(`\\b${word}\\b`, 'i').test(cell))
    .flatMap(([, dirs]) => dirs);
  const paths: { token: string; found: string | undefined }[] = [];
  for (const [, token] of cell.matchAll(/`([^`\s]+)`/g)) {
    if (!/\/|\.(ts|cjs|json|yaml)$/.test(token!) || /[(){}<>=]/.test(token!)) continue;
    const path = token!.replace(/\/$/, '');
    const found = ['', ...bases].map((base) => (base ? `${base}/${path}` : path)).find(exists);
    paths.push({ token: token!, found });
    if (found !== undefined) for (let d = dirname(found); d.includes('/'); d = dirname(d)) bases.unshift(d);
  }
  return paths;
}

/** The paths of one cell that resolve nowhere. */
const missingIn = (cell: string): string[] =>
  pathsIn(cell).flatMap(({ token, found }) => (found === undefined ? [token] : []));

/** The client's top-level modules a cell names (`bulk.ts`, `core/`), whole or by a file inside. */
function clientModulesIn(cell: string): string[] {
  return pathsIn(cell).flatMap(({ found }) => {
    if (!found?.startsWith(`${CLIENT_SRC}/`)) return [];
    const [first, ...rest] = found.slice(CLIENT_SRC.length + 1).split('/');
    return [rest.length || statSync(join(root, found)).isDirectory() ? `${first}/` : first!];
  });
}

test('the rule table lists rules, each with where it is defined', () => {
  const rows = ruleTable();
  expect(rows.length).toBeGreaterThan(10);
  for (const row of rows) expect(row).toHaveLength(3);
});

test('every path in the rule table exists', () => {
  const missing = ruleTable().flatMap(([rule, ...cells]) =>
    cells.flatMap((cell) => missingIn(cell).map((path) => `${rule!.trim()}: ${path}`)),
  );
  expect(missing).toEqual([]);
});

test('a path that is not there is caught, full or shortened', () => {
  expect(missingIn('`packages/client/src/bulk.ts`, `core/retry.ts`')).toEqual([]);
  expect(missingIn('`packages/client/src/bulk.ts`, `core/no-such-rule.ts`')).toEqual([
    'core/no-such-rule.ts',
  ]);
  expect(missingIn('sandbox `src/rules/ip.ts`; `packages/none/here.ts`')).toEqual(['packages/none/here.ts']);
});

test('every top-level module and folder of the client is where a rule is defined', () => {
  const named = new Set(ruleTable().flatMap(([, definedIn]) => clientModulesIn(definedIn!)));
  const modules = clientModules();
  expect(modules).toEqual(expect.arrayContaining(['bulk.ts', 'core/', 'index.ts']));
  expect(modules.filter((m) => !named.has(m))).toEqual([]);
});

test('a cell names the modules of its paths, full or shortened', () => {
  expect(clientModulesIn('`packages/client/src/core/http.ts`, `src/bulk.ts`, `webhooks/resume.ts`')).toEqual([
    'core/',
    'bulk.ts',
    'webhooks/',
  ]);
  expect(clientModulesIn('`packages/client/src/lists/`; sandbox `src/rules/ip.ts`')).toEqual(['lists/']);
});
