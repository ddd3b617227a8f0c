#!/usr/bin/env node
// `npm run release:check`: everything a release of the three shipped connectors needs, short of the
// network and an account, one platform after another; each says what to fix. Run it with the release
// variables set (EVF_BASE_URL, EVF_APP_ORIGIN: the Zapier app bakes them in).
// 1. Zapier: listing, logo, release variables, type check, `zapier-platform build` and `validate`
//    (packages/zapier/scripts/release-check.cjs);
// 2. n8n: package metadata true to this repository, build, lint, n8n's scanner, the tarball,
//    `npm publish --dry-run` (packages/n8n/scripts/release-check.cjs);
// 3. Make: the deploy's dry run (every call it would make, nothing sent);
// 4. each shipped package has a CHANGELOG.md whose newest entry is its current version.
// All steps run, so one run lists every problem; the exit status is 1 if any failed.
const { spawnSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');

/** Each shipped package, where its version lives and how a CHANGELOG heading names a version. */
const SHIPPED = [
  {
    name: 'Zapier app',
    dir: 'packages/zapier',
    version: () => readJson('packages/zapier/package.json').version,
  },
  { name: 'n8n package', dir: 'packages/n8n', version: () => readJson('packages/n8n/package.json').version },
  {
    name: 'Make app',
    dir: 'packages/make',
    version: () => String(readJsonc('packages/make/app/makecomapp.json').origins?.[0]?.appVersion ?? ''),
  },
];

function readJson(file) {
  return JSON.parse(readFileSync(path.join(root, file), 'utf8'));
}

/** makecomapp.json is JSON with comments (the Make Apps Editor's format). */
function readJsonc(file) {
  const { parse } = require('jsonc-parser');
  return parse(readFileSync(path.join(root, file), 'utf8'));
}

/** The version of a CHANGELOG's newest entry ("## 0.1.0 ..."), or null. */
function newestChangelogVersion(text) {
  const heading = text.match(/^## \[?v?(\d+(?:\.\d+){0,2})\]?/m);
  return heading ? heading[1] : null;
}

/** Problems with the shipped packages' changelogs. */
function changelogProblems() {
  const problems = [];
  for (const pkg of SHIPPED) {
    let text;
    try {
      text = readFileSync(path.join(root, pkg.dir, 'CHANGELOG.md'), 'utf8');
    } catch {
      problems.push(`${pkg.name}: ${pkg.dir}/CHANGELOG.md is missing`);
      continue;
    }
    const newest = newestChangelogVersion(text);
    if (newest !== pkg.version())
      problems.push(`${pkg.name}: the newest CHANGELOG entry is ${newest}, the package is ${pkg.version()}`);
    if (!/^## How versions are numbered/m.test(text))
      problems.push(`${pkg.name}: CHANGELOG.md must say how versions are numbered`);
  }
  return problems;
}

if (require.main === module) {
  const failed = [];
  const steps = [
    ['Zapier app', 'npm', ['run', 'release:check', '-w', '@evf/zapier']],
    ['n8n package', 'npm', ['run', 'release:check', '-w', 'n8n-nodes-evf']],
    ['Make app: deploy dry run', 'npm', ['run', 'deploy', '-w', '@evf/make', '--', '--dry-run']],
  ];
  for (const [title, command, args] of steps) {
    process.stdout.write(`\n▶ ${title}\n`);
    const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) failed.push(title);
  }
  process.stdout.write('\n▶ Changelogs\n');
  const problems = changelogProblems();
  for (const problem of problems) process.stderr.write(`✖ ${problem}\n`);
  if (problems.length) failed.push('Changelogs');
  else process.stdout.write('✔ every shipped package has a changelog entry for its version\n');
  if (failed.length) {
    process.stderr.write(`\n✖ not ready to release: ${failed.join(', ')}\n`);
    process.exit(1);
  }
  process.stdout.write('\n✔ ready to release: every step short of the network passed\n');
}

module.exports = { changelogProblems, newestChangelogVersion, SHIPPED };
