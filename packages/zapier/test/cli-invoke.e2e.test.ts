/**
 * The app run by Zapier's own CLI, `zapier-platform invoke`, the way a developer debugging it would: the
 * connection in a `.env` beside the app (authData_<field> and EVF_BASE_URL, which the CLI loads), the auth
 * test, each trigger, search and create, against a sandbox on loopback. The CLI needs Node 22: it runs on
 * the pinned Node 22 binary of scripts/zapier-cli.cjs, like `validate`. The app folder is a fresh
 * development build in build/ (ignored by git); the `.env` holding the key is deleted afterwards.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { eventually } from '../../../test/support/sandbox';

const { runZapierCli } = require('../scripts/zapier-cli.cjs') as {
  runZapierCli(
    args: string[],
    options?: { cwd?: string; env?: Record<string, string> },
  ): Promise<{ status: number; stdout: string; stderr: string }>;
};

const root = path.join(__dirname, '..');
mkdirSync(path.join(root, 'build'), { recursive: true });
const appDir = mkdtempSync(path.join(root, 'build', 'invoke-'));
let sb: Sandbox;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.01, allowInsecureWebhooks: true });
  const built = spawnSync(
    process.execPath,
    ['scripts/bundle.cjs', `--outfile=${path.join(appDir, 'index.js')}`],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  if (built.status !== 0) throw new Error(`bundle failed: ${built.stderr}`);
  copyFileSync(path.join(root, 'package.json'), path.join(appDir, 'package.json'));
  writeFileSync(
    path.join(appDir, '.env'),
    [
      `EVF_BASE_URL=${sb.baseUrl}`,
      `authData_api_key=${sb.apiKey}`,
      `authData_webhook_secret=${sb.webhookSecret}`,
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  rmSync(appDir, { recursive: true, force: true });
  await sb?.close();
});

/** `zapier-platform invoke <type> <key>` without prompts; the output's JSON is what the step returned. */
async function invoke(type: string, key: string, inputData?: Record<string, unknown>): Promise<any> {
  const args = ['invoke', type, key, '--non-interactive'];
  if (inputData) args.push('--inputData', JSON.stringify(inputData));
  // The CLI's own environment must not point the app elsewhere: the .env decides.
  const result = await runZapierCli(args, { cwd: appDir, env: { EVF_BASE_URL: '' } });
  if (result.status !== 0)
    throw new Error(`invoke ${type} ${key} failed (${result.status}): ${result.stderr}${result.stdout}`);
  const start = result.stdout.search(/^[[{]/m);
  expect(start).toBeGreaterThanOrEqual(0);
  expect(result.stdout + result.stderr).not.toContain(sb.apiKey);
  return JSON.parse(result.stdout.slice(start));
}

it('runs the auth test, every trigger, search and create through zapier-platform invoke against the sandbox', async () => {
  const account = await invoke('auth', 'test');
  expect(account).toMatchObject({ plan: expect.any(String) });

  const verified = await invoke('create', 'verify_email', { email: 'valid.cli@acme-corp.com' });
  expect(verified).toMatchObject({ email: 'valid.cli@acme-corp.com', category: 'Valid' });
  // A typo in a per-row Zap is a free Invalid verdict, not a failed step.
  const typo = await invoke('create', 'verify_email', { email: 'ada@@acme' });
  expect(typo).toMatchObject({ email: 'ada@@acme', group: 'invalid', credits_used: 0 });

  const submitted = await invoke('create', 'submit_bulk', {
    emails: ['valid.cli1@acme-corp.com', 'invalid.cli2@acme-corp.com'],
  });
  expect(submitted).toMatchObject({ job_count: 1, all_sent: true, unsent: [] });
  const jobId = submitted.job_id as string;

  const credits = await invoke('create', 'get_credit_balance', {});
  expect(credits.credits).toBe(sb.ledger(sb.apiKey).credits);

  const revoked = await invoke('create', 'revoke_api_key', { key_id: 'key_does_not_exist' });
  expect(revoked).toMatchObject({ result: 'not_found' });

  await eventually(() => sb.job(jobId)?.terminal, 20_000);
  const [job] = await invoke('search', 'find_job', { job_id: jobId });
  expect(job).toMatchObject({ job_id: jobId, terminal: true });
  const [results] = await invoke('search', 'find_job_results', { job_id: jobId, start_row: 1 });
  expect(results).toMatchObject({ returned_rows: 2, truncated: false, next_start_row: null });

  const finished = await invoke('trigger', 'job_finished');
  expect(finished.map((j: { id: string }) => j.id)).toContain(jobId);
  const recent = await invoke('trigger', 'recent_jobs');
  expect(recent[0]).toMatchObject({ id: jobId });
}, 300_000);
