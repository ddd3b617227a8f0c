/**
 * Runs the app's components the way Make does, as far as Make's documented behaviour goes, so each
 * request and mapping can meet a real server (the sandbox): parameters are checked first, then the
 * base and the module's communication are merged and rendered, sent with fetch, and the response
 * directives (error, temp, iterate, output, limit, pagination, repeat, trigger) are applied.
 * Documented assumptions: `pagination.page` is 2 for the first follow-up request; a repeat stops
 * when its condition is false or its limit is reached, and the last answer is the module's output.
 */
import { codeFile, components, readJsonc, type ComponentMeta, type Json } from './app-files';
import { evaluate, type ImlFunction } from './iml';
import { loadImlFunctions } from './iml-functions';
import { asSpecs, validateParameters } from './make-params';

export interface MakeConnection {
  apiKey: string;
  baseUrl: string;
  webhookSecret?: string;
}

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
    readonly statusCode: number,
  ) {
    super(message);
    this.name = type;
  }
}

interface Directive {
  url?: string;
  method?: string;
  headers?: Record<string, unknown>;
  qs?: Record<string, unknown>;
  body?: unknown;
  type?: string;
  temp?: Record<string, unknown>;
  repeat?: { condition: string; delay: number; limit: number };
  pagination?: { qs?: Record<string, unknown>; condition?: string; mergeWithParent?: boolean };
  response?: {
    error?: Record<string, unknown>;
    temp?: Record<string, unknown>;
    iterate?: string | { container: string; condition?: string };
    output?: unknown;
    limit?: number | string;
    metadata?: { type: string; value: string };
    trigger?: { type: string; order: string; id: string };
  };
}

export interface RunOptions {
  /** Replaces repeat.delay so waits are short against a time-scaled sandbox. */
  repeatDelayMs?: number;
  /** For polling triggers: the id Make remembered from the previous run. */
  lastTriggerId?: string;
  /** For instant triggers: the webhook's output bundle. */
  payload?: unknown;
  now?: Date;
}

export interface RunResult {
  bundles: unknown[];
  requests: SentRequest[];
  /** For polling triggers: the id Make would remember for the next run. */
  triggerId?: string;
  metadata?: string;
}

const functions: Record<string, ImlFunction> = loadImlFunctions();
const base = readJsonc('general/base.iml.json') as unknown as Directive & { baseUrl: string; timeout?: number };

function moduleMeta(id: string): ComponentMeta {
  const meta = components('module').find(([m]) => m === id)?.[1];
  if (!meta) throw new Error(`No module ${id}`);
  return meta;
}

function scope(variables: Record<string, unknown>) {
  return { variables, functions };
}

function lowerHeaders(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((value, key) => {
    out[key.toLowerCase()] = value;
  });
  return out;
}

async function send(
  req: { method: string; url: string; headers: Record<string, string>; qs: Record<string, unknown>; body: unknown },
  log: SentRequest[],
): Promise<{ statusCode: number; headers: Record<string, string>; body: unknown }> {
  const url = new URL(encodeURI(req.url));
  for (const [k, v] of Object.entries(req.qs)) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
  const headers = { ...req.headers };
  let payload: string | undefined;
  if (req.body !== undefined && req.method !== 'GET') {
    payload = JSON.stringify(req.body);
    headers['content-type'] = 'application/json';
  }
  log.push({ method: req.method, url: url.toString(), path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body: req.body });
  const res = await fetch(url, { method: req.method, headers, body: payload, redirect: 'manual', signal: AbortSignal.timeout(base.timeout ?? 40_000) });
  const text = await res.text();
  let body: unknown = text;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  } else {
    body = undefined;
  }
  return { statusCode: res.status, headers: lowerHeaders(res.headers), body };
}

function errorFor(status: number, own: Directive['response'], vars: Record<string, unknown>): MakeModuleError {
  const pick = (errors: Record<string, unknown> | undefined) =>
    (errors?.[String(status)] as { type?: string; message: string } | undefined) ??
    (errors?.message ? (errors as { type?: string; message: string }) : undefined);
  const spec = pick(own?.error) ?? pick(base.response?.error);
  if (!spec) return new MakeModuleError('RuntimeError', `HTTP ${status}`, status);
  const message = String(evaluate(spec.message, scope(vars)));
  return new MakeModuleError(spec.type ?? 'RuntimeError', message, status);
}

/** Runs one request directive (with its repeat and pagination); returns its bundles. */
async function runDirective(
  d: Directive,
  vars: Record<string, unknown>,
  options: RunOptions,
  log: SentRequest[],
  withBase: boolean,
): Promise<{ bundles: unknown[]; triggerIds: string[]; lastBody: unknown; metadata?: string }> {
  const s = scope(vars);
  let url = String(evaluate(d.url, s));
  if (withBase && url.startsWith('/')) url = String(evaluate(base.baseUrl, s)) + url;
  const method = String(d.method ? evaluate(d.method, s) : 'GET').toUpperCase();
  const headers = {
    ...(withBase ? (evaluate(base.headers ?? {}, s) as Record<string, string>) : {}),
    ...((evaluate(d.headers ?? {}, s) as Record<string, string>) ?? {}),
  };
  const qs = (evaluate(d.qs ?? {}, s) as Record<string, unknown>) ?? {};
  const body = d.body === undefined ? undefined : evaluate(d.body, s);
  const response = d.response ?? {};
  const limitValue = response.limit === undefined ? Infinity : Number(evaluate(response.limit, s));

  const bundles: unknown[] = [];
  const triggerIds: string[] = [];
  let page = 1;
  let currentQs = qs;
  let lastBody: unknown;
  let metadata: string | undefined;
  for (;;) {
    let answer = await send({ method, url, headers, qs: currentQs, body }, log);
    if (d.repeat) {
      let rounds = 1;
      while (rounds < d.repeat.limit && answer.statusCode < 400 && evaluate(d.repeat.condition, scope({ ...vars, ...answer })) === true) {
        await new Promise((r) => setTimeout(r, options.repeatDelayMs ?? d.repeat!.delay));
        answer = await send({ method, url, headers, qs: currentQs, body }, log);
        rounds++;
      }
    }
    const rvars = { ...vars, ...answer };
    if (answer.statusCode >= 400) throw errorFor(answer.statusCode, response, rvars);
    lastBody = answer.body;
    if (response.temp) Object.assign(vars.temp as object, evaluate(response.temp, scope(rvars)));
    if (response.metadata) metadata = String(evaluate(response.metadata.value, scope(rvars)));
    if (response.iterate !== undefined) {
      const it = typeof response.iterate === 'string' ? { container: response.iterate } : response.iterate;
      const items = evaluate(it.container, scope(rvars));
      if (!Array.isArray(items)) throw new Error(`iterate container is not an array: ${JSON.stringify(items)?.slice(0, 200)}`);
      for (const item of items) {
        const ivars = { ...rvars, item };
        if (it.condition !== undefined && evaluate(it.condition, scope(ivars)) !== true) continue;
        if (response.trigger) {
          const id = String(evaluate(response.trigger.id, scope(ivars)));
          // Make keeps the newest id; with order desc it stops at the one remembered from last run.
          if (options.lastTriggerId !== undefined && id === options.lastTriggerId) return { bundles, triggerIds, lastBody, metadata };
          triggerIds.push(id);
        }
        bundles.push(response.output === undefined ? item : evaluate(response.output, scope(ivars)));
        if (bundles.length >= limitValue) return { bundles, triggerIds, lastBody, metadata };
      }
    } else if (response.output !== undefined) {
      bundles.push(evaluate(response.output, scope(rvars)));
    } else if (!response.temp && !response.metadata) {
      bundles.push(answer.body);
    }
    if (!d.pagination) break;
    page += 1;
    const pvars = { ...rvars, pagination: { page } };
    if (d.pagination.condition !== undefined && evaluate(d.pagination.condition, scope(pvars)) !== true) break;
    const nextQs = (evaluate(d.pagination.qs ?? {}, scope(pvars)) as Record<string, unknown>) ?? {};
    currentQs = d.pagination.mergeWithParent === false ? nextQs : { ...qs, ...nextQs };
  }
  return { bundles, triggerIds, lastBody, metadata };
}

function moduleParams(meta: ComponentMeta, input: Record<string, unknown>): Record<string, unknown> {
  const specs = [
    ...asSpecs(readJsonc(meta.codeFiles.staticParams!) as Json),
    ...asSpecs(readJsonc(meta.codeFiles.mappableParams!) as Json),
  ];
  return validateParameters(specs, input);
}

export function connectionParams(input: Record<string, unknown>): Record<string, unknown> {
  return validateParameters(asSpecs(readJsonc(codeFile('connection', 'apiKey', 'params'))), input);
}

/** Runs a module: parameters are checked before anything is sent. */
export async function runModule(
  id: string,
  input: Record<string, unknown>,
  connection: MakeConnection,
  options: RunOptions = {},
): Promise<RunResult> {
  const meta = moduleMeta(id);
  const conn = connectionParams({ ...connection });
  const parameters = moduleParams(meta, input);
  const communication = readJsonc(meta.codeFiles.communication!) as unknown as Directive | Directive[];
  const log: SentRequest[] = [];
  const vars: Record<string, unknown> = { parameters, connection: conn, temp: {}, now: options.now ?? new Date(), common: {}, data: {} };
  if (meta.moduleType === 'instant_trigger') vars.payload = options.payload;
  let bundles: unknown[] = [];
  let triggerId: string | undefined;
  for (const d of Array.isArray(communication) ? communication : [communication]) {
    const r = await runDirective(d, vars, options, log, true);
    if (r.bundles.length > 0 || d.response?.output !== undefined) bundles = r.bundles;
    if (r.triggerIds.length > 0) triggerId = r.triggerIds[0];
  }
  return { bundles, requests: log, triggerId: triggerId ?? options.lastTriggerId };
}

/** Runs the connection's test call; returns the metadata Make would show. */
export async function testConnection(connection: MakeConnection): Promise<RunResult> {
  const parameters = connectionParams({ ...connection });
  const d = readJsonc(codeFile('connection', 'apiKey', 'communication')) as unknown as Directive;
  const log: SentRequest[] = [];
  const r = await runDirective(d, { parameters, temp: {}, now: new Date(), common: {} }, {}, log, false);
  return { bundles: r.bundles, requests: log, metadata: r.metadata };
}

/** Runs an RPC; returns its options. */
export async function runRpc(id: string, connection: MakeConnection): Promise<RunResult> {
  const d = readJsonc(codeFile('rpc', id, 'communication')) as unknown as Directive;
  const log: SentRequest[] = [];
  const conn = connectionParams({ ...connection });
  const r = await runDirective(d, { parameters: {}, connection: conn, temp: {}, now: new Date(), common: {}, data: {} }, {}, log, true);
  return { bundles: r.bundles, requests: log };
}

export interface WebhookRequest {
  headers: Record<string, string>;
  rawBody: string;
  method?: string;
}

export interface WebhookOutcome {
  status: number;
  responseBody: unknown;
  /** The bundle handed to the instant trigger, or undefined when the condition dropped it. */
  bundle?: unknown;
}

/**
 * Runs the webhook component on one delivery. Make parses a JSON body before IML sees it, and
 * lower-cases header names (Node's HTTP server does); the raw bytes are not available.
 */
export function receiveWebhook(
  id: string,
  req: WebhookRequest,
  connection: MakeConnection,
  now = new Date(),
  webhookParams: Record<string, unknown> = {},
): WebhookOutcome {
  const d = readJsonc(codeFile('webhook', id, 'communication')) as unknown as {
    respond?: { status?: unknown; body?: unknown };
    condition?: unknown;
    output?: unknown;
  };
  let body: unknown;
  try {
    body = JSON.parse(req.rawBody);
  } catch {
    body = req.rawBody;
  }
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const conn = connectionParams({ ...connection });
  const parameters = validateParameters(asSpecs(readJsonc(codeFile('webhook', id, 'params'))), webhookParams);
  const s = scope({ body, headers, query: {}, method: req.method ?? 'POST', connection: conn, parameters, now, temp: {}, common: {} });
  const status = Number(evaluate(d.respond?.status ?? 200, s));
  const responseBody = evaluate(d.respond?.body, s);
  const accepted = d.condition === undefined ? true : evaluate(d.condition, s) === true;
  return { status, responseBody, bundle: accepted ? evaluate(d.output ?? '{{body}}', s) : undefined };
}
