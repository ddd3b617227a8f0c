/**
 * Zapier's own build, as `zapier-platform push` runs it before uploading: the package's tracked files
 * (what a clean clone has: no dist/, no .zapierapprc link) copied into an empty folder, then the pinned
 * CLI's `zapier-platform build`, which runs the `_zapier-build` release bundle, copies the folder away,
 * installs its dependencies from the npm registry, writes definition.json and zapierwrapper.js, zips
 * what the entry points need and runs its own check of the zip. `--skip-validation` leaves out the one
 * step that calls Zapier's servers (the style check, POST /api/platform/cli/check in the CLI's
 * utils/api.js validateApp); `validate --without-style` then runs the local half of that check.
 *
 * The zip is then unpacked into an empty folder and its authentication test, a create and a search run
 * from it through its own zapierwrapper.js, on Node 22: the runtime Zapier uses for zapier-platform-core
 * 19 (the CLI's version-store.js maps core 19.x to Node 22; Zapier's v18.0.0 news: "runs on Node.js 22").
 * The release carries an https address, so the sandbox is reached through a TLS proxy on loopback with a
 * certificate made for the run (openssl) that only the Node 22 process trusts.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:https';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { describeWhenPresent } from '../../../test/support/optional-suite';

const { runZapierCli, NODE_PACKAGE } = require('../scripts/zapier-cli.cjs') as {
  runZapierCli(
    args: string[],
    options?: { cwd?: string; env?: Record<string, string> },
  ): Promise<{ status: number; stdout: string; stderr: string }>;
  NODE_PACKAGE: string;
};
const { zipEntries, sourceZipProblems } = require('../scripts/zip-entries.cjs') as {
  zipEntries(file: string): string[];
  sourceZipProblems(names: string[]): string[];
};

const appRoot = path.join(__dirname, '..');

// Debian programs this suite needs; a user's machine may lack them (one line says so), CI may not.
const missingPrograms = [
  ['openssl', ['version']],
  ['unzip', ['-v']],
]
  .filter(([cmd, args]) => spawnSync(cmd as string, args as string[]).status !== 0)
  .map(([cmd]) => cmd as string);
const missing = missingPrograms.length
  ? `Zapier build e2e: ${missingPrograms.join(' and ')} not found (Debian: ${missingPrograms.join(' ')})`
  : undefined;

/** The package's files as git tracks them, tests left out: what a fresh clone gives the CLI. */
function trackedAppFiles(): string[] {
  const listed = spawnSync('git', ['ls-files', '-z', '--', '.'], { cwd: appRoot, encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  return listed.stdout
    .split('\0')
    .filter((f) => f && !f.startsWith('test/'))
    .filter((f) => existsSync(path.join(appRoot, f)));
}

describeWhenPresent(
  "zapier-platform build from a clean copy, and the built zip run on Zapier's Node",
  missing,
  () => {
    let sb: Sandbox;
    let proxy: Server;
    let work: string;
    let appDir: string;
    let unpacked: string;
    let certFile: string;
    let build: { status: number; stdout: string; stderr: string };

    beforeAll(async () => {
      sb = await startSandbox({ port: 0, host: '127.0.0.1', timeScale: 0.01 });
      work = mkdtempSync(path.join(tmpdir(), 'evf-zapier-build-'));

      certFile = path.join(work, 'cert.pem');
      const keyFile = path.join(work, 'key.pem');
      const made = spawnSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
          '-keyout',
          keyFile,
          '-out',
          certFile,
        ],
        { encoding: 'utf8' },
      );
      if (made.status !== 0) throw new Error(`openssl: ${made.stderr}`);
      const upstream = new URL(sb.baseUrl);
      proxy = createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (req, res) => {
        const forward = request(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: req.headers,
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        forward.on('error', () => res.destroy());
        req.pipe(forward);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const releaseUrl = `https://127.0.0.1:${(proxy.address() as AddressInfo).port}${upstream.pathname}`;

      // Inside the package's ignored build/ folder, so the release bundle resolves the workspace's esbuild
      // and client sources as it does in a clone; nothing else of the package is touched.
      mkdirSync(path.join(appRoot, 'build'), { recursive: true });
      appDir = mkdtempSync(path.join(appRoot, 'build', 'clean-'));
      for (const file of trackedAppFiles()) {
        mkdirSync(path.dirname(path.join(appDir, file)), { recursive: true });
        copyFileSync(path.join(appRoot, file), path.join(appDir, file));
      }
      build = await runZapierCli(['build', '--skip-validation'], {
        cwd: appDir,
        env: { EVF_BASE_URL: releaseUrl, EVF_APP_ORIGIN: 'https://app.evf-production.com' },
      });
      if (build.status !== 0)
        throw new Error(`zapier-platform build failed (${build.status}):\n${build.stdout}${build.stderr}`);
      unpacked = mkdtempSync(path.join(tmpdir(), 'evf-zapier-zip-'));
      const unzipped = spawnSync('unzip', ['-q', path.join(appDir, 'build', 'build.zip'), '-d', unpacked], {
        encoding: 'utf8',
      });
      if (unzipped.status !== 0) throw new Error(`unzip: ${unzipped.stderr}`);
    }, 300_000);

    afterAll(async () => {
      await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
      await sb?.close();
      for (const dir of [appDir, unpacked, work]) if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it("builds, and the CLI's own check of the zip (each entry point loaded from the unpacked zip) passes", () => {
      expect(build.stdout + build.stderr).not.toMatch(/missing file|Error/);
      expect(build.stdout).toMatch(/Build complete/);
      expect(build.status).toBe(0);
    });

    it('the zip is the app alone: entry points, the bundle, its core, and no workspace package', () => {
      const names = spawnSync('unzip', ['-Z1', path.join(appDir, 'build', 'build.zip')], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean);
      for (const name of ['zapierwrapper.js', 'index.js', 'dist/index.js', 'definition.json', 'package.json'])
        expect(names).toContain(name);
      expect(names).toContain('node_modules/zapier-platform-core/package.json');
      expect(names.filter((n) => /^packages\/|@evf\/|\.ts$/.test(n))).toEqual([]);
      const manifest = JSON.parse(readFileSync(path.join(unpacked, 'package.json'), 'utf8'));
      expect(Object.keys(manifest.devDependencies ?? {}).filter((d) => d.startsWith('@evf/'))).toEqual([]);
    });

    it("source.zip holds the app's sources, never its dependencies or tests (the release check's rule)", () => {
      const names = zipEntries(path.join(appDir, 'build', 'source.zip'));
      expect(names).toContain('src/index.ts');
      expect(sourceZipProblems(names)).toEqual([]);
      // git still sees the tests: the ignore line the CLI reads for them is not one git applies.
      const tracked = spawnSync('git', ['check-ignore', '--no-index', '-q', 'test/new-file.test.ts'], {
        cwd: appRoot,
      });
      expect(tracked.status).toBe(1);
    });

    it('leaves no generated file in the app folder (definition.json, zapierwrapper.js), and git ignores every output', () => {
      expect(existsSync(path.join(appDir, 'definition.json'))).toBe(false);
      expect(existsSync(path.join(appDir, 'zapierwrapper.js'))).toBe(false);
      const outputs = [
        'build/build.zip',
        'build/source.zip',
        'dist/index.js',
        'definition.json',
        'zapierwrapper.js',
      ];
      const ignored = spawnSync('git', ['check-ignore', '--no-index', ...outputs], {
        cwd: appRoot,
        encoding: 'utf8',
      });
      expect(ignored.stdout.split('\n').filter(Boolean).sort()).toEqual([...outputs].sort());
    });

    it('zapier-platform validate (the local half of the style check) passes on what was built', async () => {
      const validated = await runZapierCli(['validate', '--without-style', '--skip-build'], { cwd: appDir });
      expect(validated.stdout).toMatch(/structurally sound/);
      expect(validated.status).toBe(0);
    }, 120_000);

    // Submit Bulk is left out: it keeps its list memory in z.cache, which outside Zapier needs Zapier's
    // RPC (ZAPIER_DEPLOY_KEY), so it cannot run from a zip here; its job is made over the API instead.
    it('runs the authentication test, Verify Email Address and Find Bulk Job from the unpacked zip on Node 22', async () => {
      const made = await fetch(`${sb.baseUrl}/v1/verify/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': sb.apiKey },
        body: JSON.stringify({ emails: ['grace@gmail.com', 'alan@yahoo.com'], name: 'zip e2e' }),
      });
      expect(made.status).toBe(202);
      const jobId = ((await made.json()) as { job_id: string }).job_id;
      const stepsFile = path.join(work, 'steps.json');
      const resultsFile = path.join(work, 'results.json');
      writeFileSync(
        stepsFile,
        JSON.stringify([
          { name: 'auth', method: 'authentication.test' },
          {
            name: 'verify_email',
            method: 'creates.verify_email.operation.perform',
            inputData: { email: 'ada@gmail.com' },
          },
          {
            name: 'find_job',
            method: 'searches.find_job.operation.perform',
            inputData: { job_id: jobId },
          },
        ]),
      );
      // Only this process trusts the run's certificate; the zip is loaded by path, from outside the repo.
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        NODE_EXTRA_CA_CERTS: certFile,
        EVF_E2E_API_KEY: sb.apiKey,
      };
      delete env.EVF_BASE_URL;
      delete env.NODE_OPTIONS;
      const child = spawn(
        'npx',
        [
          '--yes',
          '--package',
          NODE_PACKAGE,
          '--',
          'node',
          path.join(__dirname, 'support', 'run-built-app.cjs'),
          unpacked,
          stepsFile,
          resultsFile,
        ],
        { cwd: unpacked, env, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
      if (status !== 0) throw new Error(`the runner failed (${status}): ${stderr.slice(-2000)}`);

      const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
      expect(results.node).toMatch(/^v22\./);
      const byName = Object.fromEntries(results.steps.map((s: { name: string }) => [s.name, s]));
      for (const name of ['auth', 'verify_email', 'find_job'])
        expect([name, byName[name].error]).toEqual([name, undefined]);
      expect(byName.auth.results.plan).toBeTruthy();
      expect(byName.verify_email.results.email).toBe('ada@gmail.com');
      expect(byName.verify_email.results.group).toMatch(/^(safe_to_send|risky|invalid)$/);
      expect(byName.find_job.results).toHaveLength(1);
      expect(byName.find_job.results[0].id ?? byName.find_job.results[0].job_id).toBe(jobId);
    }, 120_000);
  },
);

describe('every Zapier CLI command the README\'s "Push it to Zapier" names exists in the pinned CLI', () => {
  const readme = readFileSync(path.join(appRoot, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Push it to Zapier'),
    readme.indexOf('\n## ', readme.indexOf('## Push it to Zapier') + 5),
  );
  const commands = [
    ...new Set([...section.matchAll(/npm run zapier -w @evf\/zapier -- ([\w:-]+)/g)].map((m) => m[1])),
  ];
  const scripts = [...new Set([...section.matchAll(/npm run ([\w:-]+) -w @evf\/zapier/g)].map((m) => m[1]))];

  it('names the whole sequence: login, register, push, env, invite users, promote', () => {
    expect(commands).toEqual(
      expect.arrayContaining(['login', 'push', 'env:set', 'users:add', 'users:links', 'promote']),
    );
    expect(scripts).toEqual(expect.arrayContaining(['zapier', 'register', 'release:check']));
  });

  it('each npm script it runs is in the package', () => {
    const manifest = JSON.parse(readFileSync(path.join(appRoot, 'package.json'), 'utf8'));
    expect(scripts.filter((s) => !manifest.scripts?.[s])).toEqual([]);
  });

  it('each zapier-platform command it names answers --help in the pinned CLI', async () => {
    // Side by side: each is a separate CLI start (about 7 s), and none needs the network.
    const results = await Promise.all(commands.map((command) => runZapierCli([command!, '--help'])));
    const failed = commands.filter((_, i) => results[i]!.status !== 0 || !/USAGE/.test(results[i]!.stdout));
    expect(failed).toEqual([]);
  }, 120_000);
});
