/**
 * Runs a Make scenario blueprint (the JSON Make exports and imports) the way Make runs it, as far as
 * Make documents it, and counts the operations Make would bill. The app's own modules run through the
 * existing harness (make-runtime.ts: parameters, IML, requests to a real sandbox, every app rule);
 * Make's built-in tools and the Google Sheets call are modelled here, each rule with its source.
 * Stricter than Make, never looser: anything the runner does not know (a module, a filter operator, a
 * function, a reference to a module that has not run) fails the run.
 *
 * Rules:
 * - Bundles: a module runs once per bundle it receives and hands each output bundle on; the first
 *   module and a search run are one operation however many bundles they emit; an aggregator is "one
 *   operation per set of bundles" (https://help.make.com/operations;
 *   https://www.make.com/en/help/scenarios/counting-the-number-of-operations.html).
 * - Filters sit on the link before a module, hold OR-ed groups of AND-ed conditions and cost nothing
 *   (the operators: "Exists", "Equal to", "Matches pattern" ... in Make's filtering page; free, as
 *   counted in /work/shared/DESIGN.md's billing note). Only the operators below are known here.
 * - Iterator (`builtin:BasicFeeder`): one bundle per array item; Repeater (`builtin:BasicRepeater`):
 *   bundles with i = Initial value, + Step, Repeats times
 *   (https://www.make.com/en/help/tools/flow-control).
 * - Array aggregator (`builtin:BasicAggregator`): "accumulates all the bundles it receives (during a
 *   single source module's operation)" and "outputs a single bundle", or one per distinct Group by
 *   value; bundles of the modules between the source and the aggregator are not available after it
 *   (https://help.make.com/aggregator).
 * - Transform to JSON (`json:TransformToJSON`): one bundle with `json` (https://apps.make.com/json).
 * - Google Sheets, Make an API Call (`google-sheets:makeAPICall`): one request to the Sheets API
 *   (scenario-sheets.ts holds Google's limits); a status of 400 or more stops the run.
 * - A module that fails stops the run: the blueprints attach no error handler, and the runner treats
 *   every error as ending the run (stricter than Make's retries of some error types).
 * - Every module must answer within 40 s (the harness's MODULE_TIMEOUT_MS) and the whole run within
 *   40 minutes (https://help.make.com/types-of-warnings, ExecutionInterruptedError: "runs for more than
 *   40 minutes").
 */
import { readFileSync } from 'node:fs';
import { components, readJsonc } from './app-files';
import { MakeModuleError, runModule, type MakeConnection, type SentRequest } from './make-runtime';
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
  filter?: { name: string; conditions: FilterCondition[][] };
  metadata?: unknown;
}

export interface Blueprint {
  name: string;
  flow: BlueprintModule[];
  metadata: { instant: boolean; version: number; scenario: Record<string, unknown> };
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

/** The run stopped on an error, as Make's would; `run` holds what had happened until then. */
export class ScenarioError extends Error {
  constructor(
    message: string,
    readonly run: ScenarioRun,
    readonly moduleId: number,
    override readonly cause?: unknown,
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

/** The custom app's module id prefix in a blueprint: "app#<app name>:" (origins[0] of makecomapp.json). */
export function appModulePrefix(): string {
  const origins = (readJsonc('makecomapp.json') as unknown as { origins: { appId: string }[] }).origins;
  return `app#${origins[0]!.appId}:`;
}

const BUILTIN = {
  iterator: 'builtin:BasicFeeder',
  repeater: 'builtin:BasicRepeater',
  aggregator: 'builtin:BasicAggregator',
  toJson: 'json:TransformToJSON',
  sheetsCall: 'google-sheets:makeAPICall',
} as const;
export const KNOWN_MAKE_MODULES: readonly string[] = Object.values(BUILTIN);

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

class Runner {
  readonly run: ScenarioRun = {
    operations: 0,
    byModule: {},
    makeTimeMs: 0,
    serviceRequests: [],
    sheetsRequests: 0,
  };
  private readonly stacks = new Map<number, Accumulator[]>();
  private readonly prefix = appModulePrefix();

  constructor(
    private readonly bp: Blueprint,
    private readonly env: ScenarioEnv,
  ) {}

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
      const groupBy = m.parameters?.groupBy;
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
      throw new ScenarioError(`module ${m.id} (${m.module}): ${(err as Error).message}`, this.run, m.id, err);
    }
    await this.fanOut(i, ctx, outputs);
  }

  /** Hands a module's bundles on; the aggregators it feeds collect them and emit when it is done. */
  private async fanOut(i: number, ctx: BundleContext, outputs: Record<string, unknown>[]): Promise<void> {
    const m = this.bp.flow[i]!;
    const fed = this.bp.flow
      .map((a, j) => ({ a, j }))
      .filter(
        ({ a, j }) => j > i && a.module === BUILTIN.aggregator && Number(a.parameters?.feeder) === m.id,
      );
    for (const { a } of fed) {
      const stack = this.stacks.get(a.id) ?? [];
      stack.push({ groups: new Map() });
      this.stacks.set(a.id, stack);
    }
    for (const out of outputs) await this.process(i + 1, { ...ctx, [m.id]: out });
    for (const { a, j } of fed) {
      const acc = this.stacks.get(a.id)!.pop()!;
      const grouped = a.parameters?.groupBy !== undefined;
      let bundles = [...acc.groups.entries()].map(([key, array]) =>
        grouped ? { key, array } : { array, __IMTAGGLENGTH__: array.length },
      );
      if (bundles.length === 0) {
        if (a.parameters?.stopProcessingOnEmpty === true) continue;
        bundles = grouped ? [] : [{ array: [], __IMTAGGLENGTH__: 0 }];
      }
      this.count(a.id, bundles.length);
      await this.fanOut(j, ctx, bundles);
    }
  }

  private async runModule(
    m: BlueprintModule,
    ctx: BundleContext,
    first: boolean,
  ): Promise<Record<string, unknown>[]> {
    const input = evaluateMapping(m.mapper ?? {}, ctx) as Record<string, unknown>;
    const started = Date.now();
    if (m.module.startsWith(this.prefix)) return this.runAppModule(m, input, first);
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
        try {
          const answer = this.env.sheets.handle({
            method: asText(input.method || 'GET').toUpperCase(),
            url: asText(input.url),
            qs: mapperList(input.qs),
            body: input.body === undefined || input.body === '' ? undefined : asText(input.body),
          });
          this.run.sheetsRequests += 1;
          out = [{ statusCode: answer.statusCode, headers: {}, body: answer.body }];
        } catch (err) {
          this.run.sheetsRequests += 1;
          if (err instanceof SheetsApiError)
            throw new Error(`Google Sheets answered ${err.status}: ${err.message}`);
          throw err;
        }
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
    input: Record<string, unknown>,
    first: boolean,
  ): Promise<Record<string, unknown>[]> {
    const id = m.module.slice(this.prefix.length);
    const meta = components('module').find(([name]) => name === id)?.[1];
    if (!meta) throw new Error(`the app has no module ${id}`);
    const params = {
      ...Object.fromEntries(Object.entries(m.parameters ?? {}).filter(([k]) => !k.startsWith('__IMT'))),
      ...input,
    };
    let result;
    if (meta.moduleType === 'instant_trigger') {
      if (!first) throw new Error(`${id} is an instant trigger: it can only start a scenario`);
      if (this.env.webhookBundle === undefined) throw new Error(`${id} needs a webhook delivery to start`);
      result = await runModule(id, params, this.env.connection, { payload: this.env.webhookBundle });
    } else {
      try {
        result = await runModule(id, params, this.env.connection);
      } catch (err) {
        if (err instanceof MakeModuleError) throw new Error(`${err.type}: ${err.message}`);
        throw err;
      }
    }
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
