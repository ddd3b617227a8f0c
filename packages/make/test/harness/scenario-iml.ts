/**
 * The formulas of a Make scenario's mappings and filters ("{{3.email}}", "{{map(4.array; \"email\")}}"),
 * limited to what the example blueprints use, so a blueprint can run in the scenario runner. This is
 * the scenario side of IML: arguments separated by ";", module outputs named by module id, and the
 * functions from Make's function reference. The app's own IML (commas, `parameters`, `body`) is
 * test/harness/iml.ts. Anything else throws, so a formula the runner cannot vouch for fails the test.
 *
 * Sources: https://www.make.com/en/help/functions/general-functions (if, ifempty, get),
 * https://www.make.com/en/help/functions/array-functions (map, add, slice, deduplicate, length; "The
 * first item in an array is index 1"), https://www.make.com/en/help/functions/string-functions
 * (trim, lower), https://www.make.com/en/help/functions/math-functions (ceil, max, min, sum),
 * https://www.make.com/en/help/functions/date-and-time-functions (now, addDays, addMinutes, formatDate: the
 * tokens the blueprints use, in UTC only), switch from the general functions.
 */

/** Make's `now` in a scenario run: the wall clock unless a test moves it (the sandbox's day). */
let clock: () => number = () => Date.now();
export function setScenarioClock(next: () => number): () => void {
  const previous = clock;
  clock = next;
  return () => {
    clock = previous;
  };
}

import { formatDateUtc, KEYWORDS, parsedOnce } from './iml';

export class ScenarioImlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScenarioImlError';
  }
}

/** Module outputs by module id: what a formula can read as `3.email`. */
export type BundleContext = Record<number, Record<string, unknown>>;

type Tok = { k: 'num' | 'str' | 'id' | 'op'; v: string };
type Node =
  | { t: 'lit'; v: unknown }
  | { t: 'ref'; module: number; path: string[] }
  | { t: 'call'; name: string; args: Node[] }
  | { t: 'bin'; op: string; l: Node; r: Node };

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) i++;
    else if (c === '"') {
      const end = src.indexOf('"', i + 1);
      if (end < 0) throw new ScenarioImlError(`unterminated text in ${src}`);
      out.push({ k: 'str', v: src.slice(i + 1, end) });
      i = end + 1;
    } else if (/[0-9]/.test(c)) {
      // A number, or a module reference such as 3.email (id, dot, then a name).
      const m = /^[0-9]+(\.[0-9]+(?![A-Za-z_]))?/.exec(src.slice(i))!;
      out.push({ k: 'num', v: m[0] });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i))!;
      out.push({ k: 'id', v: m[0] });
      i += m[0].length;
    } else if (src.startsWith('!=', i)) {
      out.push({ k: 'op', v: '!=' });
      i += 2;
    } else if ('=;().+-*/'.includes(c)) {
      out.push({ k: 'op', v: c });
      i++;
    } else throw new ScenarioImlError(`"${c}" is not supported by the scenario runner (in ${src})`);
  }
  return out;
}

const parse = parsedOnce(parseUncached);

function parseUncached(src: string): Node {
  const toks = tokenize(src);
  let p = 0;
  const peek = () => toks[p];
  const eat = (v: string) => {
    const t = toks[p];
    if (!t || t.k !== 'op' || t.v !== v) throw new ScenarioImlError(`expected "${v}" in ${src}`);
    p++;
  };
  const primary = (): Node => {
    const t = toks[p++];
    if (!t) throw new ScenarioImlError(`unexpected end of ${src}`);
    if (t.k === 'str') return { t: 'lit', v: t.v };
    if (t.k === 'op' && t.v === '(') {
      const n = expr();
      eat(')');
      return n;
    }
    if (t.k === 'num') {
      const next = peek();
      if (next?.k === 'op' && next.v === '.' && toks[p + 1]?.k === 'id') {
        const path: string[] = [];
        while (peek()?.k === 'op' && peek()!.v === '.' && toks[p + 1] && toks[p + 1]!.k !== 'op') {
          p++;
          path.push(toks[p++]!.v);
        }
        return { t: 'ref', module: Number(t.v), path };
      }
      return { t: 'lit', v: Number(t.v) };
    }
    if (t.k === 'id') {
      if (peek()?.k === 'op' && peek()!.v === '(') {
        p++;
        const args: Node[] = [];
        if (!(peek()?.k === 'op' && peek()!.v === ')')) {
          args.push(expr());
          while (peek()?.k === 'op' && peek()!.v === ';') {
            p++;
            args.push(expr());
          }
        }
        eat(')');
        return { t: 'call', name: t.v, args };
      }
      if (Object.prototype.hasOwnProperty.call(KEYWORDS, t.v)) return { t: 'lit', v: KEYWORDS[t.v] };
      if (t.v === 'now') return { t: 'call', name: 'now', args: [] };
    }
    throw new ScenarioImlError(`"${t.v}" is not something the scenario runner knows (in ${src})`);
  };
  const level = (ops: string[], next: () => Node) => (): Node => {
    let l = next();
    while (peek()?.k === 'op' && ops.includes(peek()!.v)) {
      const op = toks[p++]!.v;
      l = { t: 'bin', op, l, r: next() };
    }
    return l;
  };
  const mul = level(['*', '/'], primary);
  const add = level(['+', '-'], mul);
  const expr = level(['=', '!='], add);
  const n = expr();
  if (p !== toks.length) throw new ScenarioImlError(`unexpected "${toks[p]!.v}" in ${src}`);
  return n;
}

const isEmpty = (v: unknown) =>
  v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
const asText = (v: unknown): string =>
  v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
function asArray(v: unknown, fn: string): unknown[] {
  if (!Array.isArray(v)) throw new ScenarioImlError(`${fn}() needs an array, got ${asText(v).slice(0, 60)}`);
  return v;
}
function asDate(v: unknown, fn: string): number {
  const ms = v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v) : NaN;
  if (Number.isNaN(ms)) throw new ScenarioImlError(`${fn} needs a date, got ${asText(v).slice(0, 60)}`);
  return ms;
}
function asNumber(v: unknown, fn: string): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (v === '' || v === null || v === undefined || Number.isNaN(n))
    throw new ScenarioImlError(`${fn} needs a number, got ${asText(v)}`);
  return n;
}

/** Make's arrays are 1-based in paths and get() (array-functions: "The first item in an array is index 1"). */
function stepInto(obj: unknown, key: string): unknown {
  if (obj === undefined || obj === null) return undefined;
  if (Array.isArray(obj) && /^[0-9]+$/.test(key)) {
    const n = Number(key);
    if (n < 1) throw new ScenarioImlError(`arrays are 1-based in Make; index ${n} is not an element`);
    return obj[n - 1];
  }
  return (obj as Record<string, unknown>)[key];
}

type Fn = (args: unknown[]) => unknown;
const FUNCTIONS: Record<string, Fn> = {
  ifempty: ([a, b]) => (isEmpty(a) ? b : a),
  get: ([obj, path]) =>
    asText(path)
      .split('.')
      .reduce<unknown>((o, k) => stepInto(o, k), obj),
  map: ([arr, key]) =>
    asArray(arr, 'map')
      .map((item) =>
        item && typeof item === 'object' ? (item as Record<string, unknown>)[asText(key)] : undefined,
      )
      .filter((v) => v !== undefined),
  add: ([arr, ...values]) => [...asArray(arr, 'add'), ...values],
  slice: ([arr, start, end]) =>
    asArray(arr, 'slice').slice(
      asNumber(start, 'slice()'),
      end === undefined ? undefined : asNumber(end, 'slice()'),
    ),
  deduplicate: ([arr]) => [...new Set(asArray(arr, 'deduplicate'))],
  length: ([v]) => (typeof v === 'string' ? v.length : asArray(v, 'length').length),
  trim: ([v]) => asText(v).trim(),
  ceil: ([v]) => Math.ceil(asNumber(v, 'ceil()')),
  max: (args) => Math.max(...args.map((a) => asNumber(a, 'max()'))),
  min: (args) => Math.min(...args.map((a) => asNumber(a, 'min()'))),
  lower: ([v]) => asText(v).toLowerCase(),
  // split(text; separator): https://www.make.com/en/help/functions/string-functions
  split: ([v, sep]) => asText(v).split(asText(sep)),
  // switch(expression; value1; result1; ...; [else]), compared as text as Make's "=" is here.
  switch: ([subject, ...rest]) => {
    let i = 0;
    for (; i + 1 < rest.length; i += 2) if (asText(rest[i]) === asText(subject)) return rest[i + 1];
    return i < rest.length ? rest[i] : undefined;
  },
  now: () => new Date(clock()),
  addDays: ([d, n]) => new Date(asDate(d, 'addDays()') + asNumber(n, 'addDays()') * 86_400_000),
  addMinutes: ([d, n]) => new Date(asDate(d, 'addMinutes()') + asNumber(n, 'addMinutes()') * 60_000),
  formatDate: ([d, f, tz]) =>
    formatDateUtc(asDate(d, 'formatDate()'), asText(f), tz === undefined ? 'UTC' : asText(tz), 'a scenario'),
  // sum(array) or sum(1; 2; ...): https://www.make.com/en/help/functions/math-functions
  sum: (args) =>
    (args.length === 1 && Array.isArray(args[0]) ? args[0] : args).reduce<number>(
      (t, a) => t + asNumber(a, 'sum()'),
      0,
    ),
};

function run(n: Node, ctx: BundleContext): unknown {
  switch (n.t) {
    case 'lit':
      return Array.isArray(n.v) ? [] : n.v;
    case 'ref': {
      if (!(n.module in ctx))
        throw new ScenarioImlError(
          `module ${n.module}'s output is not available here (available: ${Object.keys(ctx).join(', ') || 'none'})`,
        );
      return n.path.reduce<unknown>((o, k) => stepInto(o, k), ctx[n.module]);
    }
    case 'call': {
      if (n.name === 'if') {
        const [c, a, b] = n.args;
        const v = run(c!, ctx);
        return v !== false && !isEmpty(v) && v !== 0 ? run(a!, ctx) : b ? run(b, ctx) : undefined;
      }
      const fn = FUNCTIONS[n.name];
      if (!fn) throw new ScenarioImlError(`${n.name}() is not a function the scenario runner knows`);
      return fn(n.args.map((a) => run(a, ctx)));
    }
    case 'bin': {
      const l = run(n.l, ctx);
      const r = run(n.r, ctx);
      if (n.op === '=') return asText(l) === asText(r);
      if (n.op === '!=') return asText(l) !== asText(r);
      const a = asNumber(l, `"${n.op}"`);
      const b = asNumber(r, `"${n.op}"`);
      return n.op === '+' ? a + b : n.op === '-' ? a - b : n.op === '*' ? a * b : a / b;
    }
  }
}

/** A mapping split once: its one whole formula, or its text parts (even) and formulas (odd). */
type Template = { whole: string } | { parts: string[] };
const templateOf = parsedOnce((text: string): Template => {
  const whole = /^\{\{([\s\S]*)\}\}$/.exec(text);
  if (whole && !whole[1]!.includes('}}')) return { whole: whole[1]! };
  // String.split with a capturing group keeps the formulas at the odd places.
  return { parts: text.split(/\{\{([\s\S]*?)\}\}/) };
});

/** The module ids a formula reads (for the blueprint check: every reference must be an earlier module). */
export function moduleRefs(value: unknown): { module: number; path: string[] }[] {
  const out: { module: number; path: string[] }[] = [];
  const visit = (n: Node) => {
    if (n.t === 'ref') out.push({ module: n.module, path: n.path });
    if (n.t === 'call') n.args.forEach(visit);
    if (n.t === 'bin') {
      visit(n.l);
      visit(n.r);
    }
  };
  for (const expr of formulasIn(value)) visit(parse(expr));
  return out;
}

function formulasIn(value: unknown): string[] {
  if (typeof value === 'string') return [...value.matchAll(/\{\{([\s\S]*?)\}\}/g)].map((m) => m[1]!);
  if (Array.isArray(value)) return value.flatMap(formulasIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(formulasIn);
  return [];
}

/**
 * Evaluates a mapped value: a text that is exactly one "{{formula}}" gives the formula's value, a text
 * with several parts gives text, and objects and arrays are mapped field by field.
 */
export function evaluateMapping(value: unknown, ctx: BundleContext): unknown {
  if (typeof value === 'string') {
    // Text without a formula is data (an address, a cell), not a template: never cached.
    if (!value.includes('{{')) return value;
    const t = templateOf(value);
    if ('whole' in t) return run(parse(t.whole), ctx);
    if (t.parts.length === 1) return value;
    let out = '';
    for (let i = 0; i < t.parts.length; i++) out += i % 2 ? asText(run(parse(t.parts[i]!), ctx)) : t.parts[i];
    return out;
  }
  if (Array.isArray(value)) return value.map((v) => evaluateMapping(v, ctx));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, evaluateMapping(v, ctx)]));
  return value;
}
