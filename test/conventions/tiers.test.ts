/**
 * Each test file does what its suffix promises (tier-rules.ts states the rules): the real tree breaks
 * none of them, and a small tree that breaks each one is caught, so the check cannot pass by missing.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { tierProblems } from './tier-rules';

const root = join(__dirname, '..', '..');

/** The files jest.config.js's projects match: *.test.ts under packages/<name>/test and test/. */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}
const repoTests = (): string[] => [
  ...readdirSync(join(root, 'packages')).flatMap((pkg) => {
    try {
      return testFiles(join(root, 'packages', pkg, 'test'));
    } catch {
      return [];
    }
  }),
  ...testFiles(join(root, 'test')),
];

describe('test tiers', () => {
  test('the repository has test files in all three tiers', () => {
    const files = repoTests();
    expect(files.filter((f) => f.endsWith('.e2e.test.ts')).length).toBeGreaterThan(0);
    expect(files.filter((f) => f.endsWith('.sandbox.test.ts')).length).toBeGreaterThan(0);
    expect(files.length).toBeGreaterThan(60);
  });

  test('every test file keeps its tier', () => {
    expect(tierProblems(repoTests(), root)).toEqual([]);
  });
});

describe('the tier check fires on a tree that breaks it', () => {
  let dir: string;
  const write = (files: Record<string, string>): string[] => {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    return Object.keys(files)
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => join(dir, name));
  };
  const problems = (files: Record<string, string>) => tierProblems(write(files), dir);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'evf-tiers-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a unit test importing the sandbox, child_process or a server fails; the same in its tier passes', () => {
    const sandbox = "import { startSandbox } from '@evf/sandbox';\n";
    const child = "import { spawnSync } from 'node:child_process';\n";
    const server = "import { createServer } from 'node:http';\n";
    expect(problems({ 'a.test.ts': sandbox, 'b.test.ts': child, 'c.test.ts': server })).toEqual([
      'a.test.ts: a unit test imports @evf/sandbox (name it .sandbox.test.ts or .e2e.test.ts)',
      'b.test.ts: a unit test imports node:child_process (name it .sandbox.test.ts or .e2e.test.ts)',
      'c.test.ts: a unit test imports createServer from node:http (name it .sandbox.test.ts or .e2e.test.ts)',
    ]);
    expect(problems({ 'a.sandbox.test.ts': sandbox + server, 'b.e2e.test.ts': child })).toEqual([]);
  });

  test('a unit test reaching a harness through local imports fails; a type-only import or a pure export passes', () => {
    expect(
      problems({
        'harness/runner.ts': "const { spawn } = require('child_process');\nexport const run = () => spawn;\n",
        'support/flow.ts': "export { run } from '../harness/runner';\n",
        'x.test.ts': "import { run } from './support/flow';\n",
      }),
    ).toEqual([
      'x.test.ts: a unit test via support/flow.ts -> harness/runner.ts: imports child_process (name it .sandbox.test.ts or .e2e.test.ts)',
    ]);
    expect(
      problems({
        'y.test.ts':
          "import type { Sandbox } from '@evf/sandbox';\nimport { type Server } from 'node:http';\n" +
          "import { isIP } from 'node:net';\nimport { STATUS_CODES } from 'node:http';\n",
      }),
    ).toEqual([]);
  });

  test('a real timer in a unit test fails unless the file runs fake timers', () => {
    const sleep = 'it("w", async () => { await new Promise((r) => setTimeout(r, 50)); });\n';
    expect(problems({ 'w.test.ts': sleep })).toEqual([
      "w.test.ts:1: a unit test waits on a real timer (use jest's fake timers)",
    ]);
    expect(problems({ 'v.test.ts': `jest.useFakeTimers();\n${sleep}`, 'w.sandbox.test.ts': sleep })).toEqual(
      [],
    );
  });

  test('a wall-clock duration asserted outside e2e fails; in e2e, or a clock reading alone, passes', () => {
    const timed = [
      'it("t", async () => {',
      '  const started = Date.now();',
      '  await work();',
      '  expect(Date.now() - started).toBeLessThan(550);',
      '  const took = performance.now() - started;',
      '  expect(took).toBeGreaterThan(1);',
      '});',
      '',
    ].join('\n');
    expect(problems({ 't.sandbox.test.ts': timed, 'u.test.ts': timed })).toEqual([
      't.sandbox.test.ts:4: asserts a wall-clock duration outside the e2e tier',
      't.sandbox.test.ts:6: asserts a wall-clock duration outside the e2e tier',
      'u.test.ts:4: asserts a wall-clock duration outside the e2e tier',
      'u.test.ts:6: asserts a wall-clock duration outside the e2e tier',
    ]);
    const reading =
      'it("r", () => { const ts = Math.floor(Date.now() / 1000); expect(ts - header).toBeLessThan(5); });\n';
    expect(problems({ 't.e2e.test.ts': timed, 'r.sandbox.test.ts': reading })).toEqual([]);
  });

  test('a suffix that is no tier fails', () => {
    expect(problems({ 'n.e2e-n8n.test.ts': '', 'm.slow.test.ts': '' })).toEqual([
      "n.e2e-n8n.test.ts: not a tier's suffix (name.test.ts, name.sandbox.test.ts or name.e2e.test.ts)",
      "m.slow.test.ts: not a tier's suffix (name.test.ts, name.sandbox.test.ts or name.e2e.test.ts)",
    ]);
  });
});
