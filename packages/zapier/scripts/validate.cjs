// Runs `zapier-platform validate --without-style` (offline schema validation of the built app) through the
// one CLI runner (zapier-cli.cjs: Zapier's CLI on a pinned Node 22). The release build is validated by
// test/release-build.e2e.test.ts with the same runner.
const { runZapierCli } = require('./zapier-cli.cjs');

runZapierCli(['validate', '--without-style', '--skip-build']).then((result) => {
  process.stdout.write(result.stdout);
  process.stderr.write(result.stderr);
  // The CLI prints a problem table but has exited 0 on problems in some versions: read its verdict too.
  if (result.status !== 0 || !/structurally sound/.test(result.stdout)) process.exit(result.status || 1);
});
