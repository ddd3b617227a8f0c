/**
 * The secret guard itself: it must find what it is for, not cry wolf at prose, never repeat a secret
 * in its own findings, and, installed the way the lead would install it for the whole run
 * (jest --setupFilesAfterEnv), fail a suite that prints a key or a signing secret.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ApiError } from '@evf/client';
import {
  assertNoSecrets,
  findSecrets,
  installSecretGuard,
  OutputCapture,
  registerSecret,
  scanForSecrets,
} from '../support/secret-guard';

installSecretGuard();

const ROOT = join(__dirname, '..', '..');
const key = ['evf', '9c1d'.repeat(10)].join('_');
const secret = ['whsec', '77ab'.repeat(12)].join('_');
const shortSeeded = 'evf_k3y!'; // registered values need not have the usual shape

describe('finding secrets', () => {
  beforeAll(() => registerSecret(shortSeeded));

  test('registered values and credential shapes are found; the finding never repeats them', () => {
    const text = `a ${key} b ${secret} c ${shortSeeded} d`;
    const findings = findSecrets(text, 'sample');
    expect(findings.map((f) => f.offset)).toEqual(
      expect.arrayContaining([2, text.indexOf(secret), text.indexOf(shortSeeded)]),
    );
    const shown = JSON.stringify(findings);
    expect(shown).not.toContain(key);
    expect(shown).not.toContain(secret);
    expect(shown).toContain('evf_… (44 characters)');
  });

  test('prose about keys is not a key', () => {
    expect(
      findSecrets('Keys start with evf_; secrets with whsec_. Key id key_ab12, job job_7f3c2a9e41b84d05.'),
    ).toEqual([]);
  });

  test('errors are scanned through message, stack, cause and body', () => {
    const inner = new Error(`upstream said ${secret}`);
    const wrapped = new Error('outer', { cause: inner });
    expect(scanForSecrets(wrapped, 'error').map((f) => f.where)).toEqual(
      expect.arrayContaining(['error.cause.message']),
    );
    const api = new ApiError({
      status: 400,
      body: { error: { echo: key } },
      headers: {},
      method: 'GET',
      path: '/v1/x',
    });
    expect(() => assertNoSecrets(api, 'api error')).toThrow(/api error\.body\.error\.echo/);
    expect(() => assertNoSecrets(api, 'api error')).not.toThrow(new RegExp(key));
    expect(() => assertNoSecrets({ output: [{ ok: 'fine' }] })).not.toThrow();
  });

  test('output capture sees console and both streams, and restores them', () => {
    const capture = new OutputCapture();
    const originalLog = console.log;
    capture.start();
    console.log('via console %s', 'x');
    process.stdout.write('via stdout\n');
    process.stderr.write('via stderr\n');
    capture.stop();
    expect(console.log).toBe(originalLog);
    expect(capture.take()).toEqual(
      expect.arrayContaining([
        ['console.log', 'via console x'],
        ['stdout', 'via stdout\n'],
        ['stderr', 'via stderr\n'],
      ]),
    );
  });
});

describe('installed for a whole run with jest --setupFilesAfterEnv', () => {
  function runFixture(name: string) {
    const r = spawnSync(
      process.execPath,
      [
        require.resolve('jest/bin/jest'),
        '--ci',
        '--rootDir',
        ROOT,
        '--testMatch',
        `<rootDir>/test/support/fixtures/${name}`,
        '--setupFilesAfterEnv',
        '<rootDir>/test/support/secret-guard.setup.ts',
      ],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' }, timeout: 60_000 },
    );
    return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
  }

  test('a suite that prints an API key fails, and says so without repeating it', () => {
    const { status, output } = runFixture('leaky.fixture.ts');
    expect(status).toBe(1);
    expect(output).toContain('Secret guard: an API key or signing secret was printed during this test');
    expect(output).toContain('evf_… (36 characters) in console.log');
  }, 60_000);

  test('a signing secret written to stderr in an afterEach hook fails the run too', () => {
    const { status, output } = runFixture('stderr-leak.fixture.ts');
    expect(status).toBe(1);
    expect(output).toContain('whsec_… (30 characters) in stderr');
  }, 60_000);

  test("a key printed in the suite's own root-level afterAll fails the run too", () => {
    const { status, output } = runFixture('afterall-leak.fixture.ts');
    expect(status).toBe(1);
    expect(output).toContain('printed in an afterAll hook');
    expect(output).toContain('evf_… (32 characters) in console.log');
  }, 60_000);

  test('a suite that prints only prose passes', () => {
    const { status, output } = runFixture('clean.fixture.ts');
    expect([status, output.includes('Secret guard')]).toEqual([0, false]);
  }, 60_000);
});
