/**
 * Static checks of every request and every output against the contract (shared/openapi.yaml): no
 * component can name an endpoint, a query or body field, or an output field the API does not have,
 * and every endpoint of the contract is reachable from some component.
 */
import { operations, fieldNames, validate, type Operation } from '@evf/contract';
import { codeFile, components, readJsonc, type Json } from './support/app-files';
import { expressionsIn, parseExpression, referencesOf } from './support/iml';
import { loadImlFunctions } from './support/iml-functions';

interface Req {
  url: string;
  method?: string;
  qs?: Record<string, unknown>;
  body?: Record<string, unknown> | string;
  headers?: Record<string, unknown>;
  pagination?: { qs?: Record<string, unknown> };
  response?: { output?: unknown };
}

interface Field {
  name: string;
  type: string;
  spec?: Field[] | Field;
}

/** Where each component sends its requests, with the contract schema of what it outputs. */
const requestsOf = (): { where: string; req: Req }[] => {
  const out: { where: string; req: Req }[] = [];
  for (const [id, meta] of components('module')) {
    const c = readJsonc(meta.codeFiles.communication!) as unknown as Req | Req[];
    for (const req of Array.isArray(c) ? c : [c]) out.push({ where: `module ${id}`, req });
    if (meta.codeFiles.epoch) out.push({ where: `module ${id} epoch`, req: readJsonc(meta.codeFiles.epoch) as unknown as Req });
  }
  for (const [id] of components('rpc')) out.push({ where: `rpc ${id}`, req: readJsonc(codeFile('rpc', id, 'communication')) as unknown as Req });
  const conn = readJsonc(codeFile('connection', 'apiKey', 'communication')) as unknown as Req;
  out.push({ where: 'connection', req: { ...conn, url: conn.url.replace('{{parameters.baseUrl}}', '') } });
  return out;
};

/** The universal module's path is the user's; its parameter pattern keeps it under /v1/. */
const isUniversal = (where: string) => where === 'module makeApiCall';

/** Turns "/v1/jobs/{{parameters.job_id}}/results" into the contract's "/v1/jobs/{job_id}/results". */
function operationFor(req: Req): Operation | undefined {
  const method = (req.method ?? 'GET').toUpperCase();
  const segments = req.url.split('/').map((seg) => (/^\{\{.*\}\}$/.test(seg) ? '*' : seg));
  return operations.find((op) => {
    if (op.method !== method) return false;
    const opSegs = op.path.split('/');
    return opSegs.length === segments.length && opSegs.every((s, i) => (s.startsWith('{') ? segments[i] === '*' : s === segments[i]));
  });
}

describe('requests match the contract', () => {
  const reqs = requestsOf();

  it.each(reqs.filter((r) => !isUniversal(r.where)).map((r) => [r.where, r.req] as const))('%s: endpoint, query and body fields exist', (_where, req) => {
    const op = operationFor(req);
    expect(op).toBeDefined();
    const queryNames = op!.queryParams.map((q) => q.name);
    for (const k of [...Object.keys(req.qs ?? {}), ...Object.keys(req.pagination?.qs ?? {})]) expect(queryNames).toContain(k);
    if (req.body !== undefined) {
      expect(typeof req.body).toBe('object');
      const bodyNames = op!.bodyFields.map((f) => f.name);
      for (const k of Object.keys(req.body as object)) expect(bodyNames).toContain(k);
      // Required body fields are always sent.
      for (const f of op!.bodyFields.filter((b) => b.required)) expect(Object.keys(req.body as object)).toContain(f.name);
    }
    // The only header the API needs is the key, which the base (or the connection test) adds.
    expect(Object.keys(req.headers ?? {}).filter((h) => h.toLowerCase() !== 'x-api-key')).toEqual([]);
  });

  it('the base sends X-API-Key from the connection and hides it from logs', () => {
    const base = readJsonc('general/base.iml.json') as { headers: Record<string, string>; log: { sanitize: string[] } };
    expect(base.headers).toEqual({ 'X-API-Key': '{{connection.apiKey}}' });
    expect(base.log.sanitize).toContain('request.headers.x-api-key');
    const conn = readJsonc(codeFile('connection', 'apiKey', 'communication')) as { log: { sanitize: string[] } };
    expect(conn.log.sanitize).toContain('request.headers.x-api-key');
  });

  it('every endpoint of the contract is reachable from some component (not counting the universal module)', () => {
    const reached = new Set(reqs.filter((r) => !isUniversal(r.where)).map((r) => operationFor(r.req)?.operationId));
    expect(operations.map((o) => o.operationId).filter((id) => !reached.has(id))).toEqual([]);
  });

  it('the universal module only reaches paths under /v1/ of the base URL', () => {
    const meta = components('module').find(([id]) => id === 'makeApiCall')![1];
    const params = readJsonc(meta.codeFiles.mappableParams!) as unknown as { name: string; validate?: { pattern: string } }[];
    const re = new RegExp(params.find((p) => p.name === 'url')!.validate!.pattern);
    expect(re.test('/v1/account')).toBe(true);
    for (const bad of ['https://evil.example/v1/account', '//evil.example/v1/x', 'v1/account', '/admin']) expect(re.test(bad)).toBe(false);
  });
});

/** Output schema per module, and the fields a module adds on top of the API's own. */
const OUTPUTS: Record<string, { schema: string | null; extras: string[] }> = {
  verifyEmail: { schema: 'SingleResult', extras: ['category', 'group', 'safe_to_send'] },
  submitBulk: { schema: 'BulkSubmission', extras: [] },
  getJob: { schema: 'Job', extras: [] },
  waitForJob: { schema: 'Job', extras: [] },
  listResults: { schema: 'ResultRow', extras: ['category', 'group', 'safe_to_send'] },
  listJobs: { schema: 'JobListItem', extras: [] },
  watchFinishedJobs: { schema: 'JobListItem', extras: [] },
  // The instant trigger outputs the webhook's event and results_url, and the job read back from the API.
  watchJobFinished: { schema: null, extras: ['event', 'results_url', 'job'] },
  getCredits: { schema: 'CreditBalance', extras: ['subscription'] },
  revokeKey: { schema: null, extras: ['key_id', 'revoked'] },
  makeApiCall: { schema: null, extras: ['body', 'headers', 'statusCode'] },
};

/** The contract schema behind a nested interface collection. */
const NESTED: Record<string, string> = { details: 'Details', tags: 'Tag', verdicts: 'Verdicts', buckets: 'Buckets', job: 'Job', subscription: 'Subscription' };

function checkFields(fields: Field[], schema: string, extras: string[], where: string): void {
  const allowed = [...fieldNames(schema), ...extras];
  for (const f of fields) {
    expect({ where, field: f.name, known: allowed.includes(f.name) }).toEqual({ where, field: f.name, known: true });
    const nested = NESTED[f.name];
    if (nested && Array.isArray(f.spec)) checkFields(f.spec, nested, [], `${where}.${f.name}`);
  }
}

describe('interfaces and samples match the contract', () => {
  it('every module has an output entry here', () => {
    expect(components('module').map(([id]) => id).sort()).toEqual(Object.keys(OUTPUTS).sort());
  });

  it.each(Object.entries(OUTPUTS))('%s: every interface field is an API field or a declared extra', (id, out) => {
    const meta = components('module').find(([m]) => m === id)![1];
    const fields = readJsonc(meta.codeFiles.interface!) as unknown as Field[];
    expect(fields.length).toBeGreaterThan(0);
    if (out.schema) {
      checkFields(fields, out.schema, out.extras, id);
      // ...and every API field is offered for mapping.
      for (const name of fieldNames(out.schema)) expect(fields.map((f) => f.name)).toContain(name);
    } else {
      expect(fields.map((f) => f.name).sort()).toEqual([...out.extras].sort());
      const job = fields.find((f) => f.name === 'job');
      if (job) checkFields(job.spec as Field[], 'Job', [], `${id}.job`);
    }
  });

  it.each(Object.entries(OUTPUTS))('%s: the sample is a valid API object plus the extras', (id, out) => {
    const meta = components('module').find(([m]) => m === id)![1];
    const sample = readJsonc(meta.codeFiles.samples!) as Record<string, Json>;
    const wire = Object.fromEntries(Object.entries(sample).filter(([k]) => !out.extras.includes(k) || (out.schema && fieldNames(out.schema).includes(k) && !['category', 'group', 'safe_to_send'].includes(k))));
    if (out.schema) expect(validate(out.schema, wire).errors).toEqual([]);
    if (id === 'watchJobFinished') expect(validate('Job', sample.job).errors).toEqual([]);
    if (id === 'getCredits') expect(validate('Subscription', sample.subscription).errors).toEqual([]);
    for (const k of Object.keys(sample)) {
      expect([...(out.schema ? fieldNames(out.schema) : []), ...out.extras]).toContain(k);
    }
  });

  it('the contract check can fail: an unknown field is caught', () => {
    expect(() => checkFields([{ name: 'deliverability', type: 'text' }], 'SingleResult', [], 'probe')).toThrow();
  });
});

describe('every IML expression in the app is understood by the test evaluator and only uses what Make provides', () => {
  const functions = new Set([...Object.keys(loadImlFunctions()), 'if', 'ifempty', 'get']);
  const MODULE_VARS = ['parameters', 'connection', 'temp', 'now', 'common', 'data', 'body', 'headers', 'statusCode', 'item', 'pagination'];
  const files: { file: string; vars: string[] }[] = [
    { file: 'general/base.iml.json', vars: ['connection', 'body', 'headers', 'statusCode', 'now', 'common', 'temp'] },
    { file: codeFile('connection', 'apiKey', 'communication'), vars: ['parameters', 'body', 'headers', 'statusCode', 'now', 'common', 'temp'] },
    { file: codeFile('webhook', 'jobFinished', 'communication'), vars: ['body', 'headers', 'query', 'method', 'connection', 'parameters', 'now'] },
    { file: codeFile('rpc', 'listJobs', 'communication'), vars: MODULE_VARS },
    ...components('module').flatMap(([id, meta]) =>
      ['communication', 'epoch'].filter((c) => meta.codeFiles[c]).map((c) => ({ file: meta.codeFiles[c]!, vars: id === 'watchJobFinished' ? [...MODULE_VARS, 'payload'] : MODULE_VARS })),
    ),
  ];

  it.each(files)('$file', ({ file, vars }) => {
    const exprs = expressionsIn(readJsonc(file));
    for (const e of exprs) {
      expect(() => parseExpression(e)).not.toThrow();
      const refs = referencesOf(e);
      for (const v of refs.variables) expect({ e, v, ok: vars.includes(v) }).toEqual({ e, v, ok: true });
      for (const f of refs.functions) expect({ e, f, ok: functions.has(f) }).toEqual({ e, f, ok: true });
    }
  });

  it('the evaluator refuses constructs it does not support', () => {
    expect(() => parseExpression('a + b')).toThrow(/not supported/);
    expect(() => parseExpression('a and b')).toThrow();
  });
});
