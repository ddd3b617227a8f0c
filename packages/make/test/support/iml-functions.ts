/**
 * Runs the app's custom IML functions the way Make does: each function's code in a separate context
 * that has only JavaScript's built-ins and Buffer, with every custom function reachable as iml.<name>,
 * and the *.test.js files with the globals Make's IML test runner gives them (it, assert, iml).
 */
import * as assert from 'node:assert';
import * as vm from 'node:vm';
import { components, readText } from './app-files';
import type { ImlFunction } from './iml';

export interface TestOutcome {
  name: string;
  passed: boolean;
  error?: string;
}

function makeContext(extra: Record<string, unknown> = {}): vm.Context {
  const iml: Record<string, ImlFunction> = {};
  const context = vm.createContext({ Buffer, iml, environment: { timezone: 'UTC' }, ...extra });
  for (const [name, meta] of components('function')) {
    const code = readText(meta.codeFiles.code!);
    iml[name] = vm.runInContext(
      `(function () { var fn = (${code}); return function () { return fn.apply({ timezone: environment.timezone }, arguments); }; })()`,
      context,
      { filename: meta.codeFiles.code!, timeout: 2000 },
    ) as ImlFunction;
  }
  return context;
}

/** The custom functions, callable from the tests and from the IML evaluator. */
export function loadImlFunctions(): Record<string, ImlFunction> {
  return { ...(makeContext().iml as Record<string, ImlFunction>) };
}

/** Runs one function's *.test.js as Make's runner does and reports every `it` block. */
export function runFunctionTests(functionName: string, testCode?: string): TestOutcome[] {
  const meta = components('function').find(([name]) => name === functionName)?.[1];
  if (!meta?.codeFiles.test) throw new Error(`No test file for ${functionName}`);
  const outcomes: TestOutcome[] = [];
  const context = makeContext({
    assert,
    it: (name: string, body: () => void) => {
      try {
        body();
        outcomes.push({ name, passed: true });
      } catch (err) {
        outcomes.push({ name, passed: false, error: String(err) });
      }
    },
  });
  vm.runInContext(`const ${functionName} = iml.${functionName};`, context, { timeout: 1000 });
  vm.runInContext(testCode ?? readText(meta.codeFiles.test), context, { filename: meta.codeFiles.test, timeout: 5000 });
  return outcomes;
}
