#!/usr/bin/env node
'use strict';
/** Runs the real-n8n end-to-end test with its own jest invocation (the root config leaves it out). */
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const result = spawnSync(
	process.execPath,
	[
		require.resolve('jest/bin/jest', { paths: [repoRoot] }),
		'--rootDir',
		repoRoot,
		'--testPathIgnorePatterns',
		'/node_modules/',
		'/dist/',
		'--runTestsByPath',
		'packages/n8n/test/real-n8n.e2e-n8n.test.ts',
	],
	{ cwd: repoRoot, stdio: 'inherit' },
);
process.exitCode = result.status ?? 1;
