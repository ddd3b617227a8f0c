/**
 * A reader follows links from a README. In a user's clone only the repository's own files exist, so a
 * relative link must name a file or folder that is tracked here (two READMEs once linked to a spec file
 * that lives outside the repository).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = join(__dirname, '..', '..');
// What .gitignore keeps out of a clone (a walk, not `git ls-files`: a unit test starts no process).
const UNTRACKED = new Set(['.git', 'node_modules', 'dist', 'coverage', '.n8n-cache', 'bench/results']);

function markdownUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory())
      return UNTRACKED.has(entry.name) || UNTRACKED.has(path) ? [] : markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}
const markdownFiles = markdownUnder('').sort();

/** Relative targets of `[text](target)` links, without anchors; external and in-page links skipped. */
function relativeLinks(text: string): string[] {
  const targets: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    targets.push(decodeURI(target.split('#')[0]!));
  }
  return targets;
}

describe('README links', () => {
  test('there are markdown files to check', () => {
    expect(markdownFiles.length).toBeGreaterThan(5);
  });

  test.each(markdownFiles)('%s links only to files in the repository', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const broken = relativeLinks(text).filter((target) => {
      const resolved = join(root, dirname(file), target);
      return relative(root, resolved).startsWith('..') || !existsSync(resolved);
    });
    expect(broken).toEqual([]);
  });

  test.each(markdownFiles)('%s does not send the reader to the spec file outside the repository', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    expect(text).not.toMatch(/spec\/email-verification-api\.md/);
  });
});
