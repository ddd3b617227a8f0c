/**
 * What a test file's suffix promises, checked on its source (jest.config.js runs one project per tier):
 * - `*.test.ts` (unit) starts no sandbox, no process and no server: neither the file nor any local
 *   module it imports (followed through relative imports, type-only imports skipped) takes a value
 *   from `@evf/sandbox`, `child_process`, `cluster`, `worker_threads`, `playwright-core`, or the server
 *   and socket makers of `http`, `https`, `http2`, `net`, `tls` and `dgram`. A harness is caught by
 *   what it imports: n8n's starts processes; a model that only sends HTTP requests (nock answers them,
 *   as Make's module runtime does) is fine. A unit
 *   file also waits on no real timer (`setTimeout`/`setInterval`) unless it runs jest's fake timers.
 * - outside `*.e2e.test.ts`, no assertion on a wall-clock duration: an `expect(...)` whose arguments
 *   hold the difference of two clock readings (`Date.now() - started`, or a variable holding one).
 * - a suffix is one of the three: `name.test.ts`, `name.sandbox.test.ts`, `name.e2e.test.ts`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export type Tier = 'unit' | 'sandbox' | 'e2e';

export const tierOf = (file: string): Tier =>
  file.endsWith('.e2e.test.ts') ? 'e2e' : file.endsWith('.sandbox.test.ts') ? 'sandbox' : 'unit';

const KNOWN_SUFFIX = /(^|\/)[a-z0-9][a-z0-9-]*(\.e2e|\.sandbox)?\.test\.ts$/i;

/** Modules any value import of which starts something. */
const STARTERS = new Set(['@evf/sandbox', 'child_process', 'cluster', 'worker_threads', 'playwright-core']);
/**
 * Modules whose listed exports open a server or a raw socket. Their other exports are pure (isIP,
 * STATUS_CODES) or are the HTTP client every transport uses (request, get), which nock answers.
 */
const SOCKET_MAKERS: Record<string, Set<string>> = {
  http: new Set(['createServer', 'Server']),
  https: new Set(['createServer', 'Server']),
  http2: new Set(['createServer', 'createSecureServer', 'connect']),
  net: new Set(['createServer', 'connect', 'createConnection', 'Socket', 'Server']),
  tls: new Set(['createServer', 'connect', 'TLSSocket', 'Server']),
  dgram: new Set(['createSocket', 'Socket']),
};
const bare = (specifier: string): string => specifier.replace(/^node:/, '');

interface ValueImport {
  specifier: string;
  /** The names taken; `*` for a default or namespace import or a `require` of the whole module. */
  names: string[];
}

function parse(file: string, withParents = true): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, withParents);
}

const importsByFile = new Map<string, ValueImport[]>();
const importsOf = (file: string): ValueImport[] => {
  let found = importsByFile.get(file);
  if (!found) importsByFile.set(file, (found = valueImports(parse(file, false))));
  return found;
};

/** The module's value imports: import declarations (type-only parts left out), require() and import(). */
function valueImports(source: ts.SourceFile): ValueImport[] {
  const found: ValueImport[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const specifier = node.moduleSpecifier.text;
      if (!clause) found.push({ specifier, names: ['*'] });
      else if (!clause.isTypeOnly) {
        const names: string[] = clause.name ? ['*'] : [];
        const bindings = clause.namedBindings;
        if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
        if (bindings && ts.isNamedImports(bindings))
          for (const el of bindings.elements)
            if (!el.isTypeOnly) names.push((el.propertyName ?? el.name).text);
        if (names.length) found.push({ specifier, names });
      }
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      if (!node.isTypeOnly) found.push({ specifier: node.moduleSpecifier.text, names: ['*'] });
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require')) &&
      node.arguments.length === 1 &&
      ts.isStringLiteral(node.arguments[0]!)
    ) {
      found.push({ specifier: (node.arguments[0] as ts.StringLiteral).text, names: ['*'] });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function resolveLocal(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.cjs`, `${base}.js`, join(base, 'index.ts')])
    if (/\.(ts|cjs|js)$/.test(candidate) && existsSync(candidate)) return candidate;
  return undefined;
}

/** Why importing `names` from `specifier` starts something, or undefined. */
function starts({ specifier, names }: ValueImport): string | undefined {
  const name = bare(specifier);
  if (STARTERS.has(name)) return `imports ${specifier}`;
  const makers = SOCKET_MAKERS[name];
  const opening = makers && names.filter((n) => n === '*' || makers.has(n));
  if (opening?.length) return `imports ${opening.join(', ')} from ${specifier}`;
  return undefined;
}

/** For a unit file: each forbidden import it reaches, as "via a -> b: imports x". */
function forbiddenImports(file: string, root: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  const walk = (module: string, chain: string[]): void => {
    if (seen.has(module)) return;
    seen.add(module);
    for (const imp of importsOf(module)) {
      const why = starts(imp);
      if (why) problems.push(chain.length ? `via ${chain.join(' -> ')}: ${why}` : why);
      const local = resolveLocal(module, imp.specifier);
      if (local && local.endsWith('.ts')) walk(local, [...chain, relative(root, local)]);
    }
  };
  walk(file, []);
  return problems;
}

const CLOCK_READ = (node: ts.Node): boolean => {
  if (ts.isCallExpression(node)) {
    const callee = node.expression.getText();
    if (['Date.now', 'performance.now', 'process.hrtime', 'process.hrtime.bigint'].includes(callee))
      return true;
  }
  return ts.isNewExpression(node) && node.expression.getText() === 'Date' && !node.arguments?.length;
};

function contains(node: ts.Node, test: (n: ts.Node) => boolean): boolean {
  if (test(node)) return true;
  return ts.forEachChild(node, (child) => (contains(child, test) ? true : undefined)) ?? false;
}

/** Lines of `expect(...)` chains that assert on a wall-clock duration. */
function durationAssertions(source: ts.SourceFile): number[] {
  const clockVars = new Set<string>();
  const durationVars = new Set<string>();
  const declarations: Array<[string, ts.Expression]> = [];
  const collect = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer)
      declarations.push([node.name.text, node.initializer]);
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isIdentifier(node.left)
    )
      declarations.push([node.left.text, node.right]);
    ts.forEachChild(node, collect);
  };
  collect(source);
  const isClock = (n: ts.Node): boolean => CLOCK_READ(n) || (ts.isIdentifier(n) && clockVars.has(n.text));
  const isDuration = (n: ts.Node): boolean =>
    (ts.isIdentifier(n) && durationVars.has(n.text)) ||
    (ts.isBinaryExpression(n) &&
      n.operatorToken.kind === ts.SyntaxKind.MinusToken &&
      contains(n.left, isClock) &&
      contains(n.right, isClock));
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, init] of declarations) {
      if (!clockVars.has(name) && contains(init, CLOCK_READ)) changed = clockVars.add(name) !== undefined;
      if (!durationVars.has(name) && contains(init, isDuration))
        changed = durationVars.add(name) !== undefined;
    }
  }
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'expect') {
      // The whole chain: expect(a).toBeLessThan(b).
      let chain: ts.Node = node;
      while (
        (ts.isPropertyAccessExpression(chain.parent) || ts.isCallExpression(chain.parent)) &&
        chain.parent.getStart() === node.getStart()
      )
        chain = chain.parent;
      if (contains(chain, isDuration))
        lines.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

/** Lines where a unit file waits on a real timer (no jest.useFakeTimers in the file). */
function realTimers(source: ts.SourceFile): number[] {
  if (source.text.includes('jest.useFakeTimers(')) return [];
  const lines: number[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      ['setTimeout', 'setInterval'].includes(node.expression.text)
    )
      lines.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

/** Every broken promise of the given test files (absolute paths), each naming its file from `root`. */
export function tierProblems(files: string[], root: string): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const name = relative(root, file);
    if (!KNOWN_SUFFIX.test(name)) {
      problems.push(`${name}: not a tier's suffix (name.test.ts, name.sandbox.test.ts or name.e2e.test.ts)`);
      continue;
    }
    const tier = tierOf(name);
    const source = parse(file);
    if (tier === 'unit') {
      for (const why of forbiddenImports(file, root))
        problems.push(`${name}: a unit test ${why} (name it .sandbox.test.ts or .e2e.test.ts)`);
      for (const line of realTimers(source))
        problems.push(`${name}:${line}: a unit test waits on a real timer (use jest's fake timers)`);
    }
    if (tier !== 'e2e')
      for (const line of durationAssertions(source))
        problems.push(`${name}:${line}: asserts a wall-clock duration outside the e2e tier`);
  }
  return problems;
}
