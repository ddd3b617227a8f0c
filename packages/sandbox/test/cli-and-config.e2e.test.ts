import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox } from '@evf/sandbox';

const ROOT = resolve(__dirname, '../../..');

describe('config file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-config-'));

  test('seeds accounts and options from JSON; explicit options win', async () => {
    const file = join(dir, 'ok.json');
    writeFileSync(
      file,
      JSON.stringify({
        timeScale: 0.5,
        accounts: [
          {
            id: 'acct_file',
            plan: 'growth',
            credits: 42,
            keys: [{ id: 'key_file', key: 'evf_from_config_file_1' }],
          },
        ],
      }),
    );
    const sb = await startSandbox({ configFile: file, timeScale: 0.01 });
    try {
      expect(sb.accountId).toBe('acct_file');
      expect(sb.keyId).toBe('key_file');
      const res = await fetch(`${sb.baseUrl}/v1/account/credits`, {
        headers: { 'X-API-Key': 'evf_from_config_file_1' },
      });
      expect(((await res.json()) as { credits: number }).credits).toBe(42);
      const state = (await (await fetch(`${sb.origin}/__sandbox/state`)).json()) as { time_scale: number };
      expect(state.time_scale).toBe(0.01);
    } finally {
      await sb.close();
    }
  });

  test('unknown keys and bad JSON are refused with a message naming the file and the problem', async () => {
    const typo = join(dir, 'typo.json');
    writeFileSync(typo, JSON.stringify({ timescale: 1 }));
    await expect(startSandbox({ configFile: typo })).rejects.toThrow(/unknown option "timescale"/);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{ nope');
    await expect(startSandbox({ configFile: bad })).rejects.toThrow(/could not be read as JSON/);
  });
});

describe('npm start (cli.ts)', () => {
  test('listens on PORT, prints base URL, demo credentials marked as public, and platform hints; serves the API', async () => {
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
        '--conditions=source',
        join(ROOT, 'packages/sandbox/src/cli.ts'),
      ],
      {
        env: { ...process.env, PORT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let out = '';
      await new Promise<void>((resolveReady, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner; got: ${out}`)), 20_000);
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('Ctrl+C')) {
            clearTimeout(timer);
            resolveReady();
          }
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
      });
      const baseUrl = /Base URL\s+(http:\/\/127\.0\.0\.1:\d+\/api)/.exec(out)![1]!;
      const key = /API key\s+(evf_\S+)/.exec(out)![1]!;
      expect(out).toMatch(/Webhook secret\s+whsec_\S+/);
      expect(out).toMatch(/public demo credentials/);
      for (const platform of ['Zapier', 'n8n', 'Make']) expect(out).toContain(platform);
      const res = await fetch(`${baseUrl}/v1/verify/single`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'valid@example.com', check_smtp: false }),
      });
      expect(res.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  }, 30_000);
});
