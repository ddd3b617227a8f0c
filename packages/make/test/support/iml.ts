/**
 * A small evaluator for the IML (Make's expression language) that THIS app uses, so its requests and
 * response mappings can be run against the sandbox. No IML library is published on npm (Make's own
 * @integromat/iml is not on the public registry), so this supports only:
 *   - templates: "{{expr}}" (the raw value) and text with several {{expr}} parts (joined as text);
 *   - literals: 'text', "text", numbers, true, false, null;
 *   - paths: a.b.c and a[expr], from the variables the caller provides (an unknown root is an error);
 *   - calls with comma-separated arguments: the built-ins if, ifempty, get, and the app's custom
 *     IML functions (loaded from app/functions, see iml-functions.ts);
 *   - the operators = and != (strict comparison);
 *   - parentheses.
 * Anything else throws "not supported", so a new construct in the app fails the tests until the
 * evaluator learns it (see iml-coverage in sandbox-modules.test.ts).
 */

export type ImlFunction = (...args: unknown[]) => unknown;

export interface ImlScope {
  variables: Record<string, unknown>;
  functions: Record<string, ImlFunction>;
}

type Token =
  | { kind: 'num'; value: number }
  | { kind: 'str'; value: string }
  | { kind: 'id'; value: string }
  | { kind: 'op'; value: string };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'" || c === '"') {
      const end = src.indexOf(c, i + 1);
      if (end < 0) throw new Error(`IML: unterminated string in ${src}`);
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
    } else if (src.startsWith('!=', i)) {
      out.push({ kind: 'op', value: '!=' });
      i += 2;
    } else if ('=.,()[]'.includes(c)) {
      out.push({ kind: 'op', value: c });
      i++;
    } else {
      throw new Error(`IML: "${c}" is not supported by this evaluator (in ${src})`);
    }
  }
  return out;
}

type Node =
  | { t: 'lit'; value: unknown }
  | { t: 'var'; name: string }
  | { t: 'member'; object: Node; key: Node }
  | { t: 'call'; name: string; args: Node[] }
  | { t: 'cmp'; op: '=' | '!='; left: Node; right: Node };

function parse(src: string): Node {
  const tokens = tokenize(src);
  let pos = 0;
  const peek = () => tokens[pos];
  const isOp = (v: string) => peek()?.kind === 'op' && peek()!.value === v;
  const expect = (v: string) => {
    if (!isOp(v)) throw new Error(`IML: expected "${v}" in ${src}`);
    pos++;
  };
  function comparison(): Node {
    const left = postfix();
    if (isOp('=') || isOp('!=')) {
      const op = peek()!.value as '=' | '!=';
      pos++;
      return { t: 'cmp', op, left, right: postfix() };
    }
    return left;
  }
  function postfix(): Node {
    let node = primary();
    for (;;) {
      if (isOp('.')) {
        pos++;
        const tok = tokens[pos++];
        if (tok?.kind !== 'id') throw new Error(`IML: expected a name after "." in ${src}`);
        node = { t: 'member', object: node, key: { t: 'lit', value: tok.value } };
      } else if (isOp('[')) {
        pos++;
        const key = comparison();
        expect(']');
        node = { t: 'member', object: node, key };
      } else {
        return node;
      }
    }
  }
  function primary(): Node {
    const tok = tokens[pos++];
    if (!tok) throw new Error(`IML: unexpected end of ${src}`);
    if (tok.kind === 'num' || tok.kind === 'str') return { t: 'lit', value: tok.value };
    if (tok.kind === 'op' && tok.value === '(') {
      const inner = comparison();
      expect(')');
      return inner;
    }
    if (tok.kind === 'id') {
      if (tok.value === 'true') return { t: 'lit', value: true };
      if (tok.value === 'false') return { t: 'lit', value: false };
      if (tok.value === 'null') return { t: 'lit', value: null };
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
      return { t: 'var', name: tok.value };
    }
    throw new Error(`IML: unexpected "${tok.value}" in ${src}`);
  }
  const node = comparison();
  if (pos !== tokens.length) throw new Error(`IML: unexpected "${String(tokens[pos]!.value)}" in ${src}`);
  return node;
}

const isEmpty = (v: unknown) => v === undefined || v === null || v === '';

const BUILTINS: Record<string, (scope: ImlScope, args: Node[]) => unknown> = {
  // Lazy like Make's: only the chosen branch is evaluated.
  if: (scope, [cond, a, b]) => (truthy(run(cond!, scope)) ? run(a!, scope) : b ? run(b, scope) : undefined),
  ifempty: (scope, [a, b]) => {
    const v = run(a!, scope);
    return isEmpty(v) ? run(b!, scope) : v;
  },
  get: (scope, [obj, path]) => {
    let v = run(obj!, scope);
    for (const key of String(run(path!, scope)).split('.')) v = v == null ? undefined : (v as Record<string, unknown>)[key];
    return v;
  },
};

function truthy(v: unknown): boolean {
  return !(v === undefined || v === null || v === false || v === '' || v === 0);
}

function run(node: Node, scope: ImlScope): unknown {
  switch (node.t) {
    case 'lit':
      return node.value;
    case 'var':
      if (!(node.name in scope.variables)) throw new Error(`IML: variable "${node.name}" is not available here`);
      return scope.variables[node.name];
    case 'member': {
      const obj = run(node.object, scope);
      const key = run(node.key, scope);
      return obj == null ? undefined : (obj as Record<string, unknown>)[String(key)];
    }
    case 'call': {
      const builtin = BUILTINS[node.name];
      if (builtin) return builtin(scope, node.args);
      const fn = scope.functions[node.name];
      if (!fn) throw new Error(`IML: function "${node.name}" is not supported by this evaluator`);
      return fn(...node.args.map((a) => run(a, scope)));
    }
    case 'cmp': {
      const same = run(node.left, scope) === run(node.right, scope);
      return node.op === '=' ? same : !same;
    }
  }
}

const TEMPLATE = /\{\{([\s\S]*?)\}\}/g;

/** Evaluates one IML string: a lone {{expr}} keeps its type, mixed text becomes text. */
export function evaluateString(text: string, scope: ImlScope): unknown {
  const whole = /^\{\{([\s\S]*)\}\}$/.exec(text);
  if (whole && !whole[1]!.includes('{{')) return run(parse(whole[1]!), scope);
  return text.replace(TEMPLATE, (_, expr: string) => {
    const v = run(parse(expr), scope);
    if (v === undefined || v === null) return '';
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
  });
}

/** Evaluates every string in a JSON value; keys whose value comes out undefined are dropped, as Make does. */
export function evaluate(value: unknown, scope: ImlScope): unknown {
  if (typeof value === 'string') return evaluateString(value, scope);
  if (Array.isArray(value)) return value.map((v) => evaluate(v, scope));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = evaluate(v, scope);
      if (r !== undefined) out[k] = r;
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
    } else if (n.t === 'cmp') {
      walk(n.left);
      walk(n.right);
    }
  };
  walk(parse(expr));
  return { variables: [...variables], functions: [...functions] };
}
