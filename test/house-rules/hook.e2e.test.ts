/**
 * The commit-message check as git runs it, in a scratch repository: `npm install`'s prepare step sets
 * core.hooksPath (and does nothing outside a git checkout), the commit-msg hook refuses a long subject,
 * and the history check names a bad commit made past the hook.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const SCRIPT = 'scripts/check-commits.cjs';
let repo: string;
let outside: string;

// A scratch identity and no user or system config, so the machine's git settings play no part.
const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};
const run = (cwd: string, cmd: string, args: string[]) =>
  spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
const commit = (message: string, ...extra: string[]) => {
  writeFileSync(join(repo, 'file.txt'), `${message}\n`);
  run(repo, 'git', ['add', 'file.txt']);
  return run(repo, 'git', ['commit', '-q', '-m', message, ...extra]);
};

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'evf-commits-'));
  outside = mkdtempSync(join(tmpdir(), 'evf-no-git-'));
  run(repo, 'git', ['init', '-q']);
  mkdirSync(join(repo, 'scripts'));
  cpSync(join(ROOT, SCRIPT), join(repo, SCRIPT));
  cpSync(join(ROOT, '.githooks'), join(repo, '.githooks'), { recursive: true });
  mkdirSync(join(outside, 'scripts'));
  cpSync(join(ROOT, SCRIPT), join(outside, SCRIPT));
});
afterAll(() => {
  rmSync(repo, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

test('outside a git checkout, installing the hook does nothing and succeeds', () => {
  expect(run(outside, process.execPath, [SCRIPT, '--install-hook']).status).toBe(0);
});

test('the installed hook refuses a long subject and accepts a short one', () => {
  expect(run(repo, process.execPath, [SCRIPT, '--install-hook']).status).toBe(0);
  expect(run(repo, 'git', ['config', 'core.hooksPath']).stdout.trim()).toBe('.githooks');
  expect(commit('base: the first commit').status).toBe(0);
  const refused = commit(`area: ${'a long subject '.repeat(6)}`);
  expect(refused.status).not.toBe(0);
  expect(refused.stderr).toMatch(/the subject is \d+ characters, over 72/);
  expect(commit('area: short', '-m', 'The body, after a blank line.').status).toBe(0);
});

test('the history check names a commit that went past the hook, and only after its base', () => {
  const base = run(repo, 'git', ['rev-parse', 'HEAD']).stdout.trim();
  expect(run(repo, process.execPath, [SCRIPT, '--since', base]).status).toBe(0);
  expect(commit(`area: ${'x'.repeat(80)}`, '--no-verify').status).toBe(0);
  const checked = run(repo, process.execPath, [SCRIPT, '--since', base]);
  expect(checked.status).toBe(1);
  expect(checked.stderr).toMatch(/^commit [0-9a-f]{7} "area: x+": the subject is 86 characters/);
});
