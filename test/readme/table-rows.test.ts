/**
 * A table row a person can read: no markdown table row over 300 characters, counted as a reader sees
 * it (runs of spaces and of a separator's dashes count once, so Prettier's column padding does not).
 * Long rules and lists belong in prose or a list under the table.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownFiles, ROOT } from '../support/markdown-files';

const MAX_ROW = 300;

/** `file:line (length)` of each row over the limit. */
function longRows(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => {
    if (!line.startsWith('|')) return [];
    const length = line.replace(/\s+/g, ' ').replace(/-{3,}/g, '---').length;
    return length > MAX_ROW ? [`${file}:${i + 1} (${length})`] : [];
  });
}

const rowsOf = (file: string) => longRows(file, readFileSync(join(ROOT, file), 'utf8'));

test('no markdown table row is over 300 characters', () => {
  const files = markdownFiles();
  expect(files.length).toBeGreaterThan(5);
  expect(files.flatMap(rowsOf)).toEqual([]);
});

test('a long row is caught; padding is not counted', () => {
  expect(longRows('x.md', `| a | ${'word '.repeat(70)}|\n`)).toEqual(['x.md:1 (357)']);
  expect(longRows('x.md', `| a${' '.repeat(400)}| b |\n|${'-'.repeat(400)}|---|\n`)).toEqual([]);
});
