// Bundles the app and the shared client into one CommonJS file, so Zapier's runtime (and `zapier-platform
// push`, which zips the package folder) never has to resolve a workspace symlink. zapier-platform-core
// stays external: Zapier requires the app's own pinned copy.
//
// `--release` (run by `zapier-platform push` through the `_zapier-build` script) writes the production
// address into the bundle and refuses to build without one, or with one that is not https: a pushed app
// must never send keys to a default or plain-http address.
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..');
const release = process.argv.includes('--release');
// --outfile=<path>: where the bundle goes (tests build a release bundle apart from dist/).
const outfileArg = process.argv.find((a) => a.startsWith('--outfile='));
const outfile = outfileArg
  ? path.resolve(outfileArg.slice('--outfile='.length))
  : path.join(root, 'dist/index.js');

/** The reason a release address is refused, or null when it is fine. */
function releaseUrlProblem(value) {
  if (!value)
    return 'EVF_BASE_URL is not set; a release build needs the production address (https://<host>/api).';
  let url;
  try {
    url = new URL(value);
  } catch {
    return `EVF_BASE_URL (${value}) is not a URL.`;
  }
  if (url.protocol !== 'https:')
    return `EVF_BASE_URL must be an https:// address for a release; got ${url.protocol}//${url.host}.`;
  return null;
}

const releaseUrl = release ? (process.env.EVF_BASE_URL ?? '').trim() : '';
if (release) {
  const problem = releaseUrlProblem(releaseUrl);
  if (problem) {
    console.error(`Release build refused: ${problem}`);
    process.exit(1);
  }
}

esbuild
  .build({
    entryPoints: [path.join(root, 'src/index.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    conditions: ['source'],
    external: ['zapier-platform-core'],
    sourcemap: true,
    logLevel: 'warning',
    define: release ? { __EVF_RELEASE_BASE_URL__: JSON.stringify(releaseUrl) } : {},
  })
  .catch(() => process.exit(1));
