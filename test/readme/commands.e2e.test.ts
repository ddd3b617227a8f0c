/**
 * Every README's shell commands, run as a reader runs them: in a fresh clone of this work tree's HEAD
 * (committed files only, so no dist/ and no .env), one clone per README, its blocks in order, each
 * command a process in bash. A block starts at the repository root, as the READMEs say; within a block
 * `cd` carries on, as in a terminal. A command fails the README's test when it exits non-zero, and:
 * - `npm ci` is not run: the clone gets the work tree's node_modules as hard links, checked first to be
 *   what `npm ci` makes from package-lock.json (see `assertNodeModulesMatchLock`);
 * - `# keeps running` commands (the sandbox, n8n) start in the background, are waited for by the line
 *   they print when ready (readme-commands.ts), and are stopped with Ctrl+C after the README's last one;
 * - `# needs <what>: <where it stops>` commands are not run (an account, the network); those whose
 *   missing values are `NAME=<placeholder>` settings run without them and must refuse, naming each;
 * - `npm test` is CI's own command, of which this test is a part, and is not run here; `npx jest <paths>`
 *   is checked to name test files (`--listTests`), which the tiers themselves run; `npm run n8n` is run
 *   as written by packages/n8n/test/npm-run-n8n.e2e.test.ts (PROVEN_BY below);
 * - a build already done in the clone is not repeated, nor a server started twice.
 * The one change made to a command: the sandbox's port. The machine is shared, so 8787 may be taken; the
 * clone's `npm start` gets a free port in PORT and `127.0.0.1:8787` in a command becomes that port.
 * HOME is a folder of the test's own (`~/.n8n` steps land there); npm's cache and the n8n cache
 * (EVF_N8N_CACHE) stay the machine's, so nothing is downloaded twice.
 *
 * EVF_README_REF=<commit> runs the READMEs of another commit (this file's rules): how the failures this
 * test was written for were shown before their fixes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  behaviourOf,
  commandsOf,
  markerProblem,
  placeholderSettings,
  readyLineOf,
  withoutNpmCi,
  type ReadmeCommand,
} from './readme-commands';

const root = join(__dirname, '..', '..');
const ref = process.env.EVF_README_REF || 'HEAD';
const git = (...args: string[]) =>
  spawnSync('git', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 }).stdout;
const commit = git('rev-parse', ref).trim();
const readmes = git('ls-tree', '-r', '--name-only', commit)
  .split('\n')
  .filter((file) => basename(file) === 'README.md');

/** A command may run this long before it counts as hung (a safety net, not a measure of speed). */
const HUNG_MS = 15 * 60_000;
/** The n8n cache: the harness's own rule (packages/n8n/test/harness/ensure-n8n.ts, cacheRoot). */
const n8nCache = process.env.EVF_N8N_CACHE || join(homedir(), '.cache', 'evf-n8n');

/** Output a test prints or fails with never shows a key or secret (the repo's secret guard). */
const redact = (text: string) => text.replace(/\b(evf|whsec)_[A-Za-z0-9_-]{16,}/g, '$1_…');
const tail = (text: string, n = 1500) => redact(text.length > n ? `…${text.slice(-n)}` : text);
const say = (line: string) => process.stderr.write(`${redact(line)}\n`);

/**
 * node_modules is what `npm ci` makes from package-lock.json: every package the lock places is there at
 * its locked version (optional ones for other platforms aside), and nothing else at the top. `npm ci`
 * deletes node_modules and unpacks exactly the lock; with .npmrc's ignore-scripts no install script
 * changes the tree afterwards, and workspace links are relative, so they point into the clone. A copy of
 * such a tree is then what `npm ci` would make in the clone, without 3 minutes of it.
 */
function assertNodeModulesMatchLock(): void {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; optional?: boolean; link?: boolean }>;
  };
  const problems: string[] = [];
  const placed = new Set<string>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/')) continue;
    placed.add(path);
    const manifest = join(root, path, 'package.json');
    if (!existsSync(manifest)) {
      if (!entry.optional) problems.push(`${path} is missing`);
      continue;
    }
    if (entry.link) continue;
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    // npm writes a version the way it reads it ("v1.3.0" in a manifest is 1.3.0 in the lock).
    if (version.replace(/^v/, '') !== entry.version)
      problems.push(`${path} is ${version}, the lock says ${entry.version}`);
  }
  for (const name of readdirSync(join(root, 'node_modules'))) {
    // npm's own files, and tools' caches (Prettier's), which a copy leaves out as npm ci deletes them.
    if (name === '.bin' || name === '.package-lock.json' || name === '.cache') continue;
    const names = name.startsWith('@')
      ? readdirSync(join(root, 'node_modules', name)).map((n) => `${name}/${n}`)
      : [name];
    for (const n of names)
      if (!placed.has(`node_modules/${n}`)) problems.push(`node_modules/${n} is not in the lock`);
  }
  if (problems.length)
    throw new Error(
      `node_modules is not what npm ci makes from package-lock.json; run npm ci first:\n  ${problems.slice(0, 20).join('\n  ')}`,
    );
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

interface Workspace {
  clone: string;
  env: NodeJS.ProcessEnv;
  port: number;
  remove: () => void;
}

/** A fresh clone of the commit with node_modules, a HOME of its own and the environment a reader has. */
async function freshClone(): Promise<Workspace> {
  const dir = mkdtempSync(join(tmpdir(), 'evf-readme-'));
  const clone = join(dir, 'clone');
  const home = join(dir, 'home');
  // The machine's n8n cache seen at its usual place, so `~/.cache/evf-n8n/...` in a README resolves; the
  // n8n that `npm run n8n` starts keeps its data in the test's own folder.
  mkdirSync(join(home, '.cache'), { recursive: true });
  symlinkSync(n8nCache, join(home, '.cache', 'evf-n8n'));
  const cloned = spawnSync('git', ['clone', '--quiet', '--no-checkout', root, clone], { encoding: 'utf8' });
  if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
  spawnSync('git', ['checkout', '--quiet', commit], { cwd: clone });
  // Hard links: a second copy of 900 MB would take longer than the commands it serves. No README
  // command rewrites a file inside node_modules in place (npm installs go to ~/.n8n/nodes).
  const copied = spawnSync('cp', ['-al', join(root, 'node_modules'), join(clone, 'node_modules')]);
  if (copied.status !== 0) throw new Error(`cp -al node_modules failed: ${copied.stderr}`);
  rmSync(join(clone, 'node_modules', '.cache'), { recursive: true, force: true });
  // The one file npm rewrites in place even when it installs nothing (its record of the tree): a copy
  // of its own, so an npm command in the clone never writes through the link into the work tree.
  const record = join(clone, 'node_modules', '.package-lock.json');
  copyFileSync(record, `${record}.own`);
  renameSync(`${record}.own`, record);
  const built = spawnSync(
    'find',
    [clone, '-path', `${clone}/node_modules`, '-prune', '-o', '-name', 'dist', '-print'],
    {
      encoding: 'utf8',
    },
  ).stdout.trim();
  if (built) throw new Error(`the fresh clone has built output: ${built}`);

  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  // The reader's environment: no npm lifecycle variables from a test runner started by npm, and none
  // of the settings a README asks the reader to give, so a command that needs one must say so.
  for (const [key, value] of Object.entries(process.env))
    if (!/^(npm_|EVF_|MAKE_|JEST_|PORT$)/i.test(key)) env[key] = value;
  Object.assign(env, {
    HOME: home,
    npm_config_cache: process.env.npm_config_cache || join(homedir(), '.npm'),
    EVF_N8N_CACHE: n8nCache,
    EVF_N8N_DEV_FOLDER: join(dir, 'n8n-dev'),
    PORT: String(port),
  });
  // Unlinking 100,000 hard links takes 20 s on a busy machine and nothing waits for it: rm runs on
  // after this test, on its own.
  const remove = () => spawn('rm', ['-rf', dir], { detached: true, stdio: 'ignore' }).unref();
  return { clone, env, port, remove };
}

interface Ran {
  code: number | null;
  output: string;
  cwd: string;
  seconds: number;
}

/** One command in bash, its own process group; resolves with its exit, its output and where it ended. */
function runCommand(text: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const pwdFile = join(tmpdir(), `evf-readme-pwd-${process.pid}-${Date.now()}`);
  const script = `${text}\n__rc=$?; pwd > '${pwdFile}'; exit $__rc`;
  const started = Date.now();
  return new Promise((done) => {
    const child = spawn('bash', ['-c', script], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-200_000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const hung = setTimeout(() => {
      output += `\n[killed: still running after ${HUNG_MS / 60_000} minutes]`;
      process.kill(-child.pid!, 'SIGKILL');
    }, HUNG_MS);
    child.once('exit', (code) => {
      clearTimeout(hung);
      let end = cwd;
      try {
        end = readFileSync(pwdFile, 'utf8').trim() || cwd;
        rmSync(pwdFile, { force: true });
      } catch {
        // The command ended the shell itself (exit): the next one starts where this one did.
      }
      done({ code, output, cwd: end, seconds: Math.round((Date.now() - started) / 1000) });
    });
  });
}

interface Server {
  child: ChildProcess;
  text: string;
  output: () => string;
}

/** A `keeps running` command: started, and resolved once it prints its ready line. */
function startServer(text: string, cwd: string, env: NodeJS.ProcessEnv, ready: RegExp): Promise<Server> {
  const child = spawn('bash', ['-c', text], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const server = { child, text, output: () => output };
  return new Promise((done, fail) => {
    const hung = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      fail(new Error(`\`${text}\` printed no ready line in ${HUNG_MS / 60_000} minutes:\n${tail(output)}`));
    }, HUNG_MS);
    const look = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-200_000);
      if (ready.test(output)) {
        clearTimeout(hung);
        done(server);
      }
    };
    child.stdout!.on('data', look);
    child.stderr!.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(hung);
      fail(new Error(`\`${text}\` exited (${code}) before it was ready:\n${tail(output)}`));
    });
  });
}

/** Ctrl+C in the terminal: SIGINT to the whole group, then SIGKILL if it is still there a minute later. */
async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((done) => server.child.once('exit', done));
  process.kill(-server.child.pid!, 'SIGINT');
  const late = setTimeout(() => {
    try {
      process.kill(-server.child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }, 60_000);
  await exited;
  clearTimeout(late);
}

/**
 * Commands another end-to-end test runs exactly as the README writes them, from the repository root,
 * with more checks than a README run could make. Run here too they would add minutes to a test that
 * must stay short; the test file must still run the very command.
 */
const PROVEN_BY: ReadonlyArray<{ command: RegExp; test: string; runs: string; why: string }> = [
  {
    command: /^npm run n8n$/,
    test: 'packages/n8n/test/npm-run-n8n.e2e.test.ts',
    runs: "runNpmScript(['run', 'n8n']",
    why: 'up to the editor, the credential and Ctrl+C; the demo builds and loads the same package in this clone',
  },
];

/** What some commands must print besides exiting 0: the results a README promises. */
const PRINTS: ReadonlyArray<{ command: RegExp; says: RegExp[] }> = [
  {
    command: /^npm run demo\b/,
    says: [
      /=== The shared client ===/,
      /=== Zapier app/,
      /=== n8n node/,
      /=== Make app \(through the local model of Make/,
      /Demo finished\. Where to go next:\n- .+README\.md/,
    ],
  },
  { command: /verifySingle\(\{ email: 'valid@example\.com' \}\)/, says: [/^valid$/m] },
  { command: /^curl .*\/v1\/verify\/single/, says: [/"status":"valid"/] },
  {
    // Verify Email Address's first result: the fields the READMEs name (Category, Group, Safe to Send).
    command: /invoke create verify_email/,
    says: [/"category": "\w/, /"group": "(safe_to_send|risky|invalid)"/, /"safe_to_send": (true|false)/],
  },
];

/** What a command that stops without the reader's settings must print: each setting's name. */
function refusalProblem(names: string[], ran: Ran): string | null {
  const unnamed = names.filter((name) => !ran.output.includes(name));
  if (ran.code !== 0 && unnamed.length === 0) return null;
  return ran.code === 0
    ? `ran without ${names.join(', ')} and exited 0`
    : `refused without naming ${unnamed.join(', ')}:\n${tail(ran.output)}`;
}

async function runReadme(file: string, commands: ReadmeCommand[]): Promise<string[]> {
  const failures: string[] = [];
  const ws = await freshClone();
  const servers: Server[] = [];
  const env = { ...ws.env };
  const built = new Set<string>();
  let cwd = ws.clone;
  const at = (c: ReadmeCommand) => `${file}:${c.line} \`${c.text}\``;

  /** One command; what is wrong with it goes into `failures`. */
  async function runOne(command: ReadmeCommand): Promise<void> {
    const problem = markerProblem(command);
    if (problem) {
      failures.push(problem);
      return;
    }
    const text = withoutNpmCi(command.text).replaceAll('127.0.0.1:8787', `127.0.0.1:${ws.port}`);
    if (!text) return;
    const behaviour = behaviourOf(command);

    if (behaviour.kind === 'needs') {
      const { names, without } = placeholderSettings(text);
      if (names.length && without) {
        const ran = await runCommand(without, cwd, env);
        const refused = refusalProblem(names, ran);
        if (refused) failures.push(`${at(command)} ${refused}`);
        say(
          `  ${ran.seconds} s  run without ${names.join(', ')}: ${refused ? 'did not refuse naming them' : 'refused, naming them'}`,
        );
      }
      say(`  not run (needs ${behaviour.what}): ${text}`);
      return;
    }
    if (text === 'npm test') {
      say(`  not run (CI's own command, of which this test is a part): ${text}`);
      return;
    }
    const jest = /^npx jest (.+)$/.exec(text);
    if (jest) {
      const ran = await runCommand(`npx jest --listTests ${jest[1]}`, cwd, env);
      if (ran.code !== 0 || !/\.test\.ts/.test(ran.output))
        failures.push(`${at(command)} names no test file:\n${tail(ran.output)}`);
      say(`  ${ran.seconds} s  listed, not run (the test tiers run it): ${text}`);
      return;
    }
    const elsewhere = PROVEN_BY.find(({ command: which }) => which.test(text));
    if (elsewhere) {
      const source = readFileSync(join(root, elsewhere.test), 'utf8');
      if (!source.includes(elsewhere.runs))
        failures.push(`${at(command)}: ${elsewhere.test} no longer runs ${elsewhere.runs}`);
      say(`  not run here (${elsewhere.test} runs it, ${elsewhere.why}): ${text}`);
      return;
    }
    if (behaviour.kind === 'keeps-running') {
      // A reader whose sandbox still runs in its terminal from an earlier section does not start another.
      if (servers.some((server) => server.text === text && server.child.exitCode === null)) {
        say(`  already running: ${text}`);
        return;
      }
      const started = Date.now();
      try {
        servers.push(await startServer(text, cwd, env, readyLineOf(text)!));
        say(`  ${Math.round((Date.now() - started) / 1000)} s  ready, left running: ${text}`);
      } catch (error) {
        failures.push(`${at(command)}: ${(error as Error).message}`);
      }
      return;
    }

    // A README repeats a build for the reader who starts at that section; run twice in one clone it
    // gives the same files, so a build that passed here is not run again.
    const key = `${cwd}\0${text}`;
    if (/^npm run build -w [@\w/-]+$/.test(text) && built.has(key)) {
      say(`  built already in this clone: ${text}`);
      return;
    }
    const ran = await runCommand(text, cwd, env);
    say(`  ${ran.seconds} s  exit ${ran.code}: ${text}`);
    if (ran.code === 0) built.add(key);
    cwd = ran.cwd;
    if (ran.code !== 0) {
      failures.push(`${at(command)} exited ${ran.code}:\n${tail(ran.output)}`);
      return;
    }
    for (const { command: which, says } of PRINTS)
      if (which.test(text))
        for (const line of says)
          if (!line.test(ran.output))
            failures.push(`${at(command)} did not print ${line}:\n${tail(ran.output)}`);
  }

  let block = -1;
  let failedBlock = -1;
  try {
    for (const command of commands) {
      if (command.block !== block) {
        block = command.block;
        cwd = ws.clone;
      }
      // A reader stops at a step that failed: the steps after it would run where they were not meant to.
      if (command.block === failedBlock) {
        say(`  not run (an earlier step of its block failed): ${command.text}`);
        continue;
      }
      const before = failures.length;
      await runOne(command);
      if (failures.length > before) failedBlock = command.block;
    }
  } finally {
    for (const server of servers.reverse()) await stopServer(server);
    ws.remove();
  }
  // Ctrl+C stopped the sandbox itself, not only npm: its port no longer answers.
  if (servers.some((s) => /npm start\b/.test(s.text)))
    await fetch(`http://127.0.0.1:${ws.port}/api/v1/account/credits`).then(
      () => failures.push(`${file}: the sandbox still answers after Ctrl+C`),
      () => undefined,
    );
  return failures;
}

describe(`README commands, in a fresh clone of ${ref} (${commit.slice(0, 7)})`, () => {
  beforeAll(() => assertNodeModulesMatchLock());

  test('there are READMEs with commands to run', () => {
    expect(readmes.length).toBeGreaterThan(5);
    expect(readmes).toContain('README.md');
  });

  test.each(readmes)(
    '%s: every command runs as written',
    async (file) => {
      const commands = commandsOf(file, git('show', `${commit}:${file}`));
      if (commands.length === 0) return;
      const started = Date.now();
      say(`${file}: ${commands.length} commands`);
      const failures = await runReadme(file, commands);
      say(`${file}: ${Math.round((Date.now() - started) / 1000)} s`);
      expect(failures).toEqual([]);
    },
    60 * 60_000,
  );
});
