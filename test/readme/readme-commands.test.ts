/**
 * The rules commands.e2e.test.ts runs READMEs by, and every README held to its markers: a command a
 * reader cannot run as written says what it needs and where it stops; a server says it keeps running
 * and the runner knows its ready line.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { markdownFiles, ROOT } from '../support/markdown-files';
import {
  behaviourOf,
  commandsOf,
  markerProblem,
  placeholderSettings,
  readyLineOf,
  withoutNpmCi,
} from './readme-commands';

const sample = [
  'Text.',
  '',
  '```sh',
  'npm ci',
  'npm start   # keeps running: the sandbox',
  'node -e "console.log(\'a # not a comment\')"',
  '# valid',
  'A="https://<host>/api" npm run x -w y \\',
  '  --flag   # needs an account: stops at the login prompt',
  '```',
  '',
  '```ts',
  'const notShell = 1; # not read',
  '```',
  '',
  '   ```bash',
  '   cd packages/zapier',
  '   ```',
].join('\n');

describe('reading a README', () => {
  const commands = commandsOf('X.md', sample);

  it('takes the commands of shell blocks, joins continued lines, leaves comments and other blocks', () => {
    expect(commands.map(({ text, line, block }) => ({ text, line, block }))).toEqual([
      { text: 'npm ci', line: 4, block: 1 },
      { text: 'npm start', line: 5, block: 1 },
      { text: 'node -e "console.log(\'a # not a comment\')"', line: 6, block: 1 },
      { text: 'A="https://<host>/api" npm run x -w y --flag', line: 8, block: 1 },
      { text: 'cd packages/zapier', line: 17, block: 3 },
    ]);
  });

  it('reads how each behaves from its trailing comment', () => {
    expect(commands.map(behaviourOf)).toEqual([
      { kind: 'runs' },
      { kind: 'keeps-running' },
      { kind: 'runs' },
      { kind: 'needs', what: 'an account', stops: 'stops at the login prompt' },
      { kind: 'runs' },
    ]);
  });

  it('finds the settings a reader fills in, and the command without them', () => {
    expect(placeholderSettings('A="https://<host>/api" B=1 C=\'<c>\' npm run x')).toEqual({
      names: ['A', 'C'],
      without: 'B=1 npm run x',
    });
    expect(placeholderSettings('npm run x')).toEqual({ names: [], without: 'npm run x' });
  });

  it('refuses a placeholder with no word on what it needs, or a need with no stopping point', () => {
    const [bare] = commandsOf('Y.md', '```sh\nprintf "key=<the key>" > .env\n```');
    expect(markerProblem(bare!)).toMatch(/holds a placeholder/);
    const [vague] = commandsOf('Y.md', '```sh\nnpm run push   # needs an account: no\n```');
    expect(markerProblem(vague!)).toMatch(/not where it stops/);
    expect(markerProblem(commands[3]!)).toBeNull();
  });

  it('treats npm ci as done, alone or first', () => {
    expect(withoutNpmCi('npm ci')).toBe('');
    expect(withoutNpmCi('npm ci && npm run demo')).toBe('npm run demo');
    expect(withoutNpmCi('npm run demo')).toBe('npm run demo');
  });
});

const readmes = markdownFiles().filter((file) => basename(file) === 'README.md');

describe.each(readmes)('%s', (file) => {
  const commands = commandsOf(file, readFileSync(join(ROOT, file), 'utf8'));

  it('marks every command a reader cannot run as written', () => {
    expect(commands.map(markerProblem).filter(Boolean)).toEqual([]);
  });

  it('has a ready line for every command that keeps running', () => {
    const unknown = commands
      .filter((c) => behaviourOf(c).kind === 'keeps-running' && !readyLineOf(c.text))
      .map((c) => `${file}:${c.line} ${c.text}`);
    expect(unknown).toEqual([]);
  });
});
