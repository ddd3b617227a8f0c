/**
 * The repository's markdown files, found by a walk (a unit test starts no `git ls-files`), leaving out
 * what .gitignore keeps out of a clone. Paths are relative to the root, with forward slashes.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');
const UNTRACKED = new Set(['.git', 'node_modules', 'dist', 'coverage', '.n8n-cache', 'bench/results']);

function markdownUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory())
      return UNTRACKED.has(entry.name) || UNTRACKED.has(path) ? [] : markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

export const markdownFiles = (): string[] => markdownUnder('').sort();
