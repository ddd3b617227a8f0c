/**
 * The deploy as the README writes it, run as a process in a checkout laid out as `npm ci` leaves a
 * fresh clone: workspace links in node_modules, and no client build (`packages/client/dist` absent),
 * so the command must run the client from its source. Each setting a run needs is either in the
 * command or refused with words that name it. Nothing here reaches Make: the runs are dry, or refused
 * before any request.
 */
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
/** Spawning npm and tsx on two shared cores takes seconds, never this long. */
const PROCESS_LIMIT_MS = 120_000;

let checkout: string;

/** The checkout: the root's package files, every workspace's package.json, the client and this app. */
function layOut(): string {
  const dir = mkdtempSync(join(tmpdir(), 'evf-make-deploy-'));
  const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  for (const f of ['package.json', 'tsconfig.json']) cpSync(join(ROOT, f), join(dir, f));
  for (const ws of rootPkg.workspaces) {
    mkdirSync(join(dir, ws), { recursive: true });
    cpSync(join(ROOT, ws, 'package.json'), join(dir, ws, 'package.json'));
  }
  const skip = (src: string) => {
    const rel = relative(ROOT, src).split('\\').join('/');
    return !/(^|\/)(node_modules|dist)(\/|$)/.test(rel) && !rel.startsWith('packages/make/examples/ready');
  };
  for (const pkg of ['packages/client', 'packages/make'])
    cpSync(join(ROOT, pkg), join(dir, pkg), { recursive: true, filter: skip });
  // node_modules as npm ci links it: every installed package, and the workspaces linked to this
  // checkout's own folders (so @evf/client is the copy above, without dist/).
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '@evf'), { recursive: true });
  for (const name of readdirSync(join(ROOT, 'node_modules')))
    if (name !== '@evf') symlinkSync(join(ROOT, 'node_modules', name), join(modules, name));
  symlinkSync('../../packages/client', join(modules, '@evf', 'client'));
  symlinkSync('../../packages/make', join(modules, '@evf', 'make'));
  return dir;
}

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

/** `npm run deploy -w @evf/make [-- args]` in the checkout, with only the given Make settings. */
function npmDeploy(args: string[], settings: Record<string, string>): Promise<Ran> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env))
    if (k.startsWith('MAKE_') || k.startsWith('EVF_') || k === 'NODE_OPTIONS') delete env[k];
  return new Promise((resolve, reject) => {
    const child = spawn(
      'npm',
      ['run', 'deploy', '-w', '@evf/make', ...(args.length ? ['--', ...args] : [])],
      {
        cwd: checkout,
        env: { ...env, ...settings },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

beforeAll(() => {
  checkout = layOut();
});
afterAll(() => {
  if (checkout) rmSync(checkout, { recursive: true, force: true });
});

describe('npm run deploy -w @evf/make, as a process, in a checkout without a client build', () => {
  it('has no client dist/ to lean on', () => {
    expect(existsSync(join(checkout, 'packages', 'client', 'dist'))).toBe(false);
    expect(existsSync(join(checkout, 'packages', 'client', 'src', 'index.ts'))).toBe(true);
  });

  it(
    "the README's dry run prints every call with the service address in the base and the connection",
    async () => {
      const r = await npmDeploy(['--dry-run'], { EVF_BASE_URL: 'https://api.service.example/api' });
      expect(r.err).not.toMatch(/Cannot find module|ERR_MODULE_NOT_FOUND/);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(
        /Dry run: nothing is sent\. Deploying app "[^"]+" version 1 would make these \d+ calls/,
      );
      expect(r.out).toMatch(
        /PUT +https:\/\/<MAKE_ZONE>\/api\/v2\/sdk\/apps\/[^/]+\/1\/base .*with baseUrl https:\/\/api\.service\.example\/api/,
      );
      expect(r.out).toMatch(
        /connections\/<connection>\/api .*with its test call to https:\/\/api\.service\.example\/api/,
      );
    },
    PROCESS_LIMIT_MS,
  );

  it(
    'a dry run without EVF_BASE_URL still shows the plan, and names the setting a real run needs',
    async () => {
      const r = await npmDeploy(['--dry-run'], {});
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/EVF_BASE_URL is not set: a real run refuses without it/);
    },
    PROCESS_LIMIT_MS,
  );

  it(
    'a real run refuses, naming each missing setting, before any request',
    async () => {
      const noAddress = await npmDeploy([], { MAKE_API_TOKEN: 'unused-token', MAKE_ZONE: 'eu1.make.com' });
      expect(noAddress.code).not.toBe(0);
      expect(noAddress.err).toMatch(/Set EVF_BASE_URL to the service's API address/);
      const noToken = await npmDeploy([], { EVF_BASE_URL: 'https://api.service.example/api' });
      expect(noToken.code).not.toBe(0);
      expect(noToken.err).toMatch(/MAKE_API_TOKEN and MAKE_ZONE are not set\. Nothing was sent/);
      expect(`${noAddress.out}${noAddress.err}`).not.toContain('unused-token');
    },
    PROCESS_LIMIT_MS,
  );
});
