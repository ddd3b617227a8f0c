// `npm run release:check -w @evf/zapier`: everything `zapier-platform push` needs, short of the network,
// in the order a problem is cheapest to find:
// 1. the settings only the app's owner can give, all named in one refusal before anything long runs:
//    the listing's real homepage (listing/listing.json, with its name, description, logo and category)
//    and the release variables push's `_zapier-build` bakes into the bundle (EVF_BASE_URL,
//    EVF_APP_ORIGIN), checked by the same rule (scripts/bundle.cjs --release); then the logo made from
//    the Make app's;
// 2. the type check;
// 3. `zapier-platform build --skip-validation` here, as push runs it (install from the registry, zip,
//    the CLI's own check of the zip), leaving build/build.zip; only the style check, which calls
//    Zapier's servers, is left to push;
// 4. `zapier-platform validate --without-style`, the local half of that check;
// 5. build/source.zip holds no node_modules and no tests.
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

/** The command with its settings, as the README shows it and as a refusal repeats it. */
const WITH_SETTINGS =
  'EVF_BASE_URL=https://<service host>/api EVF_APP_ORIGIN=https://<app host> npm run release:check -w @evf/zapier';

async function main() {
  // Every missing setting is named in one refusal: a reader who fixed one should not meet the next
  // only on the second run.
  const refused = [];
  const problems = listingProblems(readListing(), { release: true });
  if (problems.length)
    refused.push(...problems.map((problem) => `packages/zapier/listing/listing.json ${problem}`));
  else process.stdout.write('✔ Zapier listing\n');
  process.stdout.write('\n▶ Release variables (EVF_BASE_URL, EVF_APP_ORIGIN) and the release bundle\n');
  const bundle = spawnSync(process.execPath, ['scripts/bundle.cjs', '--release'], {
    cwd: root,
    encoding: 'utf8',
  });
  process.stdout.write(bundle.stdout);
  if (bundle.status !== 0)
    refused.push(
      ...(bundle.stderr.trim()
        ? bundle.stderr.trim().split('\n')
        : ['the release bundle failed to build']
      ).map((line) => line.replace(/^Release build refused: /, '')),
    );
  if (refused.length) {
    const fixes = [];
    if (problems.length)
      fixes.push('put your product\'s https page as "homepage" in packages/zapier/listing/listing.json');
    if (bundle.status !== 0) fixes.push(`give the two addresses in the command:\n  ${WITH_SETTINGS}`);
    process.stderr.write(
      `✖ Not ready to check a release; it needs:\n  - ${refused.join('\n  - ')}\nTo fix: ${fixes.join('; then ')}\n`,
    );
    process.exit(1);
  }
  step('Logo made from the Make logo', process.execPath, ['scripts/logo.cjs', '--check']);
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
