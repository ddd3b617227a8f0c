/**
 * Make's runtime cannot run the client, so the app and the example blueprints spell the spec's plan
 * table (Limits: Plan | Per day) in IML as `switch(lower(trim(<plan>)); "starter"; 10000; ...; <default>)`
 * wherever they need a daily allowance. Every such switch is pinned here to the client's table
 * (PLAN_ALLOWANCES, SMALLEST_DAILY_ALLOWANCE), so the copies cannot drift from it or from each other.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PLAN_ALLOWANCES } from '@evf/client';
import { APP_DIR, listAppFiles } from './harness/app-files';
import { EXAMPLES } from './harness/scenario-sheet-flow';

/** The client's rule for a plan name (allowance.ts planKey): case, spaces and hyphens do not matter. */
const clientKey = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

interface PlanSwitch {
  where: string;
  cases: Map<string, number>;
  otherwise: number;
}

/** A switch that only tells a plan of the spec's table ('known') from any other ('unknown'). */
interface KnownPlanSwitch {
  where: string;
  names: string[];
  otherwise: string;
}

/** Every plan switch in a text, its string cases and number results read in order. */
function planSwitches(where: string, text: string): PlanSwitch[] {
  const found: PlanSwitch[] = [];
  const head = /switch\(lower\(trim\(ifempty\([^)]*plan[^)]*\)\)\)\s*[;,]/g;
  for (const m of text.matchAll(head)) {
    const rest = text.slice(m.index + m[0].length);
    const end = rest.indexOf(')');
    const args = rest
      .slice(0, end)
      .split(/[;,]/)
      .map((a) => a.trim().replace(/^\\?["']|\\?["']$/g, ''));
    if (args[1] === 'known') {
      known.push({ where, names: args.filter((_, i) => i % 2 === 0).slice(0, -1), otherwise: args.at(-1)! });
      continue;
    }
    const cases = new Map<string, number>();
    for (let i = 0; i + 1 < args.length; i += 2) cases.set(args[i]!, Number(args[i + 1]));
    found.push({ where, cases, otherwise: Number(args[args.length - 1]) });
  }
  return found;
}

const known: KnownPlanSwitch[] = [];

const appSwitches = listAppFiles().flatMap((f) =>
  planSwitches(`app/${f}`, readFileSync(join(APP_DIR, f), 'utf8')),
);
const blueprintSwitches = [
  'whole-sheet-1-submit.blueprint.json',
  'whole-sheet-2-write-back.blueprint.json',
].flatMap((f) => planSwitches(`examples/${f}`, readFileSync(join(EXAMPLES, f), 'utf8')));

/** The smallest daily allowance of the client's table (Starter's, which any top-up also gets). */
const SMALLEST_DAILY = Math.min(...Object.values(PLAN_ALLOWANCES).map((a) => a.perDay ?? Infinity));

/** The client's daily allowance for a plan as the IML writes it: 0 for no daily limit. */
const perDay = (key: string) => PLAN_ALLOWANCES[key]!.perDay ?? 0;

describe("Make's copies of the plan table equal the client's", () => {
  it('finds the copies (the app once per use in Submit, the blueprints in part 1)', () => {
    expect(appSwitches.length).toBeGreaterThan(0);
    expect(blueprintSwitches.length).toBeGreaterThan(0);
  });

  it.each([...appSwitches, ...blueprintSwitches].map((s, i) => [`${s.where} #${i + 1}`, s] as const))(
    '%s',
    (_, s) => {
      for (const [name, value] of s.cases) {
        const key = clientKey(name);
        expect({ name, known: key in PLAN_ALLOWANCES }).toEqual({ name, known: true });
        expect({ name, value }).toEqual({ name, value: perDay(key) });
      }
      // Every plan with a daily limit is named; one without may be left to the default only where the
      // default means "no limit known" (0), never where it means the smallest allowance.
      for (const key of Object.keys(PLAN_ALLOWANCES)) {
        const named = [...s.cases.keys()].some((n) => clientKey(n) === key);
        if (perDay(key) !== 0 || s.otherwise !== 0)
          expect({ plan: key, named }).toEqual({ plan: key, named: true });
      }
    },
  );

  it("Submit's never-fits rule tells the spec's plans from any other account exactly as the client does", () => {
    expect(known.length).toBe(1);
    const k = known[0]!;
    expect(k.otherwise).toBe('unknown');
    expect(new Set(k.names.map(clientKey))).toEqual(new Set(Object.keys(PLAN_ALLOWANCES)));
    // lower(trim()) keeps a space, so a plan written with one is named that way too.
    for (const a of Object.values(PLAN_ALLOWANCES)) expect(k.names).toContain(a.plan!.toLowerCase());
    // The rule applies past the smallest allowance, as the client's does (bulk.ts, SMALLEST_DAILY_ALLOWANCE).
    const submit = readFileSync(
      join(APP_DIR, 'modules/submit-bulk/submit-bulk.communication.iml.json'),
      'utf8',
    );
    expect(submit).toContain(`length(temp.emails) > ${SMALLEST_DAILY}`);
  });

  it("every copy of one file is the same switch, and the blueprints' unknown plan gets the smallest allowance", () => {
    const same = (list: PlanSwitch[]) =>
      new Set(list.map((s) => JSON.stringify([[...s.cases], s.otherwise]))).size;
    expect(same(appSwitches)).toBe(1);
    expect(same(blueprintSwitches)).toBe(1);
    // Part 1 must never send more than every account takes when it cannot tell the plan (top-ups).
    expect(blueprintSwitches[0]!.otherwise).toBe(SMALLEST_DAILY);
  });
});
