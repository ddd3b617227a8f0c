#!/usr/bin/env node
'use strict';
/**
 * `npm run test:editor`: the editor test in Debian's Chromium, with its own jest invocation (the root
 * jest config leaves *.e2e-n8n.test.ts out). Without /usr/bin/chromium it says so in one line and
 * passes, except under CI=true, where Chromium is a declared prerequisite (.ci/run installs it).
 * EVF_SCREENSHOTS=1 refreshes the README's screenshots in packages/n8n/docs/.
 */
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
	const line = `n8n editor test: ${CHROMIUM} is missing (Debian package chromium: apt-get install -y chromium)`;
	if (process.env.CI === 'true') {
		process.stderr.write(`${line}; it is required under CI=true\n`);
		process.exit(1);
	}
	process.stdout.write(`${line}; skipped\n`);
	process.exit(0);
}

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const started = Date.now();
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
		'packages/n8n/test/editor/editor.e2e-n8n.test.ts',
	],
	{ cwd: repoRoot, stdio: 'inherit' },
);
process.stdout.write(`n8n editor test: ${Math.round((Date.now() - started) / 1000)} s\n`);
process.exitCode = result.status ?? 1;
