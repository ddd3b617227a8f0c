/**
 * The path from the README to a first verified address in a user's own account: the root README's
 * "Use it in your account" section gives each platform's steps and what the user needs first; each
 * connector's README opens with that path on its first screen (its install step and its first
 * verification), in words a no-code user knows; and every command those sections name exists (npm
 * scripts in the package named, Zapier CLI commands in the pinned CLI).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

/** One screen of a terminal or a browser window: what a reader sees before scrolling. */
const FIRST_SCREEN_LINES = 40;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));
}

/** The text of the section under `heading` (## level), up to the next heading of the same level. */
function section(markdown: string, heading: string): string {
  const start = markdown.search(new RegExp(`^## ${heading}$`, 'm'));
  if (start < 0) return '';
  const rest = markdown.slice(start + 3);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Jargon a no-code user does not know: platform internals, check codes, test tooling. */
const JARGON = /performResume|\bD0\d\d\b|\bIML\b|Forman|\bjest\b|\bnock\b|\bharness\b/;

const CONNECTORS = [
  {
    name: 'n8n',
    readme: 'packages/n8n/README.md',
    install: /npm pack|npm install|Community Nodes/,
    firstVerification: /\bVerify\b/,
  },
  {
    name: 'Zapier',
    readme: 'packages/zapier/README.md',
    install: /push|invit/i,
    firstVerification: /Verify Email Address/,
  },
  {
    name: 'Make',
    readme: 'packages/make/README.md',
    install: /npm run deploy|Deploy to Make/,
    firstVerification: /Verify an email address/,
  },
];

const rootReadme = read('README.md');
const useIt = section(rootReadme, 'Use it in your account');

describe('the root README\'s "Use it in your account"', () => {
  it('is there, near the top, and says what the user needs first', () => {
    expect(useIt).not.toBe('');
    expect(rootReadme.indexOf('## Use it in your account')).toBeLessThan(rootReadme.indexOf('## Every test'));
    expect(useIt).toMatch(/paid account/i);
    expect(useIt).toMatch(/API key/);
    expect(useIt).toMatch(/Profile, then API/);
    expect(useIt).toMatch(/ending in `\/api`/);
  });

  it.each(CONNECTORS)(
    'gives $name three to six steps and links to its README section',
    ({ name, readme }) => {
      const block = useIt.slice(useIt.indexOf(`**${name}**`)).split(/\n\*\*(?:n8n|Zapier|Make)\*\*/)[0]!;
      const steps = block.match(/^\d+\. /gm) ?? [];
      expect(steps.length).toBeGreaterThanOrEqual(3);
      expect(steps.length).toBeLessThanOrEqual(6);
      expect(block).toContain(`](${readme}#use-it-in-your-account)`);
    },
  );

  it('says plainly which n8n it works on (self-hosted) and why not n8n Cloud yet', () => {
    expect(useIt).toMatch(/self-hosted/);
    expect(useIt).toMatch(/n8n Cloud/);
  });

  it('uses no jargon', () => {
    expect(useIt.match(JARGON)).toBeNull();
  });
});

describe('the root README\'s "Try it here first"', () => {
  const tryIt = section(rootReadme, 'Try it here first');

  it('comes before the account paths', () => {
    expect(tryIt).not.toBe('');
    expect(rootReadme.indexOf('## Try it here first')).toBeLessThan(
      rootReadme.indexOf('## Use it in your account'),
    );
  });

  it.each([
    ['the demo', /^npm run demo$/m],
    ['n8n, with its one-time install', /^npm run n8n:install -w n8n-nodes-evf\b[\s\S]*^npm run n8n\b/m],
    ["Zapier's invoke on the built app", /^npm run build -w @evf\/zapier$[\s\S]*invoke create verify_email/m],
  ])('gives a local first success: %s', (_name, command) => {
    expect(tryIt).toMatch(command);
  });

  it('says how long each takes, as measured', () => {
    const times = tryIt.match(/about \d+ (s|seconds|minutes?)\b/g) ?? [];
    expect(times.length).toBeGreaterThanOrEqual(4);
  });
});

describe.each(CONNECTORS)("$name README's first screen", ({ readme, install, firstVerification }) => {
  const text = read(readme);
  const firstScreen = text.split('\n').slice(0, FIRST_SCREEN_LINES).join('\n');

  it('opens with the path to a first verified address: the install step and the first verification', () => {
    expect(firstScreen).toMatch(/^## Use it in your account$/m);
    expect(firstScreen).toMatch(install);
    expect(firstScreen).toMatch(firstVerification);
  });

  it('uses no jargon', () => {
    expect(firstScreen.match(JARGON)).toBeNull();
  });
});

/** Every link of a section into a README: the file exists and so does the heading it points at. */
function brokenLinks(text: string, from: string): string[] {
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target!)) continue;
    const [file, anchor] = target!.split('#');
    const resolved = file ? path.join(path.dirname(path.join(root, from)), file) : path.join(root, from);
    if (!existsSync(resolved)) broken.push(target!);
    else if (anchor && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(anchor))
      broken.push(target!);
  }
  return broken;
}

/** The package.json of a workspace named by `-w`, or of the root. */
function manifestOf(workspace: string | undefined): { scripts?: Record<string, string> } | undefined {
  const dirs: Record<string, string> = {
    '@evf/zapier': 'packages/zapier',
    'n8n-nodes-evf': 'packages/n8n',
    '@evf/make': 'packages/make',
    '@evf/client': 'packages/client',
    '@evf/sandbox': 'packages/sandbox',
  };
  const dir = workspace ? dirs[workspace] : '.';
  return dir ? JSON.parse(read(path.join(dir, 'package.json'))) : undefined;
}

/** What is wrong with each npm command in `text`: a script or workspace that does not exist, a CLI command the pinned CLI lacks. */
function missingCommands(text: string): string[] {
  const missing: string[] = [];
  for (const [command] of text.matchAll(/npm (?:run|pack|ci|install)\b[^`\n]*/g)) {
    for (const part of command.split('&&').map((p) => p.trim())) {
      const run = part.match(/^npm run ([\w:-]+)(?: -w ([@\w/-]+))?(?: -- ([\w:-]+))?/);
      if (run) {
        const [, script, workspace, sub] = run;
        if (!manifestOf(workspace)?.scripts?.[script!]) missing.push(part);
        if (workspace === '@evf/zapier' && script === 'zapier' && sub) {
          const file = path.join(
            root,
            'node_modules/zapier-platform-cli/src/oclif/commands',
            `${sub.replace(':', '/')}.js`,
          );
          if (!existsSync(file)) missing.push(part);
        }
        continue;
      }
      const pack = part.match(/^npm pack -w ([@\w/-]+)/);
      if (pack && !manifestOf(pack[1])) missing.push(part);
    }
  }
  return missing;
}

describe('every command and link the "Use it in your account" sections name exists', () => {
  const sections = [
    ['README.md', useIt],
    ...CONNECTORS.map(({ readme }) => [readme, section(read(readme), 'Use it in your account')] as const),
  ] as const;

  it.each(sections)('%s', (file, text) => {
    expect(text).not.toBe('');
    expect(missingCommands(text)).toEqual([]);
    expect(brokenLinks(text, file)).toEqual([]);
  });

  it('the command check finds a script that is not there', () => {
    expect(missingCommands('`npm run no-such-script -w @evf/zapier`')).toEqual([
      'npm run no-such-script -w @evf/zapier',
    ]);
    expect(missingCommands('`npm run zapier -w @evf/zapier -- no:such`')).toEqual([
      'npm run zapier -w @evf/zapier -- no:such',
    ]);
    expect(missingCommands('`npm run zapier -w @evf/zapier -- users:add a@b.co`')).toEqual([]);
  });
});
