/**
 * The files of a clone, found by a walk (a unit test starts no `git ls-files`): every file under the
 * root but `.git` and what the repository's .gitignore files keep out. Paths are relative to the root,
 * with forward slashes, sorted.
 *
 * The .gitignore patterns this repository writes are read as git reads them: `name/` a folder of
 * that name at any depth, `*.ext` and `name` a file or folder at any depth, a pattern holding a `/`
 * anchored at its .gitignore's folder. Anything else (`!`, `**`, a character class) throws, so a new
 * kind of pattern is taught here rather than silently missed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

interface Ignore {
  /** The folder of the .gitignore, '' for the root. */
  base: string;
  pattern: RegExp;
  anchored: boolean;
  dirOnly: boolean;
}

const glob = (text: string): RegExp =>
  new RegExp(
    `^${text
      .replace(/[.+^${}()|\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]')}$`,
  );

/** The rules of one .gitignore's text, for a file in `base`. */
export function gitignoreRules(text: string, base: string): Ignore[] {
  return (
    text
      .split('\n')
      // As git reads them: trailing spaces dropped, a leading space part of the name (the Zapier app's
      // " test/" line is for Zapier's CLI, which trims it; git, and so this walk, keeps its tests).
      .map((line) => line.trimEnd())
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => {
        if (/^!|\*\*|\[/.test(line))
          throw new Error(`${base}/.gitignore: "${line}" is not read by repo-files.ts`);
        const dirOnly = line.endsWith('/');
        const body = line.replace(/^\/|\/$/g, '');
        return { base, pattern: glob(body), anchored: body.includes('/') || line.startsWith('/'), dirOnly };
      })
  );
}

/** Whether `path` (from the root), a folder when `isDir`, is ignored by any of `rules`. */
export function ignored(path: string, isDir: boolean, rules: Ignore[]): boolean {
  return rules.some(({ base, pattern, anchored, dirOnly }) => {
    if (dirOnly && !isDir) return false;
    if (base && !path.startsWith(`${base}/`)) return false;
    const inBase = base ? path.slice(base.length + 1) : path;
    return pattern.test(anchored ? inBase : inBase.slice(inBase.lastIndexOf('/') + 1));
  });
}

function walk(dir: string, inherited: Ignore[]): string[] {
  const gitignore = join(ROOT, dir, '.gitignore');
  const rules = existsSync(gitignore)
    ? [...inherited, ...gitignoreRules(readFileSync(gitignore, 'utf8'), dir)]
    : inherited;
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.name === '.git' || ignored(path, entry.isDirectory(), rules)) return [];
    if (entry.isDirectory()) return walk(path, rules);
    return entry.isFile() ? [path] : [];
  });
}

export const repoFiles = (): string[] => walk('', []).sort();

export const CLIENT_SRC = 'packages/client/src';

/**
 * The client's top-level modules and folders as the disk has them (`bulk.ts`, `core/`), declarations
 * aside: what the root README's map and rule table name.
 */
export const clientModules = (): string[] =>
  readdirSync(join(ROOT, CLIENT_SRC), { withFileTypes: true })
    .filter((e) => e.isDirectory() || (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
