/**
 * One jest run for the whole monorepo; workspace packages resolve to their TypeScript source.
 * Three tiers, one jest project each, chosen by a file's suffix (`jest --selectProjects unit`):
 * - unit     `*.test.ts`          opens no socket, starts no process, reads no wall clock;
 * - sandbox  `*.sandbox.test.ts`  the in-process sandbox (or another loopback server), accelerated clock;
 * - e2e      `*.e2e.test.ts`      real n8n, the Zapier CLI, Chromium, child processes, 50,000-row flows,
 *                                 anything timed by the wall clock.
 * test/conventions holds the suffixes to what the files do.
 */
const shared = {
  testEnvironment: 'node',
  testEnvironmentOptions: { customExportConditions: ['source', 'node', 'require', 'default'] },
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  transformIgnorePatterns: ['/node_modules/'],
  // The first fails any suite that prints an API key or a signing secret (test/support/secret-guard.ts);
  // the second gives each tier its own default timeout (jest's `testTimeout` is one for all projects).
  setupFilesAfterEnv: [
    '<rootDir>/test/support/secret-guard.setup.ts',
    '<rootDir>/test/support/tier-timeout.setup.ts',
  ],
  moduleFileExtensions: ['ts', 'js', 'json', 'cjs', 'mjs'],
};

const roots = (suffix) => [`<rootDir>/packages/*/test/**/*${suffix}`, `<rootDir>/test/**/*${suffix}`];
const ignored = ['/node_modules/', '/dist/'];

// The real-n8n suites run in packages/n8n's own `test:e2e` and `test:editor` scripts (with that
// package's globalSetup, which installs n8n and packs the package once for them), which `npm test` reaches through the packages' `check` scripts.
const REAL_N8N =
  '/packages/n8n/test/(real-n8n|real-n8n-queue|npm-run-n8n|whole-sheet|editor/editor)\\.e2e\\.test\\.ts$';

module.exports = {
  // The default reporter, and one that records each file's time for `npm test`'s slowest-files list.
  reporters: ['default', '<rootDir>/test/support/file-times-reporter.cjs'],
  projects: [
    {
      ...shared,
      displayName: 'unit',
      // Timeouts are for hangs, never for speed: a unit test should take well under 1 s (`npm test`
      // lists any that take longer), and a busy machine (scripts/busy-machine.cjs) must not fail one.
      globals: { EVF_TIER_TIMEOUT_MS: 15_000 },
      testMatch: roots('.test.ts'),
      testPathIgnorePatterns: [...ignored, '\\.(sandbox|e2e)\\.test\\.ts$'],
    },
    {
      ...shared,
      displayName: 'sandbox',
      // Cases of 10,000 to 50,000 addresses over loopback met jest's 5 s default on a loaded machine.
      globals: { EVF_TIER_TIMEOUT_MS: 60_000 },
      testMatch: roots('.sandbox.test.ts'),
      testPathIgnorePatterns: ignored,
    },
    {
      ...shared,
      displayName: 'e2e',
      // Most files set their own; this is the floor for one that does not (processes, real services).
      globals: { EVF_TIER_TIMEOUT_MS: 120_000 },
      testMatch: roots('.e2e.test.ts'),
      testPathIgnorePatterns: [...ignored, REAL_N8N],
    },
  ],
};
