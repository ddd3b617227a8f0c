#!/usr/bin/env node
// `npm test`: every check of the monorepo, in the order a failure is cheapest to find.
// 1. commit messages since scripts/check-commits.cjs's BASE, 2. types, 3. lint (Prettier included),
// 4. the client's build (CJS + ESM + d.ts), 5-7. the jest tiers (unit, sandbox, e2e; jest.config.js),
// 8. each package's own checks (`check` scripts: builds, platform linters and
// validators, the real-n8n e2e). Each step prints its time; the tiers' times are repeated at the end.
// `node scripts/test.cjs unit lint` runs only the steps whose titles contain one of the words.
// At the end it prints the ten slowest test files of every jest run it made (test/support/
// file-times-reporter.cjs), so a file that grows is seen the day it grows.
const { spawnSync } = require('node:child_process');
const { mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

// jest's own summaries are kept for the closing line, which CI reads as "N passed, N failed".
const resultsDir = mkdtempSync(join(tmpdir(), 'evf-test-'));
const timesFile = join(resultsDir, 'file-times.jsonl');
const jestTier = (tier, what, ...options) => [
  `Jest ${tier} tier (${what})`,
  'npx',
  [
    'jest',
    '--ci',
    '--selectProjects',
    tier,
    ...options,
    '--json',
    `--outputFile=${join(resultsDir, `${tier}.json`)}`,
  ],
  tier,
];

const steps = [
  [
    'Commit messages (subject at most 72 characters, a blank line before the body)',
    'node',
    ['scripts/check-commits.cjs'],
  ],
  ['Type check (every package)', 'npm', ['run', 'typecheck']],
  ['Lint (one root config; the n8n package has its own)', 'npm', ['run', 'lint']],
  ['Build the client', 'npm', ['run', 'build', '-w', '@evf/client']],
  // A worker per core in every tier: jest's default (cores - 1) left one of CI's 2 cores idle for the
  // sandbox and e2e tiers, about 25 of CI's 55 minutes. Each file has its own sandbox, ports, folders
  // and clock, so two at once share nothing; a test that fails beside another is a defect of the test.
  jestTier('unit', 'no socket, no process, no wall clock', '--maxWorkers=100%'),
  jestTier('sandbox', 'the in-process sandbox on loopback', '--maxWorkers=100%'),
  jestTier('e2e', 'processes, the Zapier CLI, 50,000-row flows, wall-clock budgets', '--maxWorkers=100%'),
  [
    "Packages' own checks (the real-n8n e2e among them)",
    'npm',
    ['run', 'check', '--workspaces', '--if-present'],
  ],
];

/** The `count` slowest files the reporter recorded (a file run twice, as on two n8n versions, sums). */
function slowestFiles(file, count) {
  let lines = [];
  try {
    lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
  const byFile = new Map();
  for (const l of lines) {
    const key = `${l.project} ${l.file}`;
    const seen = byFile.get(key);
    if (seen) {
      seen.seconds += l.seconds;
      seen.tests += l.tests;
    } else byFile.set(key, { ...l });
  }
  return [...byFile.values()].sort((a, b) => b.seconds - a.seconds).slice(0, count);
}

const only = process.argv.slice(2);
const tierTimes = [];
let exitCode = 0;
for (const [title, cmd, args, tier] of steps) {
  if (only.length && !only.some((o) => title.toLowerCase().includes(o.toLowerCase()))) continue;
  console.log(`\n▶ ${title}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, EVF_TEST_TIMES: timesFile } });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (tier) tierTimes.push(`${tier} ${secs} s`);
  if (r.status !== 0) {
    console.error(`✖ ${title} failed after ${secs} s`);
    exitCode = r.status ?? 1;
    break;
  }
  console.log(`✔ ${title} (${secs} s)`);
}

/** Unit tests over 1 s, from the unit tier's summary: the unit tier's rule, shown where it drifts. */
function slowUnitTests() {
  try {
    const r = JSON.parse(readFileSync(join(resultsDir, 'unit.json'), 'utf8'));
    return r.testResults.flatMap((file) =>
      file.assertionResults
        .filter((a) => (a.duration ?? 0) > 1000)
        .map(
          (a) =>
            `  ${(a.duration / 1000).toFixed(1)} s  ${file.name.replace(`${process.cwd()}/`, '')}: ${a.fullName}`,
        ),
    );
  } catch {
    return [];
  }
}

const totals = { passed: 0, failed: 0, skipped: 0, runs: 0 };
for (const tier of ['unit', 'sandbox', 'e2e']) {
  try {
    const r = JSON.parse(readFileSync(join(resultsDir, `${tier}.json`), 'utf8'));
    totals.passed += r.numPassedTests;
    totals.failed += r.numFailedTests;
    totals.skipped += r.numPendingTests;
    totals.runs += 1;
  } catch {
    // This tier was not selected in this run, or did not get to write its summary.
  }
}
const slowest = slowestFiles(timesFile, 10);
const slowUnits = slowUnitTests();
rmSync(resultsDir, { recursive: true, force: true });
if (slowUnits.length) {
  console.log('\nunit tests over 1 s (a unit test should take well under; move size to the e2e tier):');
  for (const line of slowUnits) console.log(line);
}
if (slowest.length) {
  console.log('\nslowest test files:');
  for (const t of slowest)
    console.log(
      `  ${t.seconds.toFixed(1).padStart(7)} s  ${t.project.padEnd(7)} ${t.file} (${t.tests} tests)`,
    );
}
if (tierTimes.length) console.log(`\ntier times: ${tierTimes.join(', ')}`);
if (totals.runs)
  console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(exitCode);
