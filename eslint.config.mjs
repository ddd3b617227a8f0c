// One lint configuration for the repository's own TypeScript and JavaScript (`eslint .`), but for the n8n
// package's TypeScript, which `n8n-node lint` holds to n8n's stock rules (its scripts and config are
// JavaScript that n8n's rules leave out, so they are linted here).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** What Node gives every module, ES or CommonJS (no dependency: `globals` is not one of ours). */
const NODE_GLOBALS = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'TextEncoder',
    'TextDecoder',
    'AbortController',
    'fetch',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'structuredClone',
  ].map((name) => [name, 'readonly']),
);
/** What a CommonJS module has besides: its own require, module and exports. */
const COMMONJS_GLOBALS = {
  require: 'readonly',
  module: 'writable',
  exports: 'writable',
  __dirname: 'readonly',
  __filename: 'readonly',
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      // What .gitignore keeps out of a clone: build output, caches, files a Zapier build leaves behind.
      '**/build/**',
      '**/coverage/**',
      '**/.n8n-cache/**',
      'bench/results/**',
      'packages/zapier/zapierwrapper.js',
      'packages/n8n/**/*.ts',
      'packages/make/app/**',
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
    files: ['**/*.cjs', '**/*.mjs', '**/*.js'],
    languageOptions: { ecmaVersion: 2022, globals: NODE_GLOBALS },
  },
  {
    // CommonJS: require is the module system here, not a TypeScript import written the old way.
    files: ['**/*.cjs', 'jest.config.js', 'packages/zapier/index.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...NODE_GLOBALS, ...COMMONJS_GLOBALS } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
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
