/**
 * The Make README's claims that can drift: every file the App review table names exists, and the Make
 * facts it states are the numbers the harness enforces (support/make-rules.ts), read from Make's pages.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_REQUESTS_PER_RUN, MODULE_TIMEOUT_MS, PAGINATION_ITEM_LIMIT, RULES } from './support/make-rules';

const PACKAGE = join(__dirname, '..');
const readme = readFileSync(join(PACKAGE, 'README.md'), 'utf8');

function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start).toBeGreaterThan(0);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

describe('the Make README', () => {
  it('App review: every file a row names exists', () => {
    const rows = section('App review')
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| Review item') && !l.startsWith('| ---'));
    expect(rows.length).toBeGreaterThanOrEqual(12);
    for (const row of rows) {
      const where = row.split('|')[2]!;
      for (const [, path] of where.matchAll(/`([^`]+)`/g)) {
        const file = path!.split(' ')[0]!;
        if (file.includes('*')) continue;
        expect({ file, exists: existsSync(join(PACKAGE, file)) }).toEqual({ file, exists: true });
      }
    }
  });

  it("states Make's pagination caps and timeouts as Make's pages give them, the numbers the harness enforces", () => {
    const rules = section('Make rules this app depends on');
    expect(rules).toContain('100 requests, 50 pagination requests and 3,200 records');
    expect(rules).toContain('up to 300 s');
    expect(PAGINATION_ITEM_LIMIT).toBe(3_200);
    expect(MAX_REQUESTS_PER_RUN).toBeLessThanOrEqual(50);
    expect(MODULE_TIMEOUT_MS).toBe(40_000);
    // Each harness rule cites where it comes from.
    for (const rule of Object.values(RULES))
      expect(rule.source).toMatch(
        /https:\/\/|sources\.json|schemas|harness bound|this app's rule over RULES/,
      );
  });

  it('makes no claim the app cannot keep', () => {
    expect(readme).not.toMatch(/no page count/i);
    expect(readme).not.toMatch(/emits each finished job\s+once/);
    expect(readme).not.toMatch(/any ID can still be typed/);
    expect(readme).toMatch(/stored only when "Allow storing of incomplete executions" is on/);
  });
});
