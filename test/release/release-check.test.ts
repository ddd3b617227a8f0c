/**
 * `npm run release:check` (scripts/release-check.cjs) covers every shipped connector: each package
 * script it runs exists, and each shipped package has a changelog whose newest entry is the version
 * that would be released, with its versioning rule.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const { changelogProblems, newestChangelogVersion, SHIPPED } = require('../../scripts/release-check.cjs') as {
  changelogProblems(): string[];
  newestChangelogVersion(text: string): string | null;
  SHIPPED: { name: string; dir: string; version(): string }[];
};

const root = path.join(__dirname, '..', '..');
const manifest = (dir: string) => JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8'));

it('the root has release:check, and the scripts it runs exist in each package', () => {
  expect(manifest('.').scripts['release:check']).toBe('node scripts/release-check.cjs');
  expect(manifest('packages/zapier').scripts['release:check']).toBeTruthy();
  expect(manifest('packages/n8n').scripts['release:check']).toBeTruthy();
  expect(manifest('packages/make').scripts.deploy).toBeTruthy();
});

it('every shipped package (Zapier app, n8n package, Make app) has a CHANGELOG for its current version', () => {
  expect(SHIPPED.map((p) => p.dir)).toEqual(['packages/zapier', 'packages/n8n', 'packages/make']);
  expect(changelogProblems()).toEqual([]);
  for (const pkg of SHIPPED) expect(pkg.version()).toMatch(/^\d+(\.\d+\.\d+)?$/);
});

it('reads the newest entry of a changelog, and none from a changelog without entries', () => {
  expect(
    newestChangelogVersion('# C\n\n## How versions are numbered\n\n## 0.2.0 (2027-01-01)\n\n## 0.1.0\n'),
  ).toBe('0.2.0');
  expect(newestChangelogVersion('# C\n\n## 2 (not yet deployed)\n')).toBe('2');
  expect(newestChangelogVersion('# C\n\nnothing yet\n')).toBeNull();
});
