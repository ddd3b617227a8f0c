/**
 * Runs the app's components as Make does, as far as Make documents it, so each request and mapping
 * can meet a real server (the sandbox). Parameters are checked first, then the base and the module's
 * communication are merged and rendered, sent with fetch, and the response directives (error, temp,
 * iterate, output, limit, pagination, repeat, trigger) are applied. Every Make rule the app relies on
 * is enforced here (see make-rules.ts, each with its source); where Make is silent the harness is
 * stricter, never looser. A component that breaks a rule fails with MakeRuleError.
 *
 * The stable API (the suites in test/ and the scenario runner, scenario.ts, build on it):
 *   runModule(id, params, connection, options?)    -> RunResult { bundles, requests, makeTimeMs, ... }
 *   runModuleDef(def, params, connection, options?) the same for a component a test builds
 *   testConnection(connection)                     -> RunResult of the connection's test call
 *   runRpc(id, connection)                         -> RunResult of an RPC (the dropdowns)
 *   receiveWebhook(id, request)                    -> WebhookOutcome { status, bundle? }
 *   checkModule(def), checkBase(), checkConnection(), checkRpc(), checkWebhook(def): the static rules
 *   loadModule(id), loadWebhook(id), connectionParams(input)
 *   A failure the app types is a MakeModuleError { type, statusCode, typedByMake }.
 * The whole-sheet flows run through scenario.ts (Make's scenario runner) on the sheet model of
 * scenario-sheets.ts; scenario-sheet-flow.ts holds the example flow's steps.
 */
import { codeFile, components, makecomapp, readJsonc, type ComponentMeta, type Json } from './app-files';
import {
  evaluate,
  ImlError,
  type ImlScope,
  variablesReadBy,
  expressionsIn,
  parseExpression,
  referencesOf,
  BUILTIN_NAMES,
} from './iml';
import { forman, resolveNoListedJob } from './forman';
import { exchangeOnOwnConnection, ExchangeFailure, type Exchange } from './own-connection';
import { asSpecs, validateParameters, type ParamSpec } from './make-params';
import { formanPresent } from './schema-location';
import {
  EPOCH_LIMIT_MAX,
  ERROR_MESSAGE_MAX,
  ERROR_TYPES,
  MakeRuleError,
  RETRIED_BY_MAKE,
  MAX_REQUESTS_PER_RUN,
  MODULE_TIMEOUT_MS,
  PAGINATION_ITEM_LIMIT,
  REQUEST_ALLOWANCE_MS,
  RPC_MAX_REQUESTS,
  SCOPES,
  type ScopeName,
} from './make-rules';

/**
 * What a module runs with: the connection's one field (the key), and the service address the app
 * was deployed with (`baseUrl`), which the harness writes into the base and the connection's test
 * call in place of the placeholder exactly as the deploy does (deploy/service-address.ts).
 */
export interface MakeConnection {
  apiKey: string;
  baseUrl: string;
}

/** The app's common data as the deploy writes it: general/common.json as it is. */
const appCommon = (): Record<string, unknown> =>
  readJsonc(makecomapp.generalCodeFiles.common ?? 'general/common.json') as Record<string, unknown>;

/**
 * A connection's own common data (RULES.connectionOwnData). This app's connection declares none, and
 * the app's common data is never given to it, whatever the caller passes as the app's.
 */
const CONNECTION_COMMON: Record<string, unknown> = Object.freeze({});

export interface SentRequest {
  method: string;
  url: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

export class MakeModuleError extends Error {
  constructor(
    readonly type: string,
    message: string,
    /** 0 when no HTTP answer came (RULES.transportFailure). */
    readonly statusCode: number,
    /** True when Make, not the app's error directive, chose the type (RULES.transportFailure). */
    readonly typedByMake = false,
  ) {
    super(message);
    this.name = type;
  }
}

export interface Directive {
  url?: string;
  /** An instant trigger's bundle when it makes no request (its communication is optional). */
  output?: unknown;
  method?: string;
  headers?: Record<string, unknown>;
  qs?: Record<string, unknown>;
  body?: unknown;
  type?: string;
  temp?: Record<string, unknown>;
  condition?: unknown;
  repeat?: { condition: string; delay: number; limit: number };
  pagination?: { qs?: Record<string, unknown>; condition?: string; mergeWithParent?: boolean };
  response?: {
    error?: Record<string, unknown>;
    valid?: string | { condition: string; message?: string; type?: string };
    temp?: Record<string, unknown>;
    iterate?: string | { container: string; condition?: string };
    output?: unknown;
    limit?: number | string;
    metadata?: { type: string; value: string };
    trigger?: { type: string; order: string; id: string; date?: string };
  };
}

export type ModuleType = 'action' | 'search' | 'trigger' | 'instant_trigger' | 'universal' | 'responder';

/** A module as the harness runs it: the app's own, or a deliberately wrong one from a test. */
export interface ModuleDef {
  id: string;
  moduleType: ModuleType;
  communication: Directive | Directive[];
  params: ParamSpec[];
  epoch?: Directive;
}

export interface WebhookDef {
  id: string;
  communication: {
    respond?: { status?: unknown; body?: unknown; type?: string };
    condition?: unknown;
    output?: unknown;
    verification?: unknown;
  };
  params: ParamSpec[];
}

/** Where a polling trigger stopped last time (Make keeps this between runs). */
export interface TriggerState {
  id: string;
  date?: string;
}

export interface RunOptions {
  /**
   * Sleeps this long instead of repeat.delay, so tests against a time-scaled sandbox stay quick. The
   * declared delay is still counted against the module timeout.
   */
  repeatDelayMs?: number;
  /** For polling triggers: what Make remembered from the previous run. */
  triggerState?: TriggerState;
  /** For instant triggers: the webhook's output bundle. */
  payload?: unknown;
  now?: Date;
  /**
   * The app's common data, in place of general/common.json: lets a test give the app data that a
   * module may read and prove that the connection still never sees it (RULES.connectionOwnData).
   */
  appCommon?: Record<string, unknown>;
}

export interface RunResult {
  bundles: unknown[];
  requests: SentRequest[];
  /** For polling triggers: what Make would remember for the next run. */
  triggerState?: TriggerState;
  metadata?: string;
  /** Module time as Make would count it: real request time plus every declared repeat delay. */
  makeTimeMs: number;
}

interface Base extends Directive {
  baseUrl: string;
  timeout?: number;
  log?: { sanitize?: string[] };
}

/** The base as deployed to `deployedTo`; without it, as the file stands (for the static rules). */
const base = (deployedTo?: string): Base => readJsonc('general/base.iml.json', deployedTo) as unknown as Base;

// ---------------------------------------------------------------------------------------------------
// Static rules: checked on every component before it runs, and by the rule tests on every component.
// ---------------------------------------------------------------------------------------------------

function assertReads(value: unknown, scope: ScopeName, where: string): void {
  if (value === undefined) return;
  const allowed: readonly string[] = SCOPES[scope];
  for (const expr of expressionsIn(value)) {
    try {
      parseExpression(expr);
    } catch (err) {
      throw new MakeRuleError('directiveScope', `${where}: ${(err as Error).message}`);
    }
    for (const fn of referencesOf(expr).functions) {
      if (!BUILTIN_NAMES.includes(fn))
        throw new MakeRuleError(
          'noCustomFunctions',
          `${where}: calls ${fn}(), which is not a built-in Make function`,
        );
    }
  }
  for (const v of variablesReadBy(value)) {
    if (!allowed.includes(v)) {
      const rule =
        scope === 'repeatCondition' ? 'repeatScope' : scope === 'webhook' ? 'webhookScope' : 'directiveScope';
      throw new MakeRuleError(
        rule,
        `${where} reads "${v}", which Make does not give it (it may read: ${allowed.join(', ')})`,
      );
    }
  }
}

interface ErrorSpec {
  type?: string;
  message?: string;
}

/** The status keys (e.g. "401") an error directive names. */
function errorStatuses(error: Record<string, unknown> | undefined): string[] {
  return Object.keys(error ?? {}).filter((k) => /^[0-9]{3}$/.test(k));
}

/** RULES.errorType, RULES.errorMessageLength and, for a module below the base, RULES.errorMerge. */
function checkErrorDirective(
  error: Record<string, unknown> | undefined,
  where: string,
  baseError?: Record<string, unknown>,
): void {
  if (!error) return;
  const specs: [string, ErrorSpec][] = [
    ['default', error as ErrorSpec],
    ...errorStatuses(error).map((k) => [k, error[k] as ErrorSpec] as [string, ErrorSpec]),
  ];
  for (const [key, spec] of specs) {
    if (spec.message !== undefined && spec.message.length > ERROR_MESSAGE_MAX)
      throw new MakeRuleError(
        'errorMessageLength',
        `${where} error ${key}: the message is ${spec.message.length} characters`,
      );
    const t = spec.type;
    if (t !== undefined && !t.includes('{{') && !(ERROR_TYPES as readonly string[]).includes(t))
      throw new MakeRuleError('errorType', `${where} error ${key}: "${t}" is not a Make error type`);
  }
  // Only a module's own default can shadow a base status entry; status entries alone read the same.
  if (baseError && error.message !== undefined) {
    const missing = errorStatuses(baseError).filter((k) => !(k in error));
    if (missing.length > 0)
      throw new MakeRuleError(
        'errorMerge',
        `${where} sets a default error message but not ${missing.join(', ')}, which the base sets`,
      );
  }
}

function checkDirective(
  d: Directive,
  where: string,
  kind: 'module' | 'instant' | 'connection' | 'epoch',
): void {
  const req: ScopeName =
    kind === 'instant' ? 'instantRequest' : kind === 'connection' ? 'connectionRequest' : 'moduleRequest';
  const res: ScopeName =
    kind === 'instant' ? 'instantResponse' : kind === 'connection' ? 'connectionResponse' : 'moduleResponse';
  const { response, pagination, repeat, ...request } = d;
  assertReads(request, req, `${where} request`);
  assertReads(response, res, `${where} response`);
  checkErrorDirective(
    response?.error,
    where,
    kind === 'connection' || kind === 'epoch' ? undefined : base().response?.error,
  );
  assertReads(pagination, 'pagination', `${where} pagination`);
  if (repeat) {
    assertReads(repeat.condition, 'repeatCondition', `${where} repeat.condition`);
    if (!Number.isInteger(repeat.limit) || repeat.limit < 1)
      throw new MakeRuleError('repeatBounds', `${where}: repeat.limit must be a positive whole number`);
    if (typeof repeat.delay !== 'number' || repeat.delay < 0)
      throw new MakeRuleError('repeatBounds', `${where}: repeat.delay must be a number of ms`);
    const waits = (repeat.limit - 1) * repeat.delay;
    if (waits > MODULE_TIMEOUT_MS - REQUEST_ALLOWANCE_MS) {
      throw new MakeRuleError(
        'repeatBounds',
        `${where}: ${repeat.limit} rounds ${repeat.delay} ms apart wait ${waits} ms, past the ${MODULE_TIMEOUT_MS} ms module timeout`,
      );
    }
  }
  if (pagination && response?.limit === undefined)
    throw new MakeRuleError('paginationNeedsLimit', `${where}: paginates without a response.limit`);
  if (typeof response?.limit === 'number' && pagination && response.limit > PAGINATION_ITEM_LIMIT) {
    throw new MakeRuleError(
      'paginationItems',
      `${where}: limit ${response.limit} promises more than Make paginates`,
    );
  }
  if (kind === 'epoch') {
    const limit = response?.limit;
    if (typeof limit !== 'number' || limit > EPOCH_LIMIT_MAX)
      throw new MakeRuleError(
        'epochLimit',
        `${where}: the epoch needs a static response.limit of at most ${EPOCH_LIMIT_MAX}`,
      );
  }
  const trigger = response?.trigger;
  if (trigger) {
    if (trigger.type !== 'date' && trigger.type !== 'id')
      throw new MakeRuleError('triggerType', `${where}: trigger.type must be date or id`);
    if (trigger.type === 'date' && !trigger.date)
      throw new MakeRuleError('triggerType', `${where}: a date trigger needs trigger.date`);
    if (trigger.order !== 'desc' && trigger.order !== 'asc')
      throw new MakeRuleError('triggerOrder', `${where}: trigger.order must say how the API orders items`);
  }
}

/** Every static Make rule for one module; throws MakeRuleError on the first broken one. */
export function checkModule(def: ModuleDef): void {
  const list = Array.isArray(def.communication) ? def.communication : [def.communication];
  if (def.moduleType === 'instant_trigger') {
    if (list.length > 1)
      throw new MakeRuleError(
        'instantTriggerShape',
        `module ${def.id}: an instant trigger makes one request at most`,
      );
    for (const d of list) {
      if (d.pagination || d.response?.iterate)
        throw new MakeRuleError(
          'instantTriggerShape',
          `module ${def.id}: iterate and pagination are not available in an instant trigger`,
        );
      // RULES.instantTriggerNoRequest: any error of the trigger switches the user's scenario off.
      if (d.url !== undefined)
        throw new MakeRuleError(
          'instantTriggerNoRequest',
          `module ${def.id}: the instant trigger sends ${d.method ?? 'GET'} ${d.url}, which can fail`,
        );
    }
  }
  if (def.moduleType === 'trigger' && !list.some((d) => d.response?.trigger))
    throw new MakeRuleError('triggerType', `module ${def.id}: a polling trigger needs response.trigger`);
  list.forEach((d, i) =>
    checkDirective(
      d,
      `module ${def.id}${list.length > 1 ? ` request ${i + 1}` : ''}`,
      def.moduleType === 'instant_trigger' ? 'instant' : 'module',
    ),
  );
  if (def.epoch) checkDirective(def.epoch, `module ${def.id} epoch`, 'epoch');
}

export function checkBase(b: Base = base()): void {
  if ((b.timeout ?? MODULE_TIMEOUT_MS) > MODULE_TIMEOUT_MS)
    throw new MakeRuleError('moduleTimeout', `base: timeout ${b.timeout} ms is longer than Make waits`);
  const { response, ...request } = b;
  assertReads(request, 'base', 'base');
  assertReads(response, 'base', 'base response');
  checkErrorDirective(response?.error, 'base');
}

/** The connection's test request and every RPC, under the same rules as modules. */
export function checkConnection(d: Directive = loadConnectionCommunication()): void {
  checkDirective(d, 'connection', 'connection');
}

export function checkRpc(
  id: string,
  d: Directive = readJsonc(codeFile('rpc', id, 'communication')) as unknown as Directive,
): void {
  checkDirective(d, `rpc ${id}`, 'module');
}

export function checkWebhook(def: WebhookDef): void {
  assertReads(def.communication, 'webhook', `webhook ${def.id}`);
}

// ---------------------------------------------------------------------------------------------------
// Loading the app's own components.
// ---------------------------------------------------------------------------------------------------

function moduleMeta(id: string): ComponentMeta {
  const meta = components('module').find(([m]) => m === id)?.[1];
  if (!meta) throw new Error(`No module ${id}`);
  return meta;
}

export function loadModule(id: string): ModuleDef {
  const meta = moduleMeta(id);
  return {
    id,
    moduleType: meta.moduleType as ModuleType,
    communication: readJsonc(meta.codeFiles.communication!) as unknown as Directive | Directive[],
    params: [
      ...(meta.codeFiles.staticParams ? asSpecs(readJsonc(meta.codeFiles.staticParams) as Json) : []),
      ...(meta.codeFiles.mappableParams ? asSpecs(readJsonc(meta.codeFiles.mappableParams) as Json) : []),
    ],
    epoch: meta.codeFiles.epoch ? (readJsonc(meta.codeFiles.epoch) as unknown as Directive) : undefined,
  };
}

export function loadWebhook(id: string): WebhookDef {
  return {
    id,
    communication: readJsonc(
      codeFile('webhook', id, 'communication'),
    ) as unknown as WebhookDef['communication'],
    params: asSpecs(readJsonc(codeFile('webhook', id, 'params'))),
  };
}

/** The connection's test call, as the file stands or as deployed to `deployedTo`. */
export function loadConnectionCommunication(deployedTo?: string): Directive {
  return readJsonc(codeFile('connection', 'apiKey', 'communication'), deployedTo) as unknown as Directive;
}

export function connectionParams(input: Record<string, unknown>): Record<string, unknown> {
  return validateParameters(asSpecs(readJsonc(codeFile('connection', 'apiKey', 'params'))), input);
}

// ---------------------------------------------------------------------------------------------------
// Running.
// ---------------------------------------------------------------------------------------------------

function pick(
  vars: Record<string, unknown>,
  scope: ScopeName,
  extra: Record<string, unknown> = {},
): { variables: Record<string, unknown> } {
  const variables: Record<string, unknown> = {};
  for (const name of SCOPES[scope]) if (name in vars) variables[name] = vars[name];
  for (const [k, v] of Object.entries(extra))
    if ((SCOPES[scope] as readonly string[]).includes(k)) variables[k] = v;
  return { variables };
}

interface Answer {
  statusCode: number;
  headers: Record<string, string>;
  body: unknown;
}

class Run {
  readonly log: SentRequest[] = [];
  private readonly started = Date.now();
  private declaredWaitMs = 0;

  constructor(private readonly timeoutMs: number) {}

  get makeTimeMs(): number {
    return Date.now() - this.started + this.declaredWaitMs;
  }

  private checkClock(): void {
    if (this.makeTimeMs > MODULE_TIMEOUT_MS) {
      throw new MakeRuleError(
        'moduleTimeout',
        `the module ran ${this.makeTimeMs} ms (requests plus declared waits)`,
      );
    }
  }

  async wait(declaredMs: number, actualMs: number): Promise<void> {
    this.declaredWaitMs += declaredMs;
    this.checkClock();
    await new Promise((r) => setTimeout(r, actualMs));
    this.declaredWaitMs -= actualMs;
  }

  async send(req: {
    method: string;
    url: string;
    headers: Record<string, string>;
    qs: Record<string, unknown>;
    body: unknown;
    /** The directive's `type`: json (the default) serialises the body, whatever it is, so a body that
     * is already JSON text is encoded twice; text, string and raw send a text body as it is
     * (https://developers.make.com/custom-apps-documentation/component-blocks/api, `type`). */
    type?: string;
  }): Promise<Answer> {
    if (this.log.length >= MAX_REQUESTS_PER_RUN)
      throw new MakeRuleError('paginationRequests', `request ${this.log.length + 1} of one module run`);
    // Characters a URL cannot carry are encoded; what is already encoded (encodeURL's %2F) stays so.
    const url = new URL(req.url.replace(/[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/g, encodeURIComponent));
    for (const [k, v] of Object.entries(req.qs))
      if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
    const headers = { ...req.headers };
    let payload: string | undefined;
    if (req.body !== undefined && req.method !== 'GET') {
      const type = req.type ?? 'json';
      if (type === 'json') {
        payload = JSON.stringify(req.body);
        headers['content-type'] = 'application/json';
      } else if (['text', 'string', 'raw'].includes(type)) {
        if (typeof req.body !== 'string')
          throw new MakeRuleError('directiveScope', `a ${type} body must be text, got ${typeof req.body}`);
        payload = req.body;
      } else throw new MakeRuleError('directiveScope', `request type ${type} is not one the harness models`);
    }
    this.log.push({
      method: req.method,
      url: url.toString(),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: req.body,
    });
    const budget = Math.max(1, Math.min(this.timeoutMs, MODULE_TIMEOUT_MS - this.makeTimeMs));
    let res: Exchange;
    try {
      res = await exchangeOnOwnConnection(url, {
        method: req.method,
        headers,
        body: payload,
        timeoutMs: budget,
      });
    } catch (err) {
      if (!(err instanceof ExchangeFailure)) throw err;
      if (err.kind === 'timeout') throw new MakeRuleError('moduleTimeout', err.message);
      // RULES.transportFailure: no status, so no error directive applies; Make picks the type.
      throw new MakeModuleError('ConnectionError', err.message, 0, true);
    }
    let body: unknown = undefined;
    if (res.text !== '') {
      try {
        body = JSON.parse(res.text);
      } catch {
        body = res.text;
      }
    }
    this.checkClock();
    return { statusCode: res.status, headers: res.headers, body };
  }
}

/**
 * The service's own "not now": 429 with X-RateLimit-Reset or 503 with Retry-After (shared/openapi.yaml;
 * the spec shows no error body shape, so the body decides nothing). Anything else after a POST left may
 * have been acted on.
 */
function isServiceNotNow(answer: Answer): boolean {
  const has = (h: string) => (answer.headers[h] ?? '') !== '';
  if (answer.statusCode === 429) return has('x-ratelimit-reset');
  if (answer.statusCode === 503) return has('retry-after');
  return false;
}

/** RULES.chargeNotReplayed: the bulk and the single verification are charged when they are acted on. */
const CHARGED_POST = /\/v1\/verify\/(bulk|single)$/;

function checkNotReplayed(err: MakeModuleError, method: string, url: string, answer?: Answer): void {
  if (method !== 'POST' || !CHARGED_POST.test(new URL(url).pathname)) return;
  if (!RETRIED_BY_MAKE.includes(err.type) || (answer && isServiceNotNow(answer))) return;
  if (err.typedByMake) return; // Make's own type; the README states it as a known limit
  throw new MakeRuleError(
    'chargeNotReplayed',
    `POST ${new URL(url).pathname} answered HTTP ${err.statusCode} became ${err.type}, which Make reruns by itself`,
  );
}

/**
 * The error Make raises for a status of 400 or more. Where the module and the base both have an
 * error directive, the module's status entry wins, then the base's, then the module's default, then
 * the base's (RULES.errorMerge makes the app read the same whichever way Make merges them).
 */
function errorFor(
  status: number,
  own: Directive['response'],
  b: Base | undefined,
  vars: Record<string, unknown>,
  scope: ScopeName,
): MakeModuleError {
  const byStatus = (errors: Record<string, unknown> | undefined) =>
    errors?.[String(status)] as ErrorSpec | undefined;
  const byDefault = (errors: Record<string, unknown> | undefined) =>
    errors?.message !== undefined ? (errors as ErrorSpec) : undefined;
  const baseError = b?.response?.error;
  const spec = byStatus(own?.error) ?? byStatus(baseError) ?? byDefault(own?.error) ?? byDefault(baseError);
  if (!spec) return new MakeModuleError('RuntimeError', `HTTP ${status}`, status);
  const s = pick(vars, scope);
  // RULES.errorType: the type may be an IML expression, and must come out as one of Make's types.
  const type = spec.type === undefined ? 'RuntimeError' : String(evaluate(spec.type, s));
  if (!(ERROR_TYPES as readonly string[]).includes(type))
    throw new MakeRuleError('errorType', `HTTP ${status}: "${type}" is not a Make error type`);
  return new MakeModuleError(type, String(evaluate(spec.message ?? `HTTP ${status}`, s)), status);
}

/** RULES.validDirective: a 2xx answer the module marks invalid fails with the directive's type. */
function checkValid(
  response: NonNullable<Directive['response']>,
  answer: Answer,
  vars: Record<string, unknown>,
  scope: ScopeName,
): void {
  if (response.valid === undefined) return;
  const v = typeof response.valid === 'string' ? { condition: response.valid } : response.valid;
  const s = pick({ ...vars, ...answer }, scope);
  const ok = evaluate(v.condition, s);
  if (ok !== undefined && ok !== null && ok !== false && ok !== '' && ok !== 0) return;
  const type = v.type === undefined ? 'RuntimeError' : String(evaluate(v.type, s));
  if (!(ERROR_TYPES as readonly string[]).includes(type))
    throw new MakeRuleError('errorType', `valid: "${type}" is not a Make error type`);
  const message = v.message === undefined ? 'Response marked as invalid.' : String(evaluate(v.message, s));
  throw new MakeModuleError(type, message, answer.statusCode);
}

/** Compares trigger keys: date first, then id, as Make sorts (RULES.triggerType). */
function compareKeys(a: TriggerState, b: TriggerState): number {
  const da = a.date ?? '';
  const db = b.date ?? '';
  if (da !== db) return Date.parse(da) < Date.parse(db) ? -1 : 1;
  if (a.id === b.id) return 0;
  return /^[0-9]+$/.test(a.id) && /^[0-9]+$/.test(b.id) ? Number(a.id) - Number(b.id) : a.id < b.id ? -1 : 1;
}

const DATE_FIELDS = ['created_at', 'updated_at', 'createdAt', 'updatedAt', 'date', 'created', 'updated'];

interface DirectiveResult {
  bundles: unknown[];
  skipped?: boolean;
  triggerState?: TriggerState;
  metadata?: string;
}

type Kind = 'module' | 'instant' | 'connection';
const REQUEST_SCOPE: Record<Kind, ScopeName> = {
  module: 'moduleRequest',
  instant: 'instantRequest',
  connection: 'connectionRequest',
};
const RESPONSE_SCOPE: Record<Kind, ScopeName> = {
  module: 'moduleResponse',
  instant: 'instantResponse',
  connection: 'connectionResponse',
};

interface RenderedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  qs: Record<string, unknown>;
  body: unknown;
}

/** url, method, headers, qs and body of a directive, with the base's URL and headers joined in. */
function renderRequest(
  d: Directive,
  vars: Record<string, unknown>,
  reqScope: ScopeName,
  withBase: Base | undefined,
): RenderedRequest {
  const s = pick(vars, reqScope);
  let url = String(evaluate(d.url, s));
  if (withBase && url.startsWith('/')) url = String(evaluate(withBase.baseUrl, pick(vars, 'base'))) + url;
  if (!withBase && !/^https?:\/\/[^/]/.test(url))
    throw new MakeRuleError(
      'connectionOwnData',
      `the connection's test call goes to "${url}", not a full address: a connection has no base and no app common data to complete it`,
    );
  return {
    url,
    method: String(d.method ? evaluate(d.method, s) : 'GET').toUpperCase(),
    headers: {
      ...(withBase ? (evaluate(withBase.headers ?? {}, pick(vars, 'base')) as Record<string, string>) : {}),
      ...((evaluate(d.headers ?? {}, s) as Record<string, string>) ?? {}),
    },
    qs: (evaluate(d.qs ?? {}, s) as Record<string, unknown>) ?? {},
    body: d.body === undefined ? undefined : evaluate(d.body, s),
  };
}

/**
 * The repeat directive: the request again while its condition (which sees temp only, RULES.repeatScope)
 * holds, up to its limit, with its delay counted as module time. Returns the last answer and the
 * earlier ones (RULES.repeatOutput).
 */
async function repeatRounds(
  repeat: NonNullable<Directive['repeat']>,
  first: Answer,
  send: () => Promise<Answer>,
  applyTemp: (answer: Answer) => void,
  vars: Record<string, unknown>,
  options: RunOptions,
  run: Run,
): Promise<{ answer: Answer; earlier: Answer[] }> {
  let answer = first;
  const earlier: Answer[] = [];
  for (let rounds = 1; answer.statusCode < 400; rounds++) {
    applyTemp(answer);
    if (rounds >= repeat.limit || evaluate(repeat.condition, pick(vars, 'repeatCondition')) !== true) break;
    await run.wait(repeat.delay, options.repeatDelayMs ?? repeat.delay);
    earlier.push(answer);
    answer = await send();
  }
  return { answer, earlier };
}

/** Checks a trigger item's key against RULES.triggerType and returns it. */
function triggerKey(
  trigger: NonNullable<NonNullable<Directive['response']>['trigger']>,
  item: unknown,
  iscope: ImlScope,
): TriggerState {
  const id = String(evaluate(trigger.id, iscope));
  const date = trigger.type === 'date' ? String(evaluate(trigger.date, iscope)) : undefined;
  if (trigger.type === 'date' && Number.isNaN(Date.parse(date!)))
    throw new MakeRuleError('triggerType', `trigger.date "${date}" is not a date`);
  if (trigger.type === 'id') {
    if (!/^[0-9]+$/.test(id))
      throw new MakeRuleError(
        'triggerType',
        `an id trigger needs ids Make can order; "${id}" is not one (use type date)`,
      );
    const dated = item && typeof item === 'object' ? DATE_FIELDS.filter((f) => f in (item as object)) : [];
    if (dated.length > 0)
      throw new MakeRuleError(
        'triggerType',
        `items carry a date (${dated.join(', ')}), so the trigger must be of type date`,
      );
  }
  return { id, date };
}

/**
 * The response's items (iterate, with its condition) as bundles, or as trigger candidates for a
 * trigger. Returns how many items the page held and whether the module's limit is reached.
 */
function emitItems(
  response: NonNullable<Directive['response']>,
  rvars: Record<string, unknown>,
  resScope: ScopeName,
  out: { bundles: unknown[]; candidates: Candidate[] },
  limitValue: number,
): { read: number; full: boolean } {
  const it = typeof response.iterate === 'string' ? { container: response.iterate } : response.iterate!;
  const items = evaluate(it.container, pick(rvars, resScope));
  if (!Array.isArray(items))
    throw new ImlError(`iterate container is not an array: ${JSON.stringify(items)?.slice(0, 200)}`);
  for (const item of items) {
    const iscope = pick(rvars, resScope, { item });
    if (it.condition !== undefined && evaluate(it.condition, iscope) !== true) continue;
    const bundle = response.output === undefined ? item : evaluate(response.output, iscope);
    if (response.trigger) {
      out.candidates.push({ key: triggerKey(response.trigger, item, iscope), bundle });
      continue;
    }
    out.bundles.push(bundle);
    if (out.bundles.length >= limitValue) return { read: items.length, full: true };
  }
  return { read: items.length, full: false };
}

/**
 * Whether a paginating module asks for another page, and that page's query: Make's pagination
 * condition and limits (RULES.paginationItems), and for a newest-first trigger its stop at the
 * remembered item (RULES.triggerOrder).
 */
function nextPageQs(
  d: Directive,
  rvars: Record<string, unknown>,
  page: number,
  seen: { bundles: unknown[]; candidates: Candidate[]; itemsRead: number },
  limitValue: number,
  qs: Record<string, unknown>,
  options: RunOptions,
): Record<string, unknown> | undefined {
  const pagination = d.pagination!;
  if (seen.bundles.length >= limitValue) return undefined;
  if (d.response?.trigger?.order === 'desc') {
    // Newest first: Make stops once a page reaches the item it remembered (RULES.triggerOrder), and,
    // on the worse reading of its limit, once it holds `limit` new items (older new ones are lost).
    const state = options.triggerState;
    const fresh = seen.candidates.filter((c) => !state || compareKeys(c.key, state) > 0).length;
    if (fresh >= limitValue || (state && fresh < seen.candidates.length)) return undefined;
  }
  const pvars = pick({ ...rvars, pagination: { page } }, 'pagination');
  if (pagination.condition !== undefined && evaluate(pagination.condition, pvars) !== true) return undefined;
  // Records read count, not only bundles emitted: a filtered run reads more than it returns.
  if (seen.itemsRead >= PAGINATION_ITEM_LIMIT)
    throw new MakeRuleError('paginationItems', `the module would read past ${PAGINATION_ITEM_LIMIT} items`);
  const next = (evaluate(pagination.qs ?? {}, pvars) as Record<string, unknown>) ?? {};
  return pagination.mergeWithParent === false ? next : { ...qs, ...next };
}

/** Runs one request directive (with its repeat and pagination) and returns its bundles. */
async function runDirective(
  d: Directive,
  vars: Record<string, unknown>,
  options: RunOptions,
  run: Run,
  kind: Kind,
  withBase: Base | undefined,
): Promise<DirectiveResult> {
  const reqScope = REQUEST_SCOPE[kind];
  const resScope = RESPONSE_SCOPE[kind];
  if (d.temp) Object.assign(vars.temp as object, evaluate(d.temp, pick(vars, reqScope)));
  // A directive whose condition is false is skipped: it sends nothing and emits nothing.
  if (d.condition !== undefined && evaluate(d.condition, pick(vars, reqScope)) === false)
    return { bundles: [], skipped: true };
  const req = renderRequest(d, vars, reqScope, withBase);
  const response = d.response ?? {};
  const limitValue =
    response.limit === undefined ? Infinity : Number(evaluate(response.limit, pick(vars, resScope)));
  if (d.pagination && limitValue > PAGINATION_ITEM_LIMIT)
    throw new MakeRuleError(
      'paginationItems',
      `a limit of ${limitValue} items promises more than Make paginates`,
    );

  const out = { bundles: [] as unknown[], candidates: [] as Candidate[], itemsRead: 0 };
  let currentQs = req.qs;
  let metadata: string | undefined;
  const send = async (): Promise<Answer> => {
    try {
      return await run.send({ ...req, qs: currentQs, type: d.type });
    } catch (err) {
      if (err instanceof MakeModuleError) checkNotReplayed(err, req.method, req.url);
      throw err;
    }
  };
  const applyTemp = (answer: Answer) => {
    if (response.temp)
      Object.assign(vars.temp as object, evaluate(response.temp, pick({ ...vars, ...answer }, resScope)));
  };
  for (let page = 2; ; page++) {
    const first = await send();
    const { answer, earlier } = d.repeat
      ? await repeatRounds(d.repeat, first, send, applyTemp, vars, options, run)
      : { answer: first, earlier: [] };
    // RULES.repeatOutput: Make documents no single bundle for a repeated request with an output, so
    // the harness takes the worse reading, a bundle per round; Make's own examples set output: null.
    if (
      d.repeat &&
      response.output !== undefined &&
      response.output !== null &&
      response.iterate === undefined
    )
      for (const round of earlier)
        out.bundles.push(evaluate(response.output, pick({ ...vars, ...round }, resScope)));
    const rvars = { ...vars, ...answer };
    if (answer.statusCode >= 400) {
      const err = errorFor(answer.statusCode, response, withBase, rvars, withBase ? 'base' : resScope);
      checkNotReplayed(err, req.method, req.url, answer);
      throw err;
    }
    checkValid(response, answer, vars, resScope);
    if (!d.repeat) applyTemp(answer);
    if (response.metadata) metadata = String(evaluate(response.metadata.value, pick(rvars, resScope)));
    if (response.iterate !== undefined) {
      const got = emitItems(response, rvars, resScope, out, limitValue);
      out.itemsRead += got.read;
      if (got.full) return { bundles: out.bundles, metadata };
    } else if (response.output === null) {
      // output: null emits nothing (Make's repeat examples emit from a later request).
    } else if (response.output !== undefined) {
      out.bundles.push(evaluate(response.output, pick(rvars, resScope)));
    } else if (!response.temp && !response.metadata) {
      out.bundles.push(answer.body);
    }
    if (!d.pagination) break;
    const next = nextPageQs(d, rvars, page, out, limitValue, req.qs, options);
    if (!next) break;
    currentQs = next;
  }
  if (response.trigger) return fire(response.trigger, out.candidates, options.triggerState, limitValue);
  return { bundles: out.bundles, metadata };
}

type Candidate = { key: TriggerState; bundle: unknown };

/** The items Make would emit this run, and what it would remember for the next. */
function fire(
  trigger: NonNullable<NonNullable<Directive['response']>['trigger']>,
  candidates: Candidate[],
  state: TriggerState | undefined,
  limit: number,
): DirectiveResult {
  // RULES.triggerOrder: the data must come in the order the trigger declares, by its type's key: a
  // date trigger's API orders by date, and items of one date may come in any id order (Make sorts
  // them by id itself, RULES.triggerType); an id trigger's API orders by id.
  for (let i = 1; i < candidates.length; i++) {
    const [a, b] = [candidates[i - 1]!.key, candidates[i]!.key];
    const c = trigger.type === 'date' && a.date === b.date ? 0 : compareKeys(a, b);
    if ((trigger.order === 'desc' && c < 0) || (trigger.order === 'asc' && c > 0)) {
      throw new MakeRuleError('triggerOrder', `items are not in ${trigger.order} order by ${trigger.type}`);
    }
  }
  // Make returns only items after the one it remembered, by date then id (RULES.triggerType).
  const fresh = candidates.filter((c) => !state || compareKeys(c.key, state) > 0).slice(0, limit);
  const triggerState = fresh.reduce<TriggerState | undefined>(
    (max, c) => (!max || compareKeys(c.key, max) > 0 ? c.key : max),
    state,
  );
  // Make hands the items to the scenario oldest first (Trigger (polling), response.trigger.order).
  const oldestFirst = [...fresh].sort((a, b) => compareKeys(a.key, b.key));
  return { bundles: oldestFirst.map((c) => c.bundle), triggerState };
}

/**
 * RULES.formanParameters: what the harness's checker accepted, Make's own validator must accept too
 * (when it is laid out beside the clone; see schema-location.ts). Forman wins where they differ.
 */
async function checkWithForman(
  params: ParamSpec[],
  input: Record<string, unknown>,
  where: string,
): Promise<void> {
  if (!formanPresent()) return;
  const values = Object.fromEntries(
    Object.entries(input).filter(([, v]) => v !== undefined && v !== null && v !== ''),
  );
  const r = await forman().validateForman(values, params, {
    strict: true,
    resolveRemote: resolveNoListedJob,
  });
  if (!r.valid)
    throw new MakeRuleError(
      'formanParameters',
      `${where}: Make's Forman validator refuses what the harness accepted: ${r.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    );
}

/** Runs a module definition: static rules first, then parameters, then the requests. */
export async function runModuleDef(
  def: ModuleDef,
  input: Record<string, unknown>,
  connection: MakeConnection,
  options: RunOptions = {},
): Promise<RunResult> {
  const b = base(connection.baseUrl);
  checkBase(b);
  checkModule(def);
  const conn = connectionParams({ apiKey: connection.apiKey });
  const parameters = validateParameters(def.params, input);
  await checkWithForman(def.params, input, `module ${def.id}`);
  const run = new Run(b.timeout ?? MODULE_TIMEOUT_MS);
  const vars: Record<string, unknown> = {
    parameters,
    connection: conn,
    temp: {},
    now: options.now ?? new Date(),
    common: options.appCommon ?? appCommon(),
    data: {},
    environment: {},
  };
  const kind = def.moduleType === 'instant_trigger' ? 'instant' : 'module';
  if (kind === 'instant') vars.payload = options.payload;
  let bundles: unknown[] = [];
  let triggerState = options.triggerState;
  const list = Array.isArray(def.communication) ? def.communication : [def.communication];
  for (const d of list) {
    if (kind === 'instant' && d.url === undefined) {
      // No request: the bundle is the output over the webhook's bundle (Make: instant trigger).
      bundles = [evaluate(d.output ?? '{{payload}}', pick(vars, 'instantRequest'))];
      continue;
    }
    const r = await runDirective(d, vars, options, run, kind, b);
    if (r.skipped) continue;
    const emits = d.response?.output !== undefined && d.response.output !== null;
    if (r.bundles.length > 0 || emits || d.response?.trigger) bundles = r.bundles;
    if (d.response?.trigger) triggerState = r.triggerState;
  }
  return { bundles, requests: run.log, triggerState, makeTimeMs: run.makeTimeMs };
}

/** Runs one of the app's modules. */
export async function runModule(
  id: string,
  input: Record<string, unknown>,
  connection: MakeConnection,
  options: RunOptions = {},
): Promise<RunResult> {
  return runModuleDef(loadModule(id), input, connection, options);
}

/**
 * Runs the connection's test call; returns the metadata Make would show. The connection gets what
 * Make gives it, its own parameters and its own common data (RULES.connectionOwnData): never the
 * base, never the app's common data, whatever `options.appCommon` holds.
 */
export async function testConnection(
  connection: MakeConnection,
  // Taken so that a test can offer the app's common data and see that it never arrives.
  _options: Pick<RunOptions, 'appCommon'> = {},
  d: Directive = loadConnectionCommunication(connection.baseUrl),
): Promise<RunResult> {
  const parameters = connectionParams({ apiKey: connection.apiKey });
  checkConnection(d);
  const run = new Run(MODULE_TIMEOUT_MS);
  const r = await runDirective(
    d,
    { parameters, temp: {}, now: new Date(), common: CONNECTION_COMMON, data: {}, environment: {} },
    {},
    run,
    'connection',
    undefined,
  );
  return { bundles: r.bundles, requests: run.log, metadata: r.metadata, makeTimeMs: run.makeTimeMs };
}

/** Runs an RPC; returns its options. */
export async function runRpc(id: string, connection: MakeConnection): Promise<RunResult> {
  const d = readJsonc(codeFile('rpc', id, 'communication')) as unknown as Directive;
  checkRpc(id, d);
  const b = base(connection.baseUrl);
  const run = new Run(b.timeout ?? MODULE_TIMEOUT_MS);
  const conn = connectionParams({ apiKey: connection.apiKey });
  const r = await runDirective(
    d,
    {
      parameters: {},
      connection: conn,
      temp: {},
      now: new Date(),
      common: appCommon(),
      data: {},
      environment: {},
    },
    {},
    run,
    'module',
    b,
  );
  if (run.log.length > RPC_MAX_REQUESTS)
    throw new MakeRuleError('rpcRequests', `the RPC ${id} made ${run.log.length} calls`);
  return { bundles: r.bundles, requests: run.log, makeTimeMs: run.makeTimeMs };
}

export interface WebhookRequest {
  headers: Record<string, string>;
  rawBody: string;
  method?: string;
  query?: Record<string, string>;
}

export interface WebhookOutcome {
  status: number;
  responseBody: unknown;
  /** The bundle handed to the instant trigger, or undefined when the condition dropped it. */
  bundle?: unknown;
}

/**
 * Runs a webhook on one delivery. Make parses a JSON body before IML sees it (RULES.webhookParsedBody);
 * header names keep the sender's letter case (RULES.webhookHeaderCase); the raw bytes are not
 * available, and neither is the connection (RULES.webhookScope).
 */
export function receiveWebhookDef(
  def: WebhookDef,
  req: WebhookRequest,
  webhookParams: Record<string, unknown> = {},
  now = new Date(),
): WebhookOutcome {
  checkWebhook(def);
  let body: unknown;
  try {
    body = JSON.parse(req.rawBody);
  } catch {
    body = req.rawBody;
  }
  // Header names as the sender wrote them: Make does not document their letter case, so the harness
  // does not lower-case them for the app (RULES.webhookHeaderCase).
  const headers = { ...req.headers };
  const parameters = validateParameters(def.params, webhookParams);
  const s = pick(
    {
      body,
      headers,
      query: req.query ?? {},
      method: req.method ?? 'POST',
      parameters,
      now,
      data: {},
      environment: {},
    },
    'webhook',
  );
  const d = def.communication;
  const status = Number(evaluate(d.respond?.status ?? 200, s));
  const responseBody = evaluate(d.respond?.body, s);
  const accepted = d.condition === undefined ? true : evaluate(d.condition, s) === true;
  return { status, responseBody, bundle: accepted ? evaluate(d.output ?? '{{body}}', s) : undefined };
}

export function receiveWebhook(
  id: string,
  req: WebhookRequest,
  webhookParams: Record<string, unknown> = {},
  now = new Date(),
): WebhookOutcome {
  return receiveWebhookDef(loadWebhook(id), req, webhookParams, now);
}
