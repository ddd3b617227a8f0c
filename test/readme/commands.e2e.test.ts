/**
 * The README's commands, run the way a user runs them right after `npm ci`: `npm start`
 * serves the sandbox and `npm run demo` finishes by itself. Neither may need a build step or anything
 * outside the clone. (`npm run n8n` is proven by the n8n package's own checks, which install n8n;
 * `npm run bench` runs in its quick mode in `.ci/run`.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

function run(args: string[], env: Record<string, string> = {}): ChildProcess {
  // Its own process group, so a Ctrl+C can reach npm and everything it started, as in a terminal.
  return spawn('npm', args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

function collect(child: ChildProcess): { out: () => string } {
  let text = '';
  child.stdout!.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (text += c.toString()));
  return { out: () => text };
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** npm ends itself by re-raising the SIGINT it got; what matters is the sandbox it started. */
function stopped(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('README commands', () => {
  test('npm start serves the sandbox on the port asked for, answers the demo key, and stops on SIGINT', async () => {
    const child = run(['start', '--silent'], { PORT: '0' });
    const { out } = collect(child);
    const done = exited(child);
    const end = stopped(child);
    let baseUrl = '';
    try {
      baseUrl = await new Promise<string>((resolve, reject) => {
        const t = setInterval(() => {
          const m = /Base URL\s+(http:\/\/127\.0\.0\.1:\d+\/api)/.exec(out());
          if (m) {
            clearInterval(t);
            resolve(m[1]!);
          }
        }, 100);
        void done.then((code) => {
          clearInterval(t);
          reject(new Error(`npm start exited (${code}) before serving:\n${out()}`));
        });
      });
      const key = /API key\s+(\S+)/.exec(out())![1]!;
      const res = await fetch(`${baseUrl}/v1/account/credits`, { headers: { 'X-API-Key': key } });
      expect(res.status).toBe(200);
      expect(typeof ((await res.json()) as { credits: unknown }).credits).toBe('number');
    } finally {
      // Ctrl+C in a terminal signals the whole foreground group; the sandbox closes and exits 0.
      process.kill(-child.pid!, 'SIGINT');
    }
    expect([
      { code: 0, signal: null },
      { code: null, signal: 'SIGINT' },
    ]).toContainEqual(await end);
    // The sandbox itself is gone: its port no longer answers.
    await new Promise((r) => setTimeout(r, 500));
    await expect(fetch(`${baseUrl}/v1/account/credits`)).rejects.toThrow();
  }, 120_000);

  test('npm run demo walks the job end to end and finishes by itself', async () => {
    const child = run(['run', 'demo', '--silent']);
    const { out } = collect(child);
    const code = await exited(child);
    expect({ code, tail: out().slice(-2000) }).toEqual({
      code: 0,
      tail: expect.stringContaining('Demo finished.'),
    });
    // Every connector has its section, each says what it cost (or, for n8n when it is not installed,
    // why it was skipped: a section that fails fails the demo), and the output ends by saying where to go next.
    for (const section of ['=== The shared client ===', '=== Zapier app', '=== n8n node', '=== Make app'])
      expect(out()).toContain(section);
    expect(out()).toMatch(/=== Make app \(through the local model of Make/);
    const sections = out().split('\n=== ').slice(1);
    for (const text of sections) expect(text).toMatch(/Credits used by this section: \d+|Skipped: /);
    expect(out()).not.toMatch(/This section failed/);
    expect(out()).toMatch(/Demo finished\. Where to go next:\n- .+README\.md/);
  }, 600_000);
});
