/**
 * The Make README's claims that can drift: every file the App review table names exists, and the Make
 * facts it states are the numbers the harness enforces (harness/make-rules.ts), read from Make's pages.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { misspelledLabels } from './support/label-spelling';
import { MAX_REQUESTS_PER_RUN, MODULE_TIMEOUT_MS, PAGINATION_ITEM_LIMIT, RULES } from './harness/make-rules';

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

  it('the Checks list names every suite in test/', () => {
    const checks = section('Checks (`npx jest packages/make`)');
    const suites = readdirSync(join(PACKAGE, 'test')).filter((f) => f.endsWith('.test.ts'));
    expect(suites.length).toBeGreaterThan(10);
    for (const suite of suites)
      expect({ suite, named: checks.includes(`\`${suite}\``) }).toEqual({ suite, named: true });
  });

  it('every example says in its heading what it costs in operations, per row where it spends per row', () => {
    const headings = [...readme.matchAll(/^### (Example .*)$/gm)].map((m) => m[1]!);
    expect(headings.length).toBeGreaterThanOrEqual(2);
    for (const heading of headings) expect(heading).toMatch(/\([0-9][0-9,]* operations? (for|per) [^)]+\)$/);
    // An example whose steps run a module for each result row (a search or an update per contact).
    const perRow = section('The app in a scenario')
      .split(/\n(?=### )/)
      .filter((part) => /\n\d+\. .*(Search|Update)/.test(part));
    for (const part of perRow) expect(part.split('\n')[0]).toMatch(/operations? per /);
  });

  it("names the app's modules and fields by their labels, in the app's letter case", () => {
    expect(misspelledLabels(readme)).toEqual([]);
  });

  it('makes no claim the app cannot keep', () => {
    expect(readme).not.toMatch(/no page count/i);
    expect(readme).not.toMatch(/emits each finished job\s+once/);
    expect(readme).not.toMatch(/any ID can still be typed/);
    expect(readme).toMatch(/stored only when "Allow storing of incomplete executions" is on/);
  });
});
