/**
 * `npm run lint` runs `prettier --check .` with the repository's own .prettierrc.json and .prettierignore:
 * on a scratch tree it fails on a file that breaks the format and names only that file, while the files
 * .prettierignore keeps as written (byte-compared vectors, exported examples) are left alone.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const PRETTIER = join(ROOT, 'node_modules/prettier/bin/prettier.cjs');
let dir: string;

const write = (files: Record<string, string>) => {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
};
const check = () => spawnSync(process.execPath, [PRETTIER, '--check', '.'], { cwd: dir, encoding: 'utf8' });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'evf-format-'));
  for (const file of ['.prettierrc.json', '.prettierignore']) copyFileSync(join(ROOT, file), join(dir, file));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a formatted tree passes, ignored files included however they are written', () => {
  write({
    'src/ok.ts': "export const greeting = { text: 'hello', to: ['a', 'b'] };\n",
    'shared/test-vectors/v.json': '{"compared":   "byte for byte"}',
    'packages/n8n/examples/flow.json': '{ "as":"n8n exports it" }',
  });
  const r = check();
  expect({ status: r.status, out: r.stdout + r.stderr }).toMatchObject({ status: 0 });
});

test('a file off the format fails the check, named', () => {
  write({
    'src/ok.ts': "export const greeting = { text: 'hello' };\n",
    'src/bad.ts': 'export const greeting = {text:"hello"}',
  });
  const r = check();
  expect(r.status).toBe(1);
  expect(r.stdout + r.stderr).toMatch(/src\/bad\.ts/);
  expect(r.stdout + r.stderr).not.toMatch(/src\/ok\.ts/);
});
