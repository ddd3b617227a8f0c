#!/usr/bin/env node
// Commit messages `git log --oneline` can be read by: a subject of at most 72 characters, and a blank
// line before any body (details, measurements and reasons go in the body).
//   node scripts/check-commits.cjs                       every commit after BASE (npm test runs this)
//   node scripts/check-commits.cjs --since <rev>         every commit after <rev>
//   node scripts/check-commits.cjs --message-file <f>    one message (the commit-msg hook in .githooks/)
//   node scripts/check-commits.cjs --install-hook        git config core.hooksPath .githooks (npm's
//                                                        `prepare`); does nothing outside a git checkout
const { spawnSync } = require('node:child_process');
const { readFileSync } = require('node:fs');

/** History up to this commit is exempt: the rule starts with the commits after it. */
const BASE = '3ed1a4f';
const MAX_SUBJECT = 72;
/** Commits after BASE let through by hand (none: over-long subjects were reworded before landing). */
const EXEMPT = new Set([]);

/** What is wrong with one commit message, as lines a person can act on; [] when it is fine. */
function messageProblems(message) {
  // Lines git itself drops: comments of the editor template, and the diff of `commit -v`.
  const scissors = message.indexOf('\n# ------------------------ >8 ------------------------');
  const lines = (scissors === -1 ? message : message.slice(0, scissors))
    .split('\n')
    .filter((line) => !line.startsWith('#'));
  while (lines.length && lines[0].trim() === '') lines.shift();
  const subject = lines[0] ?? '';
  const problems = [];
  if (subject.trim() === '') problems.push('the subject line is empty');
  if (subject.length > MAX_SUBJECT)
    problems.push(
      `the subject is ${subject.length} characters, over ${MAX_SUBJECT}: keep "area: what changed" ` +
        'short and put the details in the body',
    );
  if (lines.length > 1 && lines[1].trim() !== '')
    problems.push('the line after the subject is not blank: leave one blank line before the body');
  return problems;
}

/** Problems of every commit in `git log` output made with --format=%H%x00%B%x00, by short hash. */
function logProblems(log) {
  const fields = log.split('\0');
  const problems = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const hash = fields[i].trim();
    const message = fields[i + 1];
    if (EXEMPT.has(hash)) continue;
    for (const problem of messageProblems(message))
      problems.push(`${hash.slice(0, 7)} "${message.split('\n')[0].slice(0, 60)}": ${problem}`);
  }
  return problems;
}

function git(args) {
  return spawnSync('git', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function insideGitCheckout() {
  const r = git(['rev-parse', '--is-inside-work-tree']);
  return r.status === 0 && r.stdout.trim() === 'true';
}

function main(argv) {
  const at = (flag) => {
    const i = argv.indexOf(flag);
    return i === -1 ? undefined : argv[i + 1];
  };
  if (argv.includes('--install-hook')) {
    if (!insideGitCheckout()) return 0;
    const r = git(['config', 'core.hooksPath', '.githooks']);
    return r.status ?? 1;
  }
  const file = at('--message-file');
  if (file !== undefined) {
    const problems = messageProblems(readFileSync(file, 'utf8'));
    for (const problem of problems) console.error(`commit message: ${problem}`);
    return problems.length ? 1 : 0;
  }
  if (!insideGitCheckout()) {
    console.log('commit messages: not a git checkout, nothing to check');
    return 0;
  }
  const since = at('--since') ?? BASE;
  if (git(['cat-file', '-e', `${since}^{commit}`]).status !== 0) {
    console.error(
      `commit messages: ${since} is not in this clone's history (fetch it: git fetch --unshallow)`,
    );
    return 1;
  }
  const log = git(['log', '--format=%H%x00%B%x00', `${since}..HEAD`]);
  if (log.status !== 0) {
    console.error(`commit messages: git log failed: ${log.stderr}`);
    return 1;
  }
  const problems = logProblems(log.stdout);
  for (const problem of problems) console.error(`commit ${problem}`);
  const count = (log.stdout.match(/\0/g) ?? []).length / 2;
  console.log(`commit messages: ${count} commits after ${since} checked, ${problems.length} problems`);
  return problems.length ? 1 : 0;
}

if (require.main === module) process.exit(main(process.argv.slice(2)));

module.exports = { BASE, MAX_SUBJECT, messageProblems, logProblems };
