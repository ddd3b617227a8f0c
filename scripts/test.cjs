#!/usr/bin/env node
// `npm test`: every check of the monorepo, in the order a failure is cheapest to find.
// 1. types of the shared code, 2. the client's build (CJS + ESM + d.ts), 3. every jest suite,
// 4. each package's own checks (`check` scripts: builds, platform linters and validators, the real-n8n e2e).
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

// jest's own summary is kept for the closing line, which CI reads as "N passed, N failed".
const resultsDir = mkdtempSync(join(tmpdir(), 'evf-test-'));
const jestResults = join(resultsDir, 'jest.json');

const steps = [
  ['Type check (client, sandbox, contract, cross-package tests)', 'npx', ['tsc', '-p', 'tsconfig.check.json']],
  ['Lint (one root config; the n8n package has its own)', 'npm', ['run', 'lint']],
  ['Build the client', 'npm', ['run', 'build', '-w', '@evf/client']],
  ['Unit, contract, conformance and end-to-end tests (jest)', 'npx', ['jest', '--ci', '--json', `--outputFile=${jestResults}`]],
  ["Packages' own checks", 'npm', ['run', 'check', '--workspaces', '--if-present']],
];

const only = process.argv.slice(2);
for (const [title, cmd, args] of steps) {
  if (only.length && !only.some((o) => title.toLowerCase().includes(o.toLowerCase()))) continue;
  console.log(`\n▶ ${title}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: process.env });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) {
    console.error(`✖ ${title} failed after ${secs} s`);
    process.exit(r.status ?? 1);
  }
  console.log(`✔ ${title} (${secs} s)`);
}

try {
  const r = JSON.parse(readFileSync(jestResults, 'utf8'));
  console.log(`\ntests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`);
} catch {
  // The jest step was not selected in this run.
} finally {
  rmSync(resultsDir, { recursive: true, force: true });
}
