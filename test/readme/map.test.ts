/**
 * The root README's "Map of the repo" is complete as the disk has it today: every workspace package
 * under packages/ has its own line, and the client's entry names each of its top-level modules and
 * folders (`bulk.ts`, `core/`). A module or package added, moved or removed fails here until the map
 * says so.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientModules, ROOT } from '../support/repo-files';

function map(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('```', readme.indexOf('\n## Map of the repo\n'));
  expect(start).toBeGreaterThan(-1);
  return readme.slice(start, readme.indexOf('\n```', start + 3));
}

/** The map's entry for `name`: its first line and the indented lines under it. */
function entry(text: string, name: string): string {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.split(/\s/)[0] === name);
  if (first < 0) return '';
  const rest = lines.slice(first + 1);
  const end = rest.findIndex((line) => !/^\s/.test(line));
  return [lines[first], ...rest.slice(0, end < 0 ? undefined : end)].join('\n');
}

/** The modules (`bulk.ts`, `core/`) a text does not name as a word of its own. */
const unnamed = (text: string, modules: string[]): string[] =>
  modules.filter((m) => !new RegExp(`(^|[\\s(,;])${m.replace(/\./g, '\\.')}($|[\\s),;:])`).test(text));

const packages = readdirSync(join(ROOT, 'packages')).filter((name) =>
  existsSync(join(ROOT, 'packages', name, 'package.json')),
);

test('every workspace package has its own line in the map', () => {
  expect(packages).toEqual(expect.arrayContaining(['client', 'sandbox', 'zapier', 'n8n', 'make']));
  expect(packages.filter((name) => entry(map(), `packages/${name}`) === '')).toEqual([]);
});

test("the client's entry names every top-level module and folder of packages/client/src", () => {
  const client = entry(map(), 'packages/client');
  expect(client).toContain('@evf/client');
  expect(unnamed(client, clientModules())).toEqual([]);
});

test('a module or package the map leaves out is caught', () => {
  const text =
    'packages/client       bulk.ts (a list), core/ (http)\n                      errors.ts; node/\nbench/  x';
  expect(entry(text, 'packages/client')).not.toContain('bench');
  expect(entry(text, 'packages/tables')).toBe('');
  expect(unnamed(entry(text, 'packages/client'), ['bulk.ts', 'core/', 'errors.ts', 'node/'])).toEqual([]);
  // A name inside a longer one is not the module: results-window.ts does not name window.ts.
  expect(unnamed('results-window.ts, lists/x.ts, core/', ['window.ts', 'lists/', 'core/'])).toEqual([
    'window.ts',
    'lists/',
  ]);
});
