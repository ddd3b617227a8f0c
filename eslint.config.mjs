// One lint configuration for the TypeScript that is not a platform package with its own linter
// (the n8n package is linted by `n8n-node lint` with n8n's stock rules).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'packages/n8n/**',
      'packages/make/app/**',
      '**/*.cjs',
      '**/*.mjs',
      '**/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // The client's core must stay platform-neutral: n8n's scanner rejects these in any shipped file.
    files: ['packages/client/src/**/*.ts'],
    ignores: ['packages/client/src/node/**'],
    rules: {
      'no-restricted-globals': [
        'error',
        'setTimeout',
        'setInterval',
        'setImmediate',
        'clearTimeout',
        'process',
        'global',
        'globalThis',
        'console',
        'eval',
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: ['fs', 'http', 'https', 'dns', 'net', 'os', 'path', 'child_process', 'crypto'].map(
            (name) => ({ name, message: 'The core imports only node:crypto.' }),
          ),
          patterns: [{ group: ['node:*', '!node:crypto'], message: 'The core imports only node:crypto.' }],
        },
      ],
    },
  },
  {
    files: ['**/test/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
);
