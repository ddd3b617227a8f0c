/**
 * The root README's "Where is the rule for X" table names files a reader opens: every path in it exists.
 * A cell may shorten a path after a full one (`packages/client/src/bulk.ts`, `core/retry.ts`) or after
 * the package it names ("sandbox `src/rules/ip.ts`"), so each path is looked up from the repository root,
 * from the folders of the cell's earlier full paths, and from the packages the cell names.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

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

/** The paths of one cell that resolve nowhere. */
function missingIn(cell: string): string[] {
  const bases = Object.entries(PACKAGE_WORDS)
    .filter(([word]) => new RegExp(`\\b${word}\\b`, 'i').test(cell))
    .flatMap(([, dirs]) => dirs);
  const missing: string[] = [];
  for (const [, token] of cell.matchAll(/`([^`\s]+)`/g)) {
    if (!/\/|\.(ts|cjs|json|yaml)$/.test(token!) || /[(){}<>=]/.test(token!)) continue;
    const path = token!.replace(/\/$/, '');
    const found = ['', ...bases].map((base) => (base ? `${base}/${path}` : path)).find(exists);
    if (found === undefined) missing.push(token!);
    else for (let d = dirname(found); d.includes('/'); d = dirname(d)) bases.unshift(d);
  }
  return missing;
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
