import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Runs a bench script in a fresh Node process and parses the JSON line it prints. The client is loaded
 * from its built bundle (no `source` condition), as the platforms load it.
 */
export function runChild<T>(script: string, args: string[], opts: { exposeGc?: boolean } = {}): T {
  const flags = [
    ...(opts.exposeGc ? ['--expose-gc'] : []),
    '--import',
    'tsx',
    join(__dirname, '..', script),
    ...args,
  ];
  const out = execFileSync(process.execPath, flags, {
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
    cwd: join(__dirname, '../..'),
  });
  const line = out
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .pop();
  if (!line) throw new Error(`${script} printed no result`);
  return JSON.parse(line) as T;
}
