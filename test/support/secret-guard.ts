/**
 * Fails a test when an API key or a webhook signing secret shows up in anything it printed, or in an
 * error or output it hands to a user. Two nets:
 * - exact values registered with registerSecret (the sandbox makes random keys and secrets; the
 *   helpers in ./sandbox register each one as it is made);
 * - the shapes of keys and secrets (evf_ or whsec_ followed by 16 or more token characters), so a
 *   value nobody registered is caught too.
 * Findings never repeat the secret: they give its prefix, length and where it was seen, because the
 * failure message itself is printed.
 *
 * Whole run: jest.config.js `setupFilesAfterEnv: ['<rootDir>/test/support/secret-guard.setup.ts']`.
 * One suite: call installSecretGuard() at the top of the test file (installing twice is harmless).
 */
import { format } from 'node:util';

const REGISTRY_KEY = Symbol.for('evf.secret-guard.registry');
const INSTALLED_KEY = Symbol.for('evf.secret-guard.installed');

type GlobalWithGuard = typeof globalThis & { [REGISTRY_KEY]?: Set<string>; [INSTALLED_KEY]?: boolean };

/** Shared through globalThis so the setup file and the suites see one registry whatever module copy they load. */
function registry(): Set<string> {
  const g = globalThis as GlobalWithGuard;
  return (g[REGISTRY_KEY] ??= new Set<string>());
}

/** Shapes of the service's credentials: long enough that prose such as "keys start with evf_" is not one. */
export const SECRET_SHAPES: readonly RegExp[] = [/evf_[A-Za-z0-9_-]{16,}/g, /whsec_[A-Za-z0-9_-]{16,}/g];

export function registerSecret(value: string | undefined | null): void {
  if (typeof value === 'string' && value.length >= 8) registry().add(value);
}

export interface SecretFinding {
  /** Where the text came from: stdout, stderr, console.log, an error's message, ... */
  where: string;
  /** A safe description: the prefix and length, never the value. */
  what: string;
  offset: number;
}

function describeSecret(value: string): string {
  const prefix = value.startsWith('whsec_')
    ? 'whsec_'
    : value.startsWith('evf_')
      ? 'evf_'
      : value.slice(0, 3);
  return `${prefix}… (${value.length} characters)`;
}

/** Every registered value or credential-shaped token in `text`. */
export function findSecrets(text: string, where = 'text'): SecretFinding[] {
  const found: SecretFinding[] = [];
  const seen = new Set<number>();
  for (const value of registry()) {
    for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) {
      seen.add(at);
      found.push({ where, what: describeSecret(value), offset: at });
    }
  }
  for (const shape of SECRET_SHAPES) {
    for (const m of text.matchAll(shape)) {
      if (seen.has(m.index!)) continue;
      found.push({ where, what: describeSecret(m[0]), offset: m.index! });
    }
  }
  return found;
}

/**
 * Every string reachable from `value` (an error with its message, stack, cause and fields; an output
 * object; an array), paired with where it was found. Cycles and functions are skipped.
 */
export function collectStrings(
  value: unknown,
  where = 'value',
  depth = 0,
  seen = new WeakSet<object>(),
): Array<[string, string]> {
  if (typeof value === 'string') return [[where, value]];
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return [];
  if (value === null || value === undefined || typeof value !== 'object' || depth > 8) return [];
  if (seen.has(value)) return [];
  seen.add(value);
  const out: Array<[string, string]> = [];
  if (value instanceof Error) {
    out.push([`${where}.message`, value.message], [`${where}.stack`, value.stack ?? '']);
    if (value.cause !== undefined)
      out.push(...collectStrings(value.cause, `${where}.cause`, depth + 1, seen));
  }
  if (value instanceof Uint8Array) return [[where, Buffer.from(value).toString('utf8')]];
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  for (const [k, v] of entries) out.push(...collectStrings(v, `${where}.${String(k)}`, depth + 1, seen));
  return out;
}

/** Secrets anywhere in an error, an output object or a string. */
export function scanForSecrets(value: unknown, where = 'value'): SecretFinding[] {
  return collectStrings(value, where).flatMap(([w, text]) => findSecrets(text, w));
}

export function formatFindings(findings: readonly SecretFinding[]): string {
  return findings.map((f) => `  ${f.what} in ${f.where} at offset ${f.offset}`).join('\n');
}

/** Throws (without repeating the secret) when `value` holds an API key or signing secret. */
export function assertNoSecrets(value: unknown, where = 'value'): void {
  const findings = scanForSecrets(value, where);
  if (findings.length) throw new Error(`A secret leaked into ${where}:\n${formatFindings(findings)}`);
}

type Writer = (chunk: unknown, ...rest: unknown[]) => boolean;
const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir'] as const;

/** Captures console and process.stdout/stderr output between start() and stop(). */
export class OutputCapture {
  private chunks: Array<[string, string]> = [];
  private restore: Array<() => void> = [];

  start(): void {
    if (this.restore.length) return;
    for (const stream of ['stdout', 'stderr'] as const) {
      const target = process[stream] as unknown as { write: Writer };
      const original = target.write;
      target.write = (chunk: unknown, ...rest: unknown[]) => {
        this.chunks.push([
          stream,
          typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk),
        ]);
        return original.call(target, chunk, ...rest);
      };
      this.restore.push(() => (target.write = original));
    }
    const con = console as unknown as Record<string, (...args: unknown[]) => void>;
    for (const method of CONSOLE_METHODS) {
      const original = con[method];
      if (typeof original !== 'function') continue;
      con[method] = (...args: unknown[]) => {
        this.chunks.push([`console.${method}`, format(...args)]);
        return original.apply(console, args);
      };
      this.restore.push(() => (con[method] = original));
    }
  }

  /** The text captured since the last take(), with where it went. */
  take(): Array<[string, string]> {
    const out = this.chunks;
    this.chunks = [];
    return out;
  }

  stop(): void {
    for (const undo of this.restore.reverse()) undo();
    this.restore = [];
  }
}

type HookFn = (...args: unknown[]) => unknown;
type HookRegistrar = (fn: HookFn, timeout?: number) => void;
type StreamWithCapture = { [ACTIVE_CAPTURE_KEY]?: OutputCapture };
const ACTIVE_CAPTURE_KEY = Symbol.for('evf.secret-guard.active-capture');

/** Runs a jest hook written either way: returning a promise, or taking a done callback. */
function runHook(fn: HookFn, self: unknown): Promise<unknown> {
  if (fn.length === 0) return Promise.resolve(fn.call(self));
  return new Promise((resolve, reject) => {
    fn.call(self, (err?: unknown) =>
      err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(undefined),
    );
  });
}

/**
 * Registers jest hooks: capture from the start of the file; after each test, fail it if anything
 * printed during it holds a secret; the same after every afterAll hook.
 *
 * jest runs a block's afterAll hooks in the order they were declared, so one declared here (before the
 * suite's own) would miss what the suite's afterAll hooks print. Instead every afterAll the suite
 * declares is followed by a check, and the stream capture stays on after the file: the next file
 * installing the guard in the same worker stops it.
 */
export function installSecretGuard(): void {
  const g = globalThis as GlobalWithGuard;
  if (g[INSTALLED_KEY]) return;
  g[INSTALLED_KEY] = true;
  const stream = process.stdout as unknown as StreamWithCapture;
  stream[ACTIVE_CAPTURE_KEY]?.stop();
  const capture = new OutputCapture();
  stream[ACTIVE_CAPTURE_KEY] = capture;
  const check = (when: string): void => {
    const findings = capture.take().flatMap(([where, text]) => findSecrets(text, where));
    if (findings.length)
      throw new Error(
        `Secret guard: an API key or signing secret was printed ${when}:\n${formatFindings(findings)}`,
      );
  };
  capture.start();
  beforeEach(() => check('before this test (in a hook or at load time)'));
  afterEach(() => check('during this test'));
  const hooks = globalThis as unknown as { afterAll: HookRegistrar };
  const declareAfterAll = hooks.afterAll;
  declareAfterAll(() => check('after the last test'));
  hooks.afterAll = (fn, timeout) =>
    declareAfterAll(async function (this: unknown) {
      try {
        await runHook(fn, this);
      } finally {
        check('in an afterAll hook');
      }
    }, timeout);
}
