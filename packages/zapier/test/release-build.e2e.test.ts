/**
 * The release build (`_zapier-build`, run by `zapier-platform push`) refuses to make an app that would
 * send keys to a default or plain-http address, and writes the production address into the bundle.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createAppTester } from 'zapier-platform-core';
import { parseZapierError } from './helpers';

const root = path.join(__dirname, '..');
// Inside the package (build/ is ignored by git), so the bundle resolves zapier-platform-core as Zapier does.
mkdirSync(path.join(root, 'build'), { recursive: true });
const outDir = mkdtempSync(path.join(root, 'build', 'release-test-'));
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

/** The web app's origin a release is made with, unless a test says otherwise. */
const APP_ORIGIN = 'https://app.evf-production.com';

function releaseBuild(
  baseUrl: string | undefined,
  outfile = path.join(outDir, 'index.js'),
  appOrigin: string | null = APP_ORIGIN, // null: none set
) {
  const env = { ...process.env };
  delete env.EVF_BASE_URL;
  delete env.EVF_APP_ORIGIN;
  if (baseUrl !== undefined) env.EVF_BASE_URL = baseUrl;
  if (appOrigin !== null) env.EVF_APP_ORIGIN = appOrigin;
  return spawnSync(process.execPath, ['scripts/bundle.cjs', '--release', `--outfile=${outfile}`], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
}

it.each([
  ['no address', undefined, /EVF_BASE_URL is not set/],
  ['an empty address', '  ', /EVF_BASE_URL is not set/],
  ['plain http', 'http://api.example.com/api', /must be an https:\/\/ address/],
  [
    'plain http on loopback (fine for a sandbox, never for a release)',
    'http://127.0.0.1:8787/api',
    /must be an https:\/\//,
  ],
  ['not a URL', 'api.example.com/api', /is not a URL/],
])('refuses a release build with %s', (_name, url, says) => {
  const outfile = path.join(outDir, `refused-${Math.random().toString(36).slice(2)}.js`);
  const result = releaseBuild(url, outfile);
  expect(result.status).toBe(1);
  expect(result.stderr).toMatch(says);
  expect(() => readFileSync(outfile)).toThrow();
});

it.each([
  ['no web app origin', null, /EVF_APP_ORIGIN is not set/],
  ['the placeholder origin', 'https://app.emailverify.example', /placeholder name/],
  ['a reserved test name', 'https://app.evf.test', /placeholder name/],
  ['a single-label name', 'https://intranet', /placeholder name/],
  ['plain http', 'http://app.evf-production.com', /must be an https:\/\/ address/],
  ['a path after the host', 'https://app.evf-production.com/profile', /origin only/],
  ['not a URL', 'app.evf-production.com', /is not a URL/],
])('refuses a release build with %s for the help links', (_name, origin, says) => {
  const outfile = path.join(outDir, `refused-${Math.random().toString(36).slice(2)}.js`);
  const result = releaseBuild('https://api.evf-production.test/api', outfile, origin);
  expect(result.status).toBe(1);
  expect(result.stderr).toMatch(says);
  expect(() => readFileSync(outfile)).toThrow();
});

it("a release bundle links the connection's help to the web app's origin and holds no placeholder origin (D002)", () => {
  const outfile = path.join(outDir, 'origin.js');
  const result = releaseBuild('https://api.evf-production.test/api', outfile, `${APP_ORIGIN}/`);
  expect(result.status).toBe(0);
  const bundle = readFileSync(outfile, 'utf8');
  // No address under the reserved .example name (RFC 2606), the development builds' placeholder.
  expect(bundle).not.toMatch(/https:\/\/[\w.-]*\.example[/"'`]/);
  const app = require(outfile).default;
  const help = app.authentication.fields.map((f: { helpText?: string }) => f.helpText ?? '').join('\n');
  // The origin only: the spec names the pages (Profile, then API) but no paths, so none is guessed.
  expect(help).toContain(`(${APP_ORIGIN})`);
  expect(help).toMatch(/under Profile, then API/);
  expect(help).not.toContain(`${APP_ORIGIN}/profile`);
});

it('a release build carries its https address and uses it when the app environment sets none', async () => {
  // https on a closed loopback port: the app must try this address (and fail to connect), not refuse
  // for want of one.
  const url = 'https://127.0.0.1:9/api';
  const result = releaseBuild(url);
  expect(result.status).toBe(0);
  const built = path.join(outDir, 'index.js');
  expect(readFileSync(built, 'utf8')).toContain(JSON.stringify(url));
  const before = process.env.EVF_BASE_URL;
  delete process.env.EVF_BASE_URL;
  try {
    const app = require(built).default;
    const tester = createAppTester(app);
    const error = await tester(app.authentication.test, {
      authData: { api_key: 'evf_release_test_key_1' },
    }).then(
      () => undefined,
      (e: unknown) => parseZapierError(e),
    );
    expect(error?.message).toMatch(/reach|connect/i);
    expect(error?.message).not.toMatch(/No address/);
  } finally {
    if (before !== undefined) process.env.EVF_BASE_URL = before;
  }
}, 30_000);

it('zapier-platform validate passes on the release build (production https address set), not only on the development build', async () => {
  const dir = mkdtempSync(path.join(outDir, 'validate-'));
  const result = releaseBuild('https://api.evf-production.test/api', path.join(dir, 'index.js'));
  expect(result.status).toBe(0);
  // An app folder as push uploads it: the package manifest beside the release bundle.
  copyFileSync(path.join(root, 'package.json'), path.join(dir, 'package.json'));
  const { runZapierCli } = require('../scripts/zapier-cli.cjs');
  const validated = await runZapierCli(['validate', '--without-style', '--skip-build'], { cwd: dir });
  expect(validated.stdout).toMatch(/structurally sound/);
  expect(validated.status).toBe(0);
}, 180_000);
