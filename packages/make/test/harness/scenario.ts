/**
 * Runs a Make scenario blueprint (the JSON Make exports and imports) the way Make runs it, as far as
 * Make documents it, and counts the operations Make would bill. The app's own modules run through the
 * module runtime (make-runtime.ts: parameters, IML, requests to a real sandbox, every app rule); Make's
 * built-in tools and the Google Sheets call are modelled here, each rule with its source. Stricter
 * than Make, never looser: anything the runner does not know (a module, a key Make does not read, a
 * filter operator, a function, a reference to a module that has not run) fails the run.
 *
 * The stable API (other suites and bench/sheet-make.ts build on it):
 *   runScenario(blueprint, env)              -> ScenarioRun, or throws ScenarioError (run stopped)
 *   resumeScenario(blueprint, env, stopped)  -> ScenarioRun of Make resuming an incomplete execution
 *   checkBlueprint(blueprint)                -> the problems Make's own blueprint checks find ([] = none)
 *   loadBlueprint(path), appModulePrefix(), MAKE_MODULES, SCENARIO_TIMEOUT_MS
 *
 * Make's references read here (the "references" below):
 *   [aggregators.md]  integromat/make-skills skills/make-module-configuring/aggregators.md
 *   [aggregations.md] integromat/make-skills skills/make-scenario-building/aggregations.md
 *   [construction.md] integromat/make-skills skills/make-scenario-building/blueprint-construction.md
 *   [iterations.md]   integromat/make-skills skills/make-scenario-building/iterations.md
 *   [errors.md]       integromat/make-skills skills/make-scenario-building/error-handling.md
 *   [validate.mjs]    integromat/make-blueprints scripts/validate.mjs at de846e3 (its checks
 *                     rewritten in checkBlueprint, with the one mapping stated there)
 *   [iterator-aggregator] integromat/make-blueprints patterns/iterator-aggregator/blueprint.json
 *
 * Rules:
 * - Keys: a module holds id, module, version, parameters, mapper, filter, metadata, and for an
 *   aggregator flags [construction.md, aggregators.md]; any other key, and any parameter, mapper or
 *   flag key not listed for its module in MAKE_MODULES, is refused (Make would ignore it).
 * - Bundles: a module runs once per bundle it receives and hands each output bundle on; the first
 *   module and a search run are one operation however many bundles they emit; an aggregator is "one
 *   operation per set of bundles" (https://help.make.com/operations).
 * - Filters sit on the link before a module, hold OR-ed groups of AND-ed conditions and cost nothing
 *   [construction.md, Filter Conditions]. Only the operators below are known here.
 * - Iterator (`builtin:BasicFeeder`): one bundle per array item [iterations.md]; Repeater
 *   (`builtin:BasicRepeater`): bundles with i = Initial value, + Step, Repeats times [aggregators.md,
 *   its example's Repeater].
 * - Array aggregator (`builtin:BasicAggregator`): `parameters` hold `feeder` (and `target`), `flags`
 *   hold `groupBy` and `stopIfEmpty` [aggregators.md, Configuration Structure]; it collects the
 *   bundles of one run of its feeder and outputs one bundle, or one per distinct Group by value; the
 *   bundles between feeder and aggregator are not available after it [aggregators.md, Gotchas]. An
 *   empty aggregation without `stopIfEmpty: true` is where the references disagree (aggregators.md:
 *   "produces nothing by default"; aggregations.md: "outputs an empty result bundle"): the runner
 *   refuses it, stricter than either.
 * - Transform to JSON (`json:TransformToJSON`): one bundle with `json` (https://apps.make.com/json).
 * - Google Sheets, Make an API Call (`google-sheets:makeAPICall`): one request to the Sheets API
 *   (scenario-sheets.ts holds Google's limits); a status of 400 or more stops the run.
 * - A module that fails stops the run [errors.md: without a handler the run stops]. ScenarioError
 *   carries the failed module and the bundles that reached it; resumeScenario continues from there
 *   with those bundles alone, as Make resolves an incomplete execution (it "stores incomplete
 *   execution, enables automatic or manual retry later" [errors.md, Break]; Make retries
 *   RateLimitError and ConnectionError by itself, make-rules.ts RETRIED_BY_MAKE). Aggregators past
 *   the failed module whose feeder ran before it collect only the resumed bundles. The blueprints
 *   attach no error handler; tests run each failure both ways (resumed, and the scenario run again
 *   from its trigger), since which one a user meets depends on account settings the references do
 *   not show.
 * - Every module must answer within 40 s (the harness's MODULE_TIMEOUT_MS) and the whole run within
 *   40 minutes (https://help.make.com/types-of-warnings, ExecutionInterruptedError: "runs for more than
 *   40 minutes").
 */
import { readFileSync } from 'node:fs';
import { components, readJsonc } from './app-files';
import { MakeModuleError, runModule, type MakeConnection, type SentRequest } from './make-runtime';
import { asSpecs, allFieldNames } from './make-params';
import { MODULE_TIMEOUT_MS } from './make-rules';
import { evaluateMapping, type BundleContext } from './scenario-iml';
import { SheetsApiError, type SheetModel } from './scenario-sheets';

export const SCENARIO_TIMEOUT_MS = 40 * 60 * 1000;

export interface FilterCondition {
  a: string;
  o: string;
  b?: string;
}

export interface BlueprintModule {
  id: number;
  module: string;
  version: number;
  parameters?: Record<string, unknown>;
  mapper?: Record<string, unknown>;
  flags?: Record<string, unknown>;
  filter?: { name: string; conditions: FilterCondition[][] };
  metadata?: unknown;
}

export interface Blueprint {
  name: string;
  description?: string;
  flow: BlueprintModule[];
  metadata: {
    instant?: boolean;
    version: number;
    scenario: Record<string, unknown>;
    designer?: { orphans?: unknown[] };
  };
}

export interface ScenarioRun {
  /** Operations as Make bills them. */
  operations: number;
  /** Operations per module id. */
  byModule: Record<number, number>;
  /** Module time as Make counts it (requests plus declared waits), summed over the run. */
  makeTimeMs: number;
  /** Every request the app's modules sent to the service. */
  serviceRequests: SentRequest[];
  /** Requests to the Sheets API. */
  sheetsRequests: number;
}

/** Make's error type for the failure: the app's own, or the Sheets API status read as Make's app would. */
export type StoppedBy = { type: string; status?: number };

/**
 * The run stopped on an error, as Make's would; `run` holds what had happened until then, `at` the
 * failed module's place in the flow and the bundles that reached it (what an incomplete execution keeps).
 */
export class ScenarioError extends Error {
  constructor(
    message: string,
    readonly run: ScenarioRun,
    readonly moduleId: number,
    override readonly cause?: unknown,
    readonly at?: { index: number; ctx: BundleContext },
    readonly stoppedBy?: StoppedBy,
  ) {
    super(message);
    this.name = 'ScenarioError';
  }
}

export interface ScenarioEnv {
  connection: MakeConnection;
  sheets: SheetModel;
  /** For a scenario that starts with an instant trigger: the webhook's output bundle. */
  webhookBundle?: unknown;
}

export function loadBlueprint(path: string): Blueprint {
  return JSON.parse(readFileSync(path, 'utf8')) as Blueprint;
}

/**
 * The custom app's module id prefix in a blueprint: "app#<app id>:" (origins[0] of makecomapp.json).
 * The shipped blueprints carry APP_ID_PLACEHOLDER instead, which the deploy replaces with the ID Make
 * gave the app; the runner reads either.
 */
export function appModulePrefix(): string {
  const origins = (readJsonc('makecomapp.json') as unknown as { origins: { appId: string }[] }).origins;
  return `app#${origins[0]!.appId}:`;
}
export const APP_ID_PLACEHOLDER = 'your-app-id';
const PLACEHOLDER_PREFIX = `app#${APP_ID_PLACEHOLDER}:`;

interface MakeModule {
  version: number;
  parameters: readonly string[];
  /** Mapper keys, or 'any' for an aggregator's own fields (the names become the array items' keys). */
  mapper: readonly string[] | 'any';
  flags?: readonly string[];
  /** The reference that shows the module with this id, version and keys; or why none does. */
  source: string;
}

/**
 * Make's modules the examples use, with the keys Make reads. Where Make's references show the module
 * the keys are theirs; where they do not (the Google Sheets and JSON modules appear in none of
 * make-skills or make-blueprints), the keys are the ones the module's editor fields show, and the
 * README's live-account table says what to confirm.
 */
export const MAKE_MODULES: Readonly<Record<string, MakeModule>> = {
  'builtin:BasicFeeder': {
    version: 1,
    parameters: [],
    mapper: ['array'],
    source: 'make-blueprints patterns/iterator-aggregator/blueprint.json; make-skills iterations.md',
  },
  'builtin:BasicRepeater': {
    version: 1,
    parameters: [],
    mapper: ['start', 'repeats', 'step'],
    source: 'make-skills aggregators.md, its Blueprint Example (module 3)',
  },
  'builtin:BasicAggregator': {
    version: 1,
    parameters: ['feeder', 'target'],
    mapper: 'any',
    flags: ['groupBy', 'stopIfEmpty'],
    source: 'make-skills aggregators.md, Configuration Structure (Parameters, Flags)',
  },
  'json:TransformToJSON': {
    version: 1,
    parameters: ['space'],
    mapper: ['object'],
    source: 'not in make-skills or make-blueprints: confirm on a live account (README)',
  },
  'google-sheets:makeAPICall': {
    version: 2,
    parameters: [],
    mapper: ['url', 'method', 'headers', 'qs', 'body'],
    source: 'not in make-skills or make-blueprints: confirm on a live account (README)',
  },
};
export const KNOWN_MAKE_MODULES: readonly string[] = Object.keys(MAKE_MODULES);
const MODULE_KEYS = ['id', 'module', 'version', 'parameters', 'mapper', 'flags', 'filter', 'metadata'];

const BUILTIN = {
  iterator: 'builtin:BasicFeeder',
  repeater: 'builtin:BasicRepeater',
  aggregator: 'builtin:BasicAggregator',
  toJson: 'json:TransformToJSON',
  sheetsCall: 'google-sheets:makeAPICall',
} as const;

/** The app's module id a blueprint names, or undefined for one of Make's. */
export function appModuleId(module: string): string | undefined {
  for (const prefix of [appModulePrefix(), PLACEHOLDER_PREFIX])
    if (module.startsWith(prefix)) return module.slice(prefix.length);
  return undefined;
}

function appModuleFields(id: string): string[] | undefined {
  const meta = components('module').find(([name]) => name === id)?.[1];
  if (!meta) return undefined;
  return [meta.codeFiles.staticParams, meta.codeFiles.mappableParams]
    .filter((f): f is string => !!f)
    .flatMap((f) => allFieldNames(asSpecs(readJsonc(f))));
}

/** Keys Make does not read, in one module: what the runner refuses before it runs anything. */
function unreadKeys(m: BlueprintModule): string[] {
  const out = Object.keys(m)
    .filter((k) => !MODULE_KEYS.includes(k))
    .map((k) => `module ${m.id}: "${k}" is not a module key Make reads`);
  const appId = appModuleId(m.module);
  if (appId !== undefined) {
    const fields = appModuleFields(appId);
    if (!fields) return [...out, `module ${m.id}: the app has no module ${appId}`];
    for (const k of Object.keys(m.mapper ?? {}))
      if (!fields.includes(k)) out.push(`module ${m.id}: ${appId} has no field "${k}"`);
    for (const k of Object.keys(m.parameters ?? {}))
      out.push(
        `module ${m.id}: parameters.${k}: the app's fields go in mapper; connections are picked after import`,
      );
    if (m.flags !== undefined) out.push(`module ${m.id}: flags belong to aggregators`);
    return out;
  }
  const known = MAKE_MODULES[m.module];
  if (!known) return [...out, `module ${m.id}: ${m.module} is not a module the scenario runner knows`];
  if (m.version !== known.version)
    out.push(
      `module ${m.id}: ${m.module} is version ${known.version} in Make's references, not ${m.version}`,
    );
  for (const k of Object.keys(m.parameters ?? {}))
    if (!known.parameters.includes(k))
      out.push(`module ${m.id}: ${m.module} does not read parameters.${k} (${known.source})`);
  if (known.mapper !== 'any')
    for (const k of Object.keys(m.mapper ?? {}))
      if (!known.mapper.includes(k)) out.push(`module ${m.id}: ${m.module} does not read mapper.${k}`);
  for (const k of Object.keys(m.flags ?? {}))
    if (!(known.flags ?? []).includes(k))
      out.push(`module ${m.id}: ${m.module} does not read flags.${k} (${known.source})`);
  return out;
}

/**
 * Make's blueprint checker, integromat/make-blueprints `scripts/validate.mjs` at commit
 * de846e32770ef1c1360d3bad3353daa01d4b6997 (read 2026-11-28). It could not be run here: no copy of
 * that repository can be had offline, and nothing of it is vendored. Its per-blueprint checks are
 * rewritten below, one for one, with the same patterns and lists:
 * - top-level keys only name, description, flow, metadata; name 1-120 characters; a non-empty flow;
 *   metadata.version 1; metadata.scenario an object; metadata.designer.orphans an array;
 * - per module: a whole-number id from 1, never twice; `module` matching MAKE_MODULE_ID; never
 *   placeholder:Placeholder; a whole-number version from 1; none of FORBIDDEN_PARAMETERS under
 *   parameters; none of FORBIDDEN_MODULE_METADATA under metadata, and metadata.designer x and y
 *   numbers; no filter on the first module; an aggregator's parameters.feeder a whole number naming
 *   a module of the flow;
 * - every `{{N.` reference names a module of the flow; none of LEAKS in the blueprint's JSON.
 * Not rewritten, because nothing here can meet them: the router, if-else and merge rules (these
 * blueprints have none; the runner refuses any module it does not know) and the walk into routes
 * and error handlers (these flows are linear, with no handler); and the repository's bookkeeping
 * (a README and an index.json entry per pattern, INDEX.md in sync), which concerns its own folders.
 *
 * The one mapping: the checker knows public apps' `<app>:<module>`, while a custom app's module is
 * `app#<app ID>:<module>` in a blueprint, the custom app's ID after the `app#` mark. The checks read
 * it as Make's importer names the module, `<app ID>:<module>` (makeChecksRead), and nothing else
 * is widened.
 */
const FORBIDDEN_PARAMETERS = [
  '__IMTCONN__',
  '__IMTKEY__',
  'hook',
  'datastore',
  'agent',
  'apiKeyKeychain',
  'basicAuthKeychain',
  'oAuthAccount',
  'proxyKeychain',
  'bodyDataStructure',
];
const FORBIDDEN_MODULE_METADATA = ['restore', 'expect', 'interface', 'parameters', 'advanced'];
export const MAKE_MODULE_ID = /^[a-z][a-z0-9-]*:[A-Za-z0-9]+$/;
const LEAKS: [RegExp, string][] = [
  [/[A-Za-z0-9._%+-]+@(?!example\.com)[A-Za-z0-9.-]+\.[A-Za-z]{2,}/, 'non-example.com email address'],
  [/we\.make\.com|make\.atlassian\.net/, 'internal Make URL'],
  [/(?:api[_-]?key|bearer|token)["\s:=]+[A-Za-z0-9_-]{20,}/i, 'credential-looking string'],
];

/** A blueprint's module identifier as Make's checker reads it: `app#<app ID>:<m>` becomes `<app ID>:<m>`. */
export function makeChecksRead(module: string): string {
  return module.startsWith('app#') ? module.slice('app#'.length) : module;
}

/**
 * The checks of Make's blueprint checker (above), plus the runner's own key rule (unreadKeys).
 * Returns every problem found; a shipped blueprint must have none.
 */
export function checkBlueprint(bp: Blueprint): string[] {
  const problems: string[] = [];
  for (const k of Object.keys(bp))
    if (!['name', 'description', 'flow', 'metadata'].includes(k))
      problems.push(`unexpected top-level key "${k}"`);
  if (typeof bp.name !== 'string' || bp.name.length < 1 || bp.name.length > 120)
    problems.push('name must be a 1-120 character string');
  if (!Array.isArray(bp.flow) || bp.flow.length === 0) problems.push('flow must be a non-empty array');
  if (bp.metadata?.version !== 1) problems.push('metadata.version must be 1');
  if (typeof bp.metadata?.scenario !== 'object') problems.push('metadata.scenario is required');
  if (!Array.isArray(bp.metadata?.designer?.orphans)) problems.push('metadata.designer.orphans is required');
  const ids = new Set<number>();
  (bp.flow ?? []).forEach((m, i) => {
    const where = `module ${m.id}`;
    if (!Number.isInteger(m.id) || m.id < 1) problems.push(`${where}: module id must be an integer >= 1`);
    if (ids.has(m.id)) problems.push(`${where}: duplicate module id ${m.id}`);
    ids.add(m.id);
    const read = typeof m.module === 'string' ? makeChecksRead(m.module) : m.module;
    if (typeof read !== 'string' || !MAKE_MODULE_ID.test(read))
      problems.push(`${where}: invalid module identifier "${m.module}"`);
    if (m.module === 'placeholder:Placeholder')
      problems.push(`${where}: placeholder:Placeholder is not a real module`);
    if (!Number.isInteger(m.version) || m.version < 1)
      problems.push(`${where}: module version must be a positive integer`);
    for (const k of FORBIDDEN_PARAMETERS)
      if (m.parameters && k in m.parameters)
        problems.push(`${where}: parameters.${k} must be omitted; the user attaches it after import`);
    const meta = m.metadata as { designer?: { x?: unknown; y?: unknown } } | undefined;
    if (meta) {
      for (const k of Object.keys(meta))
        if (FORBIDDEN_MODULE_METADATA.includes(k))
          problems.push(`${where}: module metadata.${k} is exporter-only`);
      if (typeof meta.designer?.x !== 'number' || typeof meta.designer.y !== 'number')
        problems.push(`${where}: metadata.designer.x/y coordinates are required`);
    } else problems.push(`${where}: metadata.designer is required`);
    if (m.module === BUILTIN.aggregator && !Number.isInteger(m.parameters?.feeder))
      problems.push(`${where}: aggregator parameters.feeder must be a module id`);
    if (i === 0 && m.filter) problems.push(`${where}: the first module of a scenario must not have a filter`);
    problems.push(...unreadKeys(m));
  });
  for (const m of bp.flow ?? [])
    if (m.module === BUILTIN.aggregator && !ids.has(m.parameters?.feeder as number))
      problems.push(
        `module ${m.id}: aggregator feeder ${String(m.parameters?.feeder)} does not reference an existing module id`,
      );
  const raw = JSON.stringify(bp);
  for (const ref of raw.matchAll(/\{\{\s*`?(\d+)`?\s*[.}]/g))
    if (!ids.has(Number(ref[1])))
      problems.push(`IML reference {{${ref[1]}....}} points at a non-existent module id`);
  for (const [re, what] of LEAKS) {
    const hit = re.exec(raw);
    if (hit) problems.push(`possible leak (${what}): "${hit[0]}"`);
  }
  return problems;
}

function asText(v: unknown): string {
  return v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
}

const patterns = new Map<string, RegExp>();
function pattern(source: string): RegExp {
  let re = patterns.get(source);
  if (!re) patterns.set(source, (re = new RegExp(source)));
  return re;
}

/** Make's filter operators the blueprints use (https://help.make.com/filtering, Operators). */
function conditionHolds(c: FilterCondition, ctx: BundleContext): boolean {
  const a = asText(evaluateMapping(c.a, ctx));
  const b = asText(evaluateMapping(c.b ?? '', ctx));
  switch (c.o) {
    case 'text:equal':
      return a === b;
    case 'text:notequal':
      return a !== b;
    case 'text:pattern':
      return pattern(b).test(a);
    case 'text:notpattern':
      return !pattern(b).test(a);
    // Datetime "Later than" (same page): both sides read as dates; a side that is not a date makes
    // the condition false, never a guess.
    case 'date:greater': {
      const x = Date.parse(a);
      const y = Date.parse(b);
      return !Number.isNaN(x) && !Number.isNaN(y) && x > y;
    }
    case 'exist':
      return a !== '';
    case 'notexist':
      return a === '';
    default:
      throw new Error(`filter operator ${c.o} is not one the scenario runner knows`);
  }
}

interface Accumulator {
  groups: Map<string, unknown[]>;
}

function mapperList(v: unknown): Record<string, string> {
  if (v === undefined || v === '') return {};
  if (!Array.isArray(v)) throw new Error('qs and headers are lists of { key, value }');
  return Object.fromEntries(v.map((e: { key: unknown; value: unknown }) => [asText(e.key), asText(e.value)]));
}

/**
 * How Make's Google Sheets app types a Sheets API failure is not in Make's references; the runner takes
 * the HTTP meaning (429 a rate limit, 5xx the service unreachable for now) so tests can run the
 * automatic retry Make gives those types, and runs the other readings by rerunning from the trigger.
 */
function sheetsErrorType(status: number): string {
  return status === 429 ? 'RateLimitError' : status >= 500 ? 'ConnectionError' : 'RuntimeError';
}

class Runner {
  readonly run: ScenarioRun = {
    operations: 0,
    byModule: {},
    makeTimeMs: 0,
    serviceRequests: [],
    sheetsRequests: 0,
  };
  private readonly stacks = new Map<number, Accumulator[]>();

  constructor(
    private readonly bp: Blueprint,
    private readonly env: ScenarioEnv,
  ) {
    const unread = bp.flow.flatMap(unreadKeys);
    if (unread.length) throw new ScenarioError(`keys Make does not read: ${unread.join('; ')}`, this.run, 0);
  }

  private count(id: number, n = 1): void {
    this.run.operations += n;
    this.run.byModule[id] = (this.run.byModule[id] ?? 0) + n;
  }

  private spend(id: number, ms: number): void {
    if (ms > MODULE_TIMEOUT_MS)
      throw new ScenarioError(`module ${id} ran ${ms} ms, past Make's 40 s`, this.run, id);
    this.run.makeTimeMs += ms;
    if (this.run.makeTimeMs > SCENARIO_TIMEOUT_MS)
      throw new ScenarioError("the run passed Make's 40-minute limit", this.run, id);
  }

  async start(): Promise<ScenarioRun> {
    this.env.sheets.startRun();
    await this.process(0, {});
    return this.run;
  }

  /**
   * Make resolving an incomplete execution: the failed module runs again with the bundles that reached
   * it, and the flow goes on from there. Aggregators after it whose feeder ran before it collect what
   * this resumed path gives, and emit when it is done.
   */
  async resume(at: { index: number; ctx: BundleContext }): Promise<ScenarioRun> {
    this.env.sheets.startRun();
    const index = (id: number) => this.bp.flow.findIndex((m) => m.id === id);
    const open = this.bp.flow
      .map((a, j) => ({ a, j }))
      .filter(
        ({ a, j }) =>
          j > at.index && a.module === BUILTIN.aggregator && index(Number(a.parameters?.feeder)) < at.index,
      );
    for (const { a } of open) this.openAccumulator(a.id);
    await this.process(at.index, at.ctx);
    for (const { a, j } of open) {
      const feeder = index(Number(a.parameters?.feeder));
      const before = Object.fromEntries(
        Object.entries(at.ctx).filter(([id]) => index(Number(id)) < feeder),
      ) as BundleContext;
      await this.emit(a, j, before);
    }
    return this.run;
  }

  private passes(m: BlueprintModule, ctx: BundleContext): boolean {
    if (!m.filter) return true;
    return m.filter.conditions.some((group) => group.every((c) => conditionHolds(c, ctx)));
  }

  private async process(i: number, ctx: BundleContext): Promise<void> {
    const m = this.bp.flow[i];
    if (!m || !this.passes(m, ctx)) return;
    if (m.module === BUILTIN.aggregator) {
      const acc = this.stacks.get(m.id)?.at(-1);
      if (!acc)
        throw new ScenarioError(
          `aggregator ${m.id} got a bundle outside its source module's run`,
          this.run,
          m.id,
        );
      const groupBy = m.flags?.groupBy;
      const key = groupBy === undefined ? '' : asText(evaluateMapping(groupBy, ctx));
      const item = evaluateMapping(m.mapper ?? {}, ctx);
      const list = acc.groups.get(key);
      if (list) list.push(item);
      else acc.groups.set(key, [item]);
      return;
    }
    let outputs: Record<string, unknown>[];
    try {
      outputs = await this.runModule(m, ctx, i === 0);
    } catch (err) {
      if (err instanceof ScenarioError) throw err;
      const stoppedBy =
        err instanceof MakeModuleError
          ? { type: err.type, status: err.statusCode }
          : err instanceof SheetsApiError
            ? { type: sheetsErrorType(err.status), status: err.status }
            : undefined;
      const text =
        err instanceof SheetsApiError
          ? `Google Sheets answered ${err.status}: ${err.message}`
          : err instanceof MakeModuleError
            ? `${err.type}: ${err.message}`
            : (err as Error).message;
      throw new ScenarioError(
        `module ${m.id} (${m.module}): ${text}`,
        this.run,
        m.id,
        err,
        { index: i, ctx },
        stoppedBy,
      );
    }
    await this.fanOut(i, ctx, outputs);
  }

  private openAccumulator(id: number): void {
    const stack = this.stacks.get(id) ?? [];
    stack.push({ groups: new Map() });
    this.stacks.set(id, stack);
  }

  /** Hands a module's bundles on; the aggregators it feeds collect them and emit when it is done. */
  private async fanOut(i: number, ctx: BundleContext, outputs: Record<string, unknown>[]): Promise<void> {
    const m = this.bp.flow[i]!;
    const fed = this.bp.flow
      .map((a, j) => ({ a, j }))
      .filter(
        ({ a, j }) => j > i && a.module === BUILTIN.aggregator && Number(a.parameters?.feeder) === m.id,
      );
    for (const { a } of fed) this.openAccumulator(a.id);
    for (const out of outputs) await this.process(i + 1, { ...ctx, [m.id]: out });
    for (const { a, j } of fed) await this.emit(a, j, ctx);
  }

  private async emit(a: BlueprintModule, j: number, ctx: BundleContext): Promise<void> {
    const acc = this.stacks.get(a.id)!.pop()!;
    const grouped = a.flags?.groupBy !== undefined;
    const bundles = [...acc.groups.entries()].map(([key, array]) =>
      grouped ? { key, array } : { array, __IMTAGGLENGTH__: array.length },
    );
    if (bundles.length === 0) {
      if (a.flags?.stopIfEmpty === true) return;
      if (!grouped)
        throw new ScenarioError(
          `aggregator ${a.id} aggregated nothing without stopIfEmpty: Make's references disagree on what it ` +
            'emits then (aggregators.md: nothing; aggregations.md: an empty bundle); set flags.stopIfEmpty',
          this.run,
          a.id,
        );
    }
    this.count(a.id, bundles.length);
    await this.fanOut(j, ctx, bundles);
  }

  private async runModule(
    m: BlueprintModule,
    ctx: BundleContext,
    first: boolean,
  ): Promise<Record<string, unknown>[]> {
    const input = evaluateMapping(m.mapper ?? {}, ctx) as Record<string, unknown>;
    const started = Date.now();
    const appId = appModuleId(m.module);
    if (appId !== undefined) return this.runAppModule(m, appId, input, first);
    let out: Record<string, unknown>[];
    switch (m.module) {
      case BUILTIN.repeater: {
        const start = Number(input.start ?? 1);
        const repeats = Number(input.repeats);
        const step = Number(input.step ?? 1);
        if (!Number.isInteger(repeats) || repeats < 1)
          throw new Error(`Repeats must be a whole number of at least 1, got ${asText(input.repeats)}`);
        out = Array.from({ length: repeats }, (_, k) => ({ i: start + k * step }));
        break;
      }
      case BUILTIN.iterator: {
        if (!Array.isArray(input.array))
          throw new Error(`Array is not an array: ${asText(input.array).slice(0, 80)}`);
        const n = input.array.length;
        out = input.array.map((item, k) => ({
          ...(item && typeof item === 'object' && !Array.isArray(item) ? item : { value: item }),
          __IMTINDEX__: k + 1,
          __IMTLENGTH__: n,
        }));
        break;
      }
      case BUILTIN.toJson:
        out = [{ json: JSON.stringify(input.object) }];
        break;
      case BUILTIN.sheetsCall: {
        this.run.sheetsRequests += 1;
        const answer = this.env.sheets.handle({
          method: asText(input.method || 'GET').toUpperCase(),
          url: asText(input.url),
          qs: mapperList(input.qs),
          body: input.body === undefined || input.body === '' ? undefined : asText(input.body),
        });
        out = [{ statusCode: answer.statusCode, headers: {}, body: answer.body }];
        break;
      }
      default:
        throw new Error(`${m.module} is not a module the scenario runner knows`);
    }
    this.count(m.id);
    this.spend(m.id, Date.now() - started);
    return out;
  }

  private async runAppModule(
    m: BlueprintModule,
    id: string,
    input: Record<string, unknown>,
    first: boolean,
  ): Promise<Record<string, unknown>[]> {
    const meta = components('module').find(([name]) => name === id)?.[1];
    if (!meta) throw new Error(`the app has no module ${id}`);
    let result;
    if (meta.moduleType === 'instant_trigger') {
      if (!first) throw new Error(`${id} is an instant trigger: it can only start a scenario`);
      if (this.env.webhookBundle === undefined) throw new Error(`${id} needs a webhook delivery to start`);
      result = await runModule(id, input, this.env.connection, { payload: this.env.webhookBundle });
    } else result = await runModule(id, input, this.env.connection);
    this.run.serviceRequests.push(...result.requests);
    this.count(m.id);
    this.spend(m.id, result.makeTimeMs);
    return result.bundles as Record<string, unknown>[];
  }
}

/** Runs one scenario run of a blueprint. Throws ScenarioError when the run stops on an error. */
export async function runScenario(bp: Blueprint, env: ScenarioEnv): Promise<ScenarioRun> {
  return new Runner(bp, env).start();
}

/**
 * Make resolving the incomplete execution `stopped` left (automatically for RateLimitError and
 * ConnectionError, or when the user retries it): the failed module again with its bundles, then the
 * rest of the flow. Throws ScenarioError when the resumed run stops again.
 */
export async function resumeScenario(
  bp: Blueprint,
  env: ScenarioEnv,
  stopped: ScenarioError,
): Promise<ScenarioRun> {
  if (!stopped.at)
    throw new Error('this stop left no incomplete execution to resume (it stopped before any module ran)');
  return new Runner(bp, env).resume(stopped.at);
}
