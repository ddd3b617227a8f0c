/**
 * A small evaluator for IML (Make's expression language), limited to what THIS app uses, so its
 * requests and response mappings can run against the sandbox. No IML library is published on the
 * npm registry (Make's @integromat/iml, which its editor extension uses, is not), so this supports
 * only:
 *   - templates: "{{expr}}" (the raw value) and text with several {{expr}} parts (joined as text);
 *   - literals: 'text', "text", numbers, true, false, null, emptyarray, emptystring;
 *   - paths: a.b.c and a[expr], from the variables the caller provides (an unknown root is an error);
 *   - the operators = and != (strict comparison), <, <=, >, >= and + - * / on numbers only, and
 *     parentheses (operators: https://www.make.com/en/help/functions/math-functions and the
 *     comparison in Make's own pagination example, developers.make.com .../debugging-of-pagination-in-list-search-modules);
 *   - calls of the built-in functions listed in BUILTINS, and of nothing else.
 * Anything else throws, so a new construct in the app fails the tests until the evaluator learns it.
 * Each rule below that comes from Make cites the page it comes from.
 */

export interface ImlScope {
  variables: Record<string, unknown>;
}

/** Raised for anything Make would refuse or the harness cannot vouch for. */
export class ImlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImlError';
  }
}

type Token =
  | { kind: 'num'; value: number }
  | { kind: 'str'; value: string }
  | { kind: 'id'; value: string }
  | { kind: 'op'; value: string }
  | { kind: 'regex'; value: RegExp };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'" || c === '"') {
      const end = src.indexOf(c, i + 1);
      if (end < 0) throw new ImlError(`IML: unterminated string in ${src}`);
      out.push({ kind: 'str', value: src.slice(i + 1, end) });
      i = end + 1;
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9]+(\.[0-9]+)?/.exec(src.slice(i))!;
      out.push({ kind: 'num', value: Number(m[0]) });
      i += m[0].length;
    } else if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(src.slice(i))!;
      out.push({ kind: 'id', value: m[0] });
      i += m[0].length;
    } else if (
      c === '/' &&
      (out.length === 0 || (out.at(-1)!.kind === 'op' && !')]'.includes(String(out.at(-1)!.value))))
    ) {
      // A regular expression where an operand goes, /pattern/flags, as Make's replace() takes it
      // (https://www.make.com/en/help/functions/string-functions, replace).
      let j = i + 1;
      let inClass = false;
      for (; j < src.length; j++) {
        const ch = src[j]!;
        if (ch === '\\') j++;
        else if (ch === '[') inClass = true;
        else if (ch === ']') inClass = false;
        else if (ch === '/' && !inClass) break;
      }
      if (j >= src.length) throw new ImlError(`IML: unterminated regular expression in ${src}`);
      const flags = /^[gimsuy]*/.exec(src.slice(j + 1))![0];
      out.push({ kind: 'regex', value: new RegExp(src.slice(i + 1, j), flags) });
      i = j + 1 + flags.length;
    } else if (src.startsWith('!=', i) || src.startsWith('<=', i) || src.startsWith('>=', i)) {
      out.push({ kind: 'op', value: src.slice(i, i + 2) });
      i += 2;
    } else if ('=.,()[]+-*/<>'.includes(c)) {
      out.push({ kind: 'op', value: c });
      i++;
    } else {
      throw new ImlError(`IML: "${c}" is not supported by this evaluator (in ${src})`);
    }
  }
  return out;
}

type Node =
  | { t: 'lit'; value: unknown }
  | { t: 'var'; name: string }
  | { t: 'member'; object: Node; key: Node; bracket: boolean }
  | { t: 'call'; name: string; args: Node[] }
  | { t: 'cmp'; op: CmpOp; left: Node; right: Node }
  | { t: 'arith'; op: ArithOp; left: Node; right: Node };

type CmpOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
type ArithOp = '+' | '-' | '*' | '/';
const CMP_OPS: readonly string[] = ['=', '!=', '<', '<=', '>', '>='];

// Make's keywords for an empty array and an empty text (https://www.make.com/en/help/functions/general-functions, "Keywords").
// The scenario side of IML (scenario-iml.ts) has the same keywords. Evaluation hands out a fresh
// array for emptyarray, so the one array here is never changed.
export const KEYWORDS: Readonly<Record<string, unknown>> = {
  true: true,
  false: false,
  null: null,
  emptyarray: [],
  emptystring: '',
  // The separators' keywords (the same Keywords section): a text list is split on each.
  newline: '\n',
  carriageReturn: '\r',
  tab: '\t',
  space: ' ',
};

/**
 * A parser that parses each expression once: a module's IML (or a scenario's formula) is the same for
 * every bundle, and a 50,000-row run would otherwise spend most of its time re-parsing it. The trees
 * are never changed after parsing, and an expression that fails to parse is not kept, so it fails
 * again each time.
 */
export function parsedOnce<T>(parseUncached: (src: string) => T): (src: string) => T {
  const parsed = new Map<string, T>();
  return (src) => {
    let node = parsed.get(src);
    if (node === undefined) parsed.set(src, (node = parseUncached(src)));
    return node;
  };
}

const parse = parsedOnce(parseUncached);

function parseUncached(src: string): Node {
  const tokens = tokenize(src);
  let pos = 0;
  const peek = () => tokens[pos];
  const isOp = (v: string) => peek()?.kind === 'op' && peek()!.value === v;
  const expect = (v: string) => {
    if (!isOp(v)) throw new ImlError(`IML: expected "${v}" in ${src}`);
    pos++;
  };
  function comparison(): Node {
    const left = additive();
    const tok = peek();
    if (tok?.kind === 'op' && CMP_OPS.includes(tok.value)) {
      pos++;
      return { t: 'cmp', op: tok.value as CmpOp, left, right: additive() };
    }
    return left;
  }
  function additive(): Node {
    let node = multiplicative();
    while (isOp('+') || isOp('-')) {
      const op = peek()!.value as ArithOp;
      pos++;
      node = { t: 'arith', op, left: node, right: multiplicative() };
    }
    return node;
  }
  function multiplicative(): Node {
    let node = postfix();
    while (isOp('*') || isOp('/')) {
      const op = peek()!.value as ArithOp;
      pos++;
      node = { t: 'arith', op, left: node, right: postfix() };
    }
    return node;
  }
  function postfix(): Node {
    let node = primary();
    for (;;) {
      if (isOp('.')) {
        pos++;
        const tok = tokens[pos++];
        if (tok?.kind !== 'id') throw new ImlError(`IML: expected a name after "." in ${src}`);
        node = { t: 'member', object: node, key: { t: 'lit', value: tok.value }, bracket: false };
      } else if (isOp('[')) {
        pos++;
        const key = comparison();
        expect(']');
        node = { t: 'member', object: node, key, bracket: true };
      } else {
        return node;
      }
    }
  }
  function primary(): Node {
    const tok = tokens[pos++];
    if (!tok) throw new ImlError(`IML: unexpected end of ${src}`);
    if (tok.kind === 'num' || tok.kind === 'str' || tok.kind === 'regex')
      return { t: 'lit', value: tok.value };
    if (tok.kind === 'op' && tok.value === '(') {
      const inner = comparison();
      expect(')');
      return inner;
    }
    if (tok.kind === 'id') {
      if (isOp('(')) {
        pos++;
        const args: Node[] = [];
        if (!isOp(')')) {
          args.push(comparison());
          while (isOp(',')) {
            pos++;
            args.push(comparison());
          }
        }
        expect(')');
        return { t: 'call', name: tok.value, args };
      }
      if (Object.prototype.hasOwnProperty.call(KEYWORDS, tok.value))
        return { t: 'lit', value: KEYWORDS[tok.value] };
      return { t: 'var', name: tok.value };
    }
    throw new ImlError(`IML: unexpected "${tok.value}" in ${src}`);
  }
  const node = comparison();
  if (pos !== tokens.length) throw new ImlError(`IML: unexpected "${String(tokens[pos]!.value)}" in ${src}`);
  return node;
}

const isEmpty = (v: unknown) =>
  v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

function truthy(v: unknown): boolean {
  return !(v === undefined || v === null || v === false || v === '' || v === 0);
}

function asText(v: unknown): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** Reads one step of a path. Make's arrays are 1-based (https://www.make.com/en/help/functions/array-functions: "The first item in an array is index 1"). */
function step(obj: unknown, key: unknown, where: string): unknown {
  if (obj === undefined || obj === null) return undefined;
  if (Array.isArray(obj) && (typeof key === 'number' || /^[0-9]+$/.test(String(key)))) {
    const n = Number(key);
    if (n < 1)
      throw new ImlError(`IML: arrays are 1-based in Make; index ${n} is not an element (in ${where})`);
    return obj[n - 1];
  }
  return (obj as Record<string, unknown>)[String(key)];
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export function formatDateUtc(ms: number, format: string, tz: string, src: string): string {
  if (tz !== 'UTC') throw new ImlError(`IML: the harness formats dates in UTC only (in ${src})`);
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return format.replace(/\[([^\]]*)\]|YYYY|MMMM|MM|DD|D|HH|mm|X|[A-Za-z]/g, (tok, literal?: string) => {
    if (literal !== undefined) return literal;
    switch (tok) {
      case 'YYYY':
        return String(d.getUTCFullYear());
      case 'MMMM':
        return MONTHS[d.getUTCMonth()]!;
      case 'MM':
        return pad(d.getUTCMonth() + 1);
      case 'DD':
        return pad(d.getUTCDate());
      case 'D':
        return String(d.getUTCDate());
      case 'HH':
        return pad(d.getUTCHours());
      case 'mm':
        return pad(d.getUTCMinutes());
      case 'X':
        return String(Math.floor(ms / 1000));
      default:
        throw new ImlError(`IML: the harness does not know the date token "${tok}" (in ${src})`);
    }
  });
}

/** A date or an ISO 8601 text, as milliseconds; anything else is an error, not a guess. */
function needDate(v: unknown, fn: string): number {
  const ms = v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v) : NaN;
  if (Number.isNaN(ms)) throw new ImlError(`IML: ${fn}() needs a date, got ${asText(v).slice(0, 60)}`);
  return ms;
}

function needArray(v: unknown, fn: string): unknown[] {
  if (!Array.isArray(v))
    throw new ImlError(`IML: ${fn}() needs an array, got ${asText(v).slice(0, 60) || String(v)}`);
  return v;
}

function needNumber(v: unknown, fn: string): number {
  if (typeof v !== 'number' || Number.isNaN(v))
    throw new ImlError(`IML: ${fn}() needs numbers, got ${asText(v)}`);
  return v;
}

/**
 * Make's built-in IML functions the app uses, each as Make documents it. Nothing else can be called:
 * custom IML functions "are not available by default" (https://developers.make.com/custom-apps-documentation/app-components/iml-functions),
 * so a module calling one would not run in a Make account that has not been granted them.
 */
const BUILTINS: Record<string, (scope: ImlScope, args: Node[], src: string) => unknown> = {
  // if(expression; value1; value2), lazy (https://www.make.com/en/help/functions/general-functions).
  if: (scope, [cond, a, b]) => (truthy(run(cond!, scope)) ? run(a!, scope) : b ? run(b, scope) : undefined),
  // ifempty(value1; value2) (https://www.make.com/en/help/functions/general-functions).
  ifempty: (scope, [a, b]) => {
    const v = run(a!, scope);
    return isEmpty(v) ? run(b!, scope) : v;
  },
  // switch(expression; value1; result1; [value2; result2; ...]; [else]) (https://www.make.com/en/help/functions/general-functions).
  switch: (scope, [subject, ...rest]) => {
    const v = run(subject!, scope);
    let i = 0;
    for (; i + 1 < rest.length; i += 2) if (run(rest[i]!, scope) === v) return run(rest[i + 1]!, scope);
    return i < rest.length ? run(rest[i]!, scope) : undefined;
  },
  // get(object or array; path), dots between keys, 1-based indexes (https://www.make.com/en/help/functions/general-functions).
  get: (scope, [obj, path], src) => {
    let v = run(obj!, scope);
    for (const key of asText(run(path!, scope)).split('.')) v = step(v, key, src);
    return v;
  },
  // toCollection(array; key; value): an array of {key, value} items as one collection
  // (https://www.make.com/en/help/functions/array-functions).
  toCollection: (scope, [arr, k, v]) => {
    const key = asText(run(k!, scope));
    const value = asText(run(v!, scope));
    const items = run(arr!, scope);
    if (items === undefined || items === null || items === '') return {};
    return Object.fromEntries(
      needArray(items, 'toCollection').map((item) => {
        const o = (item ?? {}) as Record<string, unknown>;
        return [asText(o[key]), o[value]];
      }),
    );
  },
  // contains(array; value) and contains(text; search string) (https://www.make.com/en/help/functions/array-functions, https://www.make.com/en/help/functions/string-functions).
  contains: (scope, [a, b]) => {
    const hay = run(a!, scope);
    const needle = run(b!, scope);
    if (typeof hay === 'string') return hay.includes(asText(needle));
    return needArray(hay, 'contains').includes(needle);
  },
  // map(complex array; key): the values of one key (https://www.make.com/en/help/functions/array-functions).
  map: (scope, [a, key]) => {
    const k = asText(run(key!, scope));
    return needArray(run(a!, scope), 'map')
      .map((item) => (item && typeof item === 'object' ? (item as Record<string, unknown>)[k] : undefined))
      .filter((v) => v !== undefined);
  },
  // add(array; value1; ...): the array with those values added at the end (https://www.make.com/en/help/functions/array-functions).
  add: (scope, [a, ...values]) => [...needArray(run(a!, scope), 'add'), ...values.map((v) => run(v, scope))],
  // join(array; separator) (https://www.make.com/en/help/functions/array-functions).
  join: (scope, [a, sep]) =>
    needArray(run(a!, scope), 'join')
      .map(asText)
      .join(asText(run(sep!, scope))),
  // remove(array; value1; ...): the array without those values (https://www.make.com/en/help/functions/array-functions).
  remove: (scope, [a, ...values]) => {
    const drop = values.map((v) => run(v, scope));
    return needArray(run(a!, scope), 'remove').filter((x) => !drop.includes(x));
  },
  // split(text; separator) (https://www.make.com/en/help/functions/string-functions).
  split: (scope, [a, sep]) => asText(run(a!, scope)).split(asText(run(sep!, scope))),
  // length(text or array) (https://www.make.com/en/help/functions/string-functions, https://www.make.com/en/help/functions/array-functions).
  length: (scope, [a]) => {
    const v = run(a!, scope);
    return typeof v === 'string' ? v.length : needArray(v, 'length').length;
  },
  // min(values) and max(values); floor(number) (https://www.make.com/en/help/functions/math-functions).
  min: (scope, args) => Math.min(...args.map((a) => needNumber(run(a, scope), 'min'))),
  max: (scope, args) => Math.max(...args.map((a) => needNumber(run(a, scope), 'max'))),
  floor: (scope, [a]) => Math.floor(needNumber(run(a!, scope), 'floor')),
  // formatDate(date; format; timezone): the tokens this app uses (YYYY, MMMM, MM, DD, D, HH, mm, X and
  // [literal] text) in UTC only; any other token or timezone is refused rather than guessed
  // (https://www.make.com/en/help/functions/date-and-time-functions,
  // https://www.make.com/en/help/functions/tokens-for-date-and-time-formatting).
  formatDate: (scope, [d, f, tz], src) =>
    formatDateUtc(
      needDate(run(d!, scope), 'formatDate'),
      asText(run(f!, scope)),
      tz === undefined ? 'UTC' : asText(run(tz, scope)),
      src,
    ),
  // parseDate(text; format): the Unix-seconds format X only (the tokens page above).
  parseDate: (scope, [t, f], src) => {
    const text = asText(run(t!, scope));
    if (asText(run(f!, scope)) !== 'X' || !/^[0-9]+$/.test(text))
      throw new ImlError(`IML: the harness parses Unix seconds (format X) only (in ${src})`);
    return new Date(Number(text) * 1000);
  },
  // addSeconds(date; number) (https://www.make.com/en/help/functions/date-and-time-functions).
  addSeconds: (scope, [d, n]) =>
    new Date(needDate(run(d!, scope), 'addSeconds') + needNumber(run(n!, scope), 'addSeconds') * 1000),
  // replace(text; search; replacement): every match of a /regex/g (with $1 for a group), or every
  // occurrence of a text (https://www.make.com/en/help/functions/string-functions, replace).
  replace: (scope, [a, search, repl]) => {
    const text = asText(run(a!, scope));
    const what = run(search!, scope);
    const by = asText(run(repl!, scope));
    return what instanceof RegExp ? text.replace(what, by) : text.split(asText(what)).join(by);
  },
  // substring(text; start; end), 0-based (https://www.make.com/en/help/functions/string-functions).
  substring: (scope, [a, from, to]) =>
    asText(run(a!, scope)).slice(
      needNumber(run(from!, scope), 'substring'),
      to === undefined ? undefined : needNumber(run(to, scope), 'substring'),
    ),
  // decodeURL(text) (https://www.make.com/en/help/functions/string-functions); text it cannot decode
  // stays as it is.
  decodeURL: (scope, [a]) => {
    const text = asText(run(a!, scope));
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  },
  // lower(text), trim(text) (https://www.make.com/en/help/functions/string-functions).
  lower: (scope, [a]) => asText(run(a!, scope)).toLowerCase(),
  trim: (scope, [a]) => asText(run(a!, scope)).trim(),
  // deduplicate(array) (https://www.make.com/en/help/functions/array-functions).
  deduplicate: (scope, [a]) => [...new Set(needArray(run(a!, scope), 'deduplicate'))],
  // parseNumber(number; decimal separator): text to a number (https://www.make.com/en/help/functions/math-functions).
  parseNumber: (scope, [a], src) => {
    const t = asText(run(a!, scope));
    if (!/^-?[0-9]+(\.[0-9]+)?$/.test(t))
      throw new ImlError(`IML: parseNumber("${t}") is not a number (in ${src})`);
    return Number(t);
  },
  // encodeURL(text): encodes special characters, "/" included (https://www.make.com/en/help/functions/string-functions).
  encodeURL: (scope, [a]) => encodeURIComponent(asText(run(a!, scope))),
};

export const BUILTIN_NAMES: readonly string[] = Object.keys(BUILTINS);

function run(node: Node, scope: ImlScope, src = ''): unknown {
  switch (node.t) {
    case 'lit':
      return Array.isArray(node.value) ? [] : node.value;
    case 'var':
      if (!Object.prototype.hasOwnProperty.call(scope.variables, node.name)) {
        throw new ImlError(
          `IML: variable "${node.name}" is not available here (available: ${Object.keys(scope.variables).join(', ')})`,
        );
      }
      return scope.variables[node.name];
    case 'member':
      return step(run(node.object, scope, src), run(node.key, scope, src), src);
    case 'call': {
      const builtin = BUILTINS[node.name];
      if (!builtin) {
        throw new ImlError(
          `IML: "${node.name}" is not a built-in Make function this app may use; custom IML functions are not available by default (https://developers.make.com/custom-apps-documentation/app-components/iml-functions)`,
        );
      }
      return builtin(scope, node.args, src);
    }
    case 'cmp': {
      const a = run(node.left, scope, src);
      const b = run(node.right, scope, src);
      if (node.op === '=') return a === b;
      if (node.op === '!=') return a !== b;
      // Ordering only between numbers: the harness does not guess how Make orders text or dates.
      if (typeof a !== 'number' || typeof b !== 'number')
        throw new ImlError(`IML: ${node.op} needs two numbers (in ${src})`);
      return node.op === '<' ? a < b : node.op === '<=' ? a <= b : node.op === '>' ? a > b : a >= b;
    }
    case 'arith': {
      // Only numbers: the harness does not guess how Make would add text or dates.
      const a = run(node.left, scope, src);
      const b = run(node.right, scope, src);
      if (typeof a !== 'number' || typeof b !== 'number')
        throw new ImlError(`IML: ${node.op} needs two numbers (in ${src})`);
      if (node.op === '/' && b === 0) throw new ImlError(`IML: division by zero (in ${src})`);
      return node.op === '+' ? a + b : node.op === '-' ? a - b : node.op === '*' ? a * b : a / b;
    }
  }
}

const TEMPLATE = /\{\{([\s\S]*?)\}\}/g;

/** A template split once: its one whole expression, or its text parts (even) and expressions (odd). */
type Template = { whole: string } | { parts: string[] };
const templateOf = parsedOnce((text: string): Template => {
  const whole = /^\{\{([\s\S]*)\}\}$/.exec(text);
  if (whole && !whole[1]!.includes('{{')) return { whole: whole[1]! };
  // String.split with a capturing group keeps the expressions at the odd places.
  return { parts: text.split(/\{\{([\s\S]*?)\}\}/) };
});

/** Evaluates one IML string: a lone {{expr}} keeps its type, mixed text becomes text. */
export function evaluateString(text: string, scope: ImlScope): unknown {
  // Text without a formula is data (an address, a cell), not a template: never cached.
  if (!text.includes('{{')) return text;
  const t = templateOf(text);
  if ('whole' in t) return run(parse(t.whole), scope, t.whole);
  if (t.parts.length === 1) return text;
  let out = '';
  for (let i = 0; i < t.parts.length; i++)
    out += i % 2 ? asText(run(parse(t.parts[i]!), scope, t.parts[i])) : t.parts[i];
  return out;
}

/** Evaluates every string in a JSON value; keys whose value comes out undefined are dropped, as Make does. */
export function evaluate(value: unknown, scope: ImlScope): unknown {
  if (typeof value === 'string') return evaluateString(value, scope);
  if (Array.isArray(value)) return value.map((v) => evaluate(v, scope));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = evaluate(v, scope);
      if (k === '{{...}}') {
        // The spread key merges a collection into the object (Make's REST universal module example:
        // "headers": { "{{...}}": "{{toCollection(parameters.headers, 'key', 'value')}}" },
        // https://developers.make.com/custom-apps-documentation/app-components/modules/universal-module/rest).
        if (r === undefined || r === null) continue;
        if (typeof r !== 'object' || Array.isArray(r))
          throw new ImlError(`"{{...}}" needs a collection, got ${JSON.stringify(r)?.slice(0, 80)}`);
        Object.assign(out, r);
      } else if (r !== undefined) out[k] = r;
    }
    return out;
  }
  return value;
}

/** Every {{expression}} in a JSON value, for checks that must see all of them. */
export function expressionsIn(value: unknown): string[] {
  if (typeof value === 'string') return [...value.matchAll(TEMPLATE)].map((m) => m[1]!);
  if (Array.isArray(value)) return value.flatMap(expressionsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(expressionsIn);
  return [];
}

/** Parses without running, so a test can prove every expression in the app is understood. */
export function parseExpression(expr: string): void {
  parse(expr);
}

/** The root variables and functions an expression reads. */
export function referencesOf(expr: string): { variables: string[]; functions: string[] } {
  const variables = new Set<string>();
  const functions = new Set<string>();
  const walk = (n: Node): void => {
    if (n.t === 'var') variables.add(n.name);
    else if (n.t === 'member') {
      walk(n.object);
      walk(n.key);
    } else if (n.t === 'call') {
      functions.add(n.name);
      n.args.forEach(walk);
    } else if (n.t === 'cmp' || n.t === 'arith') {
      walk(n.left);
      walk(n.right);
    }
  };
  walk(parse(expr));
  return { variables: [...variables], functions: [...functions] };
}

/** Every variable root the IML inside a JSON value reads. */
export function variablesReadBy(value: unknown): string[] {
  return [...new Set(expressionsIn(value).flatMap((e) => referencesOf(e).variables))];
}
