/**
 * Static checks of every request and every output against the contract (shared/openapi.yaml): no
 * component can name an endpoint, a query or body field, or an output field the API does not have,
 * and every endpoint of the contract is reachable from some component.
 */
import { operations, fieldNames, validate, type Operation } from '@evf/contract';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { APP_DIR, codeFile, components, listAppFiles, readJsonc, type Json } from './harness/app-files';
import { FILES_WITH_SERVICE_ADDRESS, SERVICE_ADDRESS_PLACEHOLDER } from '../deploy/service-address';
import { expressionsIn, parseExpression } from './harness/iml';
import {
  checkBase,
  checkConnection,
  checkModule,
  checkRpc,
  checkWebhook,
  loadModule,
  loadWebhook,
} from './harness/make-runtime';

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
    // An instant trigger may make no request at all (its communication is only an output).
    for (const req of Array.isArray(c) ? c : [c])
      if (req.url !== undefined) out.push({ where: `module ${id}`, req });
    if (meta.codeFiles.epoch)
      out.push({ where: `module ${id} epoch`, req: readJsonc(meta.codeFiles.epoch) as unknown as Req });
  }
  for (const [id] of components('rpc'))
    out.push({ where: `rpc ${id}`, req: readJsonc(codeFile('rpc', id, 'communication')) as unknown as Req });
  const conn = readJsonc(codeFile('connection', 'apiKey', 'communication')) as unknown as Req;
  out.push({ where: 'connection', req: { ...conn, url: conn.url.replace(SERVICE_ADDRESS_PLACEHOLDER, '') } });
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
    return (
      opSegs.length === segments.length &&
      opSegs.every((s, i) => (s.startsWith('{') ? segments[i] === '*' : s === segments[i]))
    );
  });
}

describe('requests match the contract', () => {
  const reqs = requestsOf();

  it.each(reqs.filter((r) => !isUniversal(r.where)).map((r) => [r.where, r.req] as const))(
    '%s: endpoint, query and body fields exist',
    (_where, req) => {
      const op = operationFor(req);
      expect(op).toBeDefined();
      const queryNames = op!.queryParams.map((q) => q.name);
      for (const k of [...Object.keys(req.qs ?? {}), ...Object.keys(req.pagination?.qs ?? {})])
        expect(queryNames).toContain(k);
      if (req.body !== undefined) {
        expect(typeof req.body).toBe('object');
        const bodyNames = op!.bodyFields.map((f) => f.name);
        for (const k of Object.keys(req.body as object)) expect(bodyNames).toContain(k);
        // Required body fields are always sent.
        for (const f of op!.bodyFields.filter((b) => b.required))
          expect(Object.keys(req.body as object)).toContain(f.name);
      }
      // The only header the API needs is the key, which the base (or the connection test) adds.
      expect(Object.keys(req.headers ?? {}).filter((h) => h.toLowerCase() !== 'x-api-key')).toEqual([]);
    },
  );

  it('the service address is a literal placeholder in the base and the connection alone, which the deploy replaces', () => {
    const holders = listAppFiles().filter((f) =>
      readFileSync(join(APP_DIR, f), 'utf8').includes(SERVICE_ADDRESS_PLACEHOLDER),
    );
    expect(holders.sort()).toEqual([...FILES_WITH_SERVICE_ADDRESS].sort());
    expect((readJsonc('general/base.iml.json') as { baseUrl: string }).baseUrl).toBe(
      SERVICE_ADDRESS_PLACEHOLDER,
    );
    // Nothing reads common data: the app's is empty, and the connection would not see it anyway.
    expect(readJsonc('general/common.json')).toEqual({});
    for (const f of listAppFiles())
      expect(readFileSync(join(APP_DIR, f), 'utf8')).not.toMatch(/\{\{\s*common\./);
  });

  it('the base sends X-API-Key from the connection and hides it from logs', () => {
    const base = readJsonc('general/base.iml.json') as {
      headers: Record<string, string>;
      log: { sanitize: string[] };
    };
    expect(base.headers).toEqual({ 'X-API-Key': '{{connection.apiKey}}' });
    expect(base.log.sanitize).toContain('request.headers.x-api-key');
    const conn = readJsonc(codeFile('connection', 'apiKey', 'communication')) as {
      log: { sanitize: string[] };
    };
    expect(conn.log.sanitize).toContain('request.headers.x-api-key');
  });

  it('every endpoint of the contract is reachable from some component (not counting the universal module)', () => {
    const reached = new Set(
      reqs.filter((r) => !isUniversal(r.where)).map((r) => operationFor(r.req)?.operationId),
    );
    expect(operations.map((o) => o.operationId).filter((id) => !reached.has(id))).toEqual([]);
  });

  it('the universal module only reaches paths under /v1/ of the base URL', () => {
    const meta = components('module').find(([id]) => id === 'makeApiCall')![1];
    const params = readJsonc(meta.codeFiles.mappableParams!) as unknown as {
      name: string;
      validate?: { pattern: string };
    }[];
    const re = new RegExp(params.find((p) => p.name === 'url')!.validate!.pattern);
    expect(re.test('/v1/account')).toBe(true);
    for (const bad of ['https://evil.example/v1/account', '//evil.example/v1/x', 'v1/account', '/admin'])
      expect(re.test(bad)).toBe(false);
  });
});

/** Output schema per module, and the fields a module adds on top of the API's own. */
const OUTPUTS: Record<string, { schema: string | null; extras: string[] }> = {
  verifyEmail: { schema: 'SingleResult', extras: ['category', 'group', 'safe_to_send', 'sent', 'problem'] },
  submitBulk: { schema: 'BulkSubmission', extras: [] },
  getJob: { schema: 'Job', extras: [] },
  waitForJob: { schema: 'Job', extras: [] },
  // Each row also says where it came from and how the next round goes on (page, rows left, next page).
  listResults: {
    schema: 'ResultRow',
    extras: [
      'category',
      'group',
      'safe_to_send',
      'is_row',
      'page',
      'rows_in_job',
      'rows_after_this_run',
      'job_finished',
      'next_start_page',
    ],
  },
  listJobs: { schema: 'JobListItem', extras: [] },
  watchNewJobs: { schema: 'JobListItem', extras: [] },
  // The instant trigger outputs what the delivery announced: the job ID and the event name, no more.
  // (two of WebhookBody's fields; a subset, so no schema is checked whole here).
  watchJobFinished: { schema: null, extras: ['job_id', 'event'] },
  getCredits: { schema: 'CreditBalance', extras: ['subscription'] },
  revokeKey: { schema: null, extras: ['key_id', 'revoked'] },
  makeApiCall: { schema: null, extras: ['body', 'headers', 'statusCode'] },
};

/** The contract schema behind a nested interface collection. */
const NESTED: Record<string, string> = {
  details: 'Details',
  tags: 'Tag',
  verdicts: 'Verdicts',
  buckets: 'Buckets',
  job: 'Job',
  subscription: 'Subscription',
};

function checkFields(fields: Field[], schema: string, extras: string[], where: string): void {
  const allowed = [...fieldNames(schema), ...extras];
  for (const f of fields) {
    expect({ where, field: f.name, known: allowed.includes(f.name) }).toEqual({
      where,
      field: f.name,
      known: true,
    });
    const nested = NESTED[f.name];
    if (nested && Array.isArray(f.spec)) checkFields(f.spec, nested, [], `${where}.${f.name}`);
  }
}

describe('interfaces and samples match the contract', () => {
  it('every module has an output entry here', () => {
    expect(
      components('module')
        .map(([id]) => id)
        .sort(),
    ).toEqual(Object.keys(OUTPUTS).sort());
  });

  it.each(Object.entries(OUTPUTS))(
    '%s: every interface field is an API field or a declared extra',
    (id, out) => {
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
    },
  );

  it.each(Object.entries(OUTPUTS))('%s: the sample is a valid API object plus the extras', (id, out) => {
    const meta = components('module').find(([m]) => m === id)![1];
    const sample = readJsonc(meta.codeFiles.samples!) as Record<string, Json>;
    const wire = Object.fromEntries(
      Object.entries(sample).filter(
        ([k]) =>
          !out.extras.includes(k) ||
          (out.schema &&
            fieldNames(out.schema).includes(k) &&
            !['category', 'group', 'safe_to_send'].includes(k)),
      ),
    );
    if (out.schema) expect(validate(out.schema, wire).errors).toEqual([]);
    if (id === 'getCredits') expect(validate('Subscription', sample.subscription).errors).toEqual([]);
    for (const k of Object.keys(sample)) {
      expect([...(out.schema ? fieldNames(out.schema) : []), ...out.extras]).toContain(k);
    }
  });

  it('the contract check can fail: an unknown field is caught', () => {
    expect(() =>
      checkFields([{ name: 'deliverability', type: 'text' }], 'SingleResult', [], 'probe'),
    ).toThrow();
  });
});

describe('every component keeps to the Make rules the harness enforces (harness/make-rules.ts)', () => {
  it("the base: timeout inside Make's, built-in functions only, base variables only", () => {
    expect(() => checkBase()).not.toThrow();
  });
  it('the connection test request', () => {
    expect(() => checkConnection()).not.toThrow();
  });
  it.each(components('rpc').map(([id]) => id))('rpc %s', (id) => {
    expect(() => checkRpc(id)).not.toThrow();
  });
  it.each(components('module').map(([id]) => id))('module %s', (id) => {
    expect(() => checkModule(loadModule(id))).not.toThrow();
  });
  it.each(components('webhook').map(([id]) => id))('webhook %s', (id) => {
    expect(() => checkWebhook(loadWebhook(id))).not.toThrow();
  });
  it('the app defines no custom IML function', () => {
    expect(components('function')).toEqual([]);
  });
  it('every expression parses, and the evaluator refuses what it does not support', () => {
    const files = [
      'general/base.iml.json',
      codeFile('connection', 'apiKey', 'communication'),
      ...components('webhook').map(([id]) => codeFile('webhook', id, 'communication')),
      ...components('rpc').map(([id]) => codeFile('rpc', id, 'communication')),
      ...components('module').flatMap(([, meta]) =>
        ['communication', 'epoch'].filter((c) => meta.codeFiles[c]).map((c) => meta.codeFiles[c]!),
      ),
    ];
    for (const f of files)
      for (const e of expressionsIn(readJsonc(f))) expect(() => parseExpression(e)).not.toThrow();
    expect(() => parseExpression('a % b')).toThrow(/not supported/);
    expect(() => parseExpression('a and b')).toThrow();
  });
});
