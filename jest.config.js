/** One jest run for the whole monorepo; workspace packages resolve to their TypeScript source. */
module.exports = {
  testEnvironment: 'node',
  testEnvironmentOptions: { customExportConditions: ['source', 'node', 'require', 'default'] },
  transform: { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  transformIgnorePatterns: ['/node_modules/'],
  testMatch: ['<rootDir>/packages/*/test/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '\\.e2e-n8n\\.test\\.ts$'],
  // Fails any suite that prints an API key or a signing secret (test/support/secret-guard.ts).
  setupFilesAfterEnv: ['<rootDir>/test/support/secret-guard.setup.ts'],
  moduleFileExtensions: ['ts', 'js', 'json', 'cjs', 'mjs'],
};
