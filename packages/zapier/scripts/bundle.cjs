// Bundles the app and the shared client into one CommonJS file, so Zapier's runtime (and `zapier-platform
// push`, which zips the package folder) never has to resolve a workspace symlink. zapier-platform-core
// stays external: Zapier requires the app's own pinned copy.
//
// `--release` (run by `zapier-platform push` through the `_zapier-build` script) writes the production
// address into the bundle and refuses to build without one, or with one that is not https: a pushed app
// must never send keys to a default or plain-http address. It also writes the web app's origin
// (EVF_APP_ORIGIN), which the connection's help links open, and refuses a placeholder for it (Zapier's
// check D002 wants the key's help to link where the key is).
const Module = require('node:module');
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..');
const release = process.argv.includes('--release');
// --outfile=<path>: where the bundle goes (tests build a release bundle apart from dist/).
const outfileArg = process.argv.find((a) => a.startsWith('--outfile='));
const outfile = outfileArg
  ? path.resolve(outfileArg.slice('--outfile='.length))
  : path.join(root, 'dist/index.js');

/**
 * The client's base-URL rule (its adapter kit's baseUrlProblem), loaded from the client's TypeScript
 * source the way the app bundle is built, so the release check and the app never hold two copies of it.
 */
function clientBaseUrlProblem() {
  const { outputFiles } = esbuild.buildSync({
    stdin: {
      contents: "module.exports = require('@evf/client').baseUrlProblem;",
      resolveDir: root,
      loader: 'js',
    },
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    conditions: ['source'],
    logLevel: 'warning',
  });
  const loaded = new Module('evf-client-base-url', module);
  loaded._compile(outputFiles[0].text, path.join(root, 'evf-client-base-url.cjs'));
  return loaded.exports;
}

/** Release words for each of the client's rules; a release allows no plain http, not even to loopback. */
function releaseUrlProblem(value) {
  const problem = clientBaseUrlProblem()(value, { allowLoopbackHttp: false });
  if (!problem) return null;
  switch (problem.rule) {
    case 'required':
      return 'EVF_BASE_URL is not set; a release build needs the production address (https://<host>/api).';
    case 'syntax':
      return `EVF_BASE_URL (${value}) is not a URL.`;
    case 'credentials':
      return 'EVF_BASE_URL must not contain a user name or password; the API key travels in its own header.';
    default:
      return `EVF_BASE_URL must be an https:// address for a release; got ${problem.got}.`;
  }
}

/** Names that can never be the web app's: reserved for examples, tests and this machine (RFC 2606, 6761). */
const RESERVED_HOST = /(^|\.)(example|test|invalid|localhost)$/i;

/** The web app's origin for the help links: https, a public name, nothing after the host. */
function releaseOriginProblem(value) {
  if (!value)
    return "EVF_APP_ORIGIN is not set; a release build needs the web app's address (https://<app host>) for the help links.";
  let url;
  try {
    url = new URL(value);
  } catch {
    return `EVF_APP_ORIGIN (${value}) is not a URL.`;
  }
  if (url.protocol !== 'https:') return `EVF_APP_ORIGIN must be an https:// address; got ${url.protocol}.`;
  if (url.origin !== value.toLowerCase())
    return `EVF_APP_ORIGIN must be an origin only (https://<app host>), without path, query or credentials; got ${value}.`;
  const host = url.hostname.replace(/\.$/, '');
  if (RESERVED_HOST.test(host) || !host.includes('.'))
    return `EVF_APP_ORIGIN (${value}) is a placeholder name, not the web app's address.`;
  return null;
}

const releaseUrl = release ? (process.env.EVF_BASE_URL ?? '').trim() : '';
const releaseOrigin = release ? (process.env.EVF_APP_ORIGIN ?? '').trim().replace(/\/$/, '') : '';
if (release) {
  const problems = [releaseUrlProblem(releaseUrl), releaseOriginProblem(releaseOrigin)].filter(Boolean);
  if (problems.length) {
    for (const problem of problems) console.error(`Release build refused: ${problem}`);
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
    define: release
      ? {
          __EVF_RELEASE_BASE_URL__: JSON.stringify(releaseUrl),
          __EVF_RELEASE_APP_ORIGIN__: JSON.stringify(releaseOrigin),
        }
      : {},
  })
  .catch(() => process.exit(1));
