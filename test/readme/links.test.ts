/**
 * A reader follows links from a README. In a user's clone only the repository's own files exist, so a
 * relative link must name a file or folder that is tracked here (two READMEs once linked to a spec file
 * that lives outside the repository).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { markdownFiles as allMarkdown, ROOT as root } from '../support/markdown-files';

const markdownFiles = allMarkdown();

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
