// `npm run release:check -w @evf/zapier`: everything `zapier-platform push` needs, short of the network,
// in the order a problem is cheapest to find:
// 1. the listing (listing/listing.json: name, description, logo, category, a real homepage) and the
//    logo made from the Make app's;
// 2. the release variables push's `_zapier-build` bakes into the bundle (EVF_BASE_URL, EVF_APP_ORIGIN),
//    checked by the same rule (scripts/bundle.cjs --release);
// 3. the type check;
// 4. `zapier-platform build --skip-validation` here, as push runs it (install from the registry, zip,
//    the CLI's own check of the zip), leaving build/build.zip; only the style check, which calls
//    Zapier's servers, is left to push;
// 5. `zapier-platform validate --without-style`, the local half of that check;
// 6. build/source.zip holds no node_modules and no tests.
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { readListing, listingProblems } = require('./listing.cjs');
const { runZapierCli } = require('./zapier-cli.cjs');
const { zipEntries, sourceZipProblems } = require('./zip-entries.cjs');

const root = path.join(__dirname, '..');

function step(title, command, args) {
  process.stdout.write(`\n▶ ${title}\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    process.stderr.write(`✖ ${title} failed\n`);
    process.exit(result.status ?? 1);
  }
}

async function main() {
  const problems = listingProblems(readListing(), { release: true });
  if (problems.length) {
    process.stderr.write(
      `✖ Zapier listing (packages/zapier/listing/listing.json):\n  - ${problems.join('\n  - ')}\n`,
    );
    process.exit(1);
  }
  process.stdout.write('✔ Zapier listing\n');
  step('Logo made from the Make logo', process.execPath, ['scripts/logo.cjs', '--check']);
  step('Release variables (EVF_BASE_URL, EVF_APP_ORIGIN) and the release bundle', process.execPath, [
    'scripts/bundle.cjs',
    '--release',
  ]);
  step('Type check', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
  for (const [title, args, says] of [
    [
      'zapier-platform build --skip-validation (all of push but the upload and the style check)',
      ['build', '--skip-validation'],
      /Build complete/,
    ],
    [
      'zapier-platform validate --without-style',
      ['validate', '--without-style', '--skip-build'],
      /structurally sound/,
    ],
  ]) {
    process.stdout.write(`\n▶ ${title}\n`);
    const result = await runZapierCli(args);
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    if (result.status !== 0 || !says.test(result.stdout)) {
      process.stderr.write(`✖ ${title} failed\n`);
      process.exit(result.status || 1);
    }
  }
  // The CLI zips the app folder's sources honouring only its .gitignore: dependencies and tests must
  // not ride along to Zapier.
  const zipProblems = sourceZipProblems(zipEntries(path.join(root, 'build', 'source.zip')));
  if (zipProblems.length) {
    process.stderr.write(`✖ ${zipProblems.join('\n✖ ')}\n`);
    process.exit(1);
  }
  process.stdout.write('✔ build/source.zip holds no dependencies or tests\n');
  process.stdout.write(
    '\n✔ ready to push: npm run zapier -w @evf/zapier -- push (with the same variables set)\n',
  );
}

main();
