#!/usr/bin/env node
'use strict';
/**
 * Runs the real-n8n end-to-end suites with their own jest invocation (the root config leaves them out):
 * the package in real n8n, in n8n's queue mode, and `npm run n8n` as a user starts it. The n8n versions come from ensure-n8n.cjs: the
 * pinned one always; the newest proven one too in CI (CI=true) or with EVF_N8N_MATRIX=1.
 * Arguments are passed to jest (e.g. `-t "queue"`); EVF_N8N_SUITES=real-n8n picks suites by file name.
 */
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { NEWEST, PINNED, matrixVersions } = require('./ensure-n8n.cjs');

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const suites = [
	'real-n8n.e2e-n8n.test.ts',
	'real-n8n-queue.e2e-n8n.test.ts',
	'npm-run-n8n.e2e-n8n.test.ts',
].filter((file) => !process.env.EVF_N8N_SUITES || file.includes(process.env.EVF_N8N_SUITES));
const versions = matrixVersions();
process.stdout.write(
	versions.length > 1
		? `real n8n: ${versions.join(' and ')}\n`
		: `real n8n: ${PINNED} only; EVF_N8N_MATRIX=1 also runs n8n ${NEWEST} on Node.js 24 (CI runs both)\n`,
);
const result = spawnSync(
	process.execPath,
	[
		require.resolve('jest/bin/jest', { paths: [repoRoot] }),
		'--rootDir',
		repoRoot,
		'--testPathIgnorePatterns',
		'/node_modules/',
		'/dist/',
		'--runInBand',
		'--runTestsByPath',
		...suites.map((file) => `packages/n8n/test/${file}`),
		...process.argv.slice(2),
	],
	{ cwd: repoRoot, stdio: 'inherit' },
);
process.exitCode = result.status ?? 1;
