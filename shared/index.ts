/**
 * @evf/contract: the OpenAPI 3.1 document of the service, and validators built from it, so the
 * client's types, the sandbox's answers, nock fixtures and the platforms' outputs are all checked
 * against one description of the wire format.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

export type JsonSchema = { [keyword: string]: unknown };
export type HttpMethod = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

export interface ValidationResult {
  valid: boolean;
  /** Readable messages, each "<json pointer or (root)>: <message>". Empty when valid. */
  errors: string[];
}

export interface FieldInfo {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: HttpMethod;
  /** Path template as in the document, e.g. /v1/jobs/{job_id}/results (relative to the base URL, which ends in /api). */
  path: string;
  operationId: string;
  queryParams: FieldInfo[];
  /** Top-level fields of the JSON request body; empty when the operation takes no body. */
  bodyFields: FieldInfo[];
  /** Response status key ('200', '429', 'default', ...) -> component schema name, or null when no body (204). */
  responseSchemaByStatus: Record<string, string | null>;
  /** Response status key -> names of the headers the document requires on that response. */
  requiredResponseHeaders: Record<string, string[]>;
}

export const OPENAPI_PATH = join(__dirname, 'openapi.yaml');

// The document is read once; it is the single source, so there is no copy in code to drift from.
export const openapi: JsonSchema = parse(readFileSync(OPENAPI_PATH, 'utf8')) as JsonSchema;

const components = openapi.components as {
  schemas: Record<string, JsonSchema>;
  responses: Record<string, JsonSchema>;
  parameters: Record<string, JsonSchema>;
  headers: Record<string, JsonSchema>;
};

export const schemaNames: string[] = Object.keys(components.schemas).sort();

const CONTRACT_ID = 'https://evf.invalid/contract.json';
const COMPONENT_REF = '#/components/schemas/';

/** Rewrites OpenAPI component refs to $defs refs so Ajv can resolve them inside one schema resource. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_REF)) {
        out[key] = `#/$defs/${value.slice(COMPONENT_REF.length)}`;
      } else {
        out[key] = rewriteRefs(value);
      }
    }
    return out;
  }
  return node;
}

function collectExtensionKeywords(node: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(node)) node.forEach((item) => collectExtensionKeywords(item, into));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) into.add(key);
      collectExtensionKeywords(value, into);
    }
  }
  return into;
}

const ajv = new Ajv2020({
  strict: true,
  // `type: [string, 'null']` is how OAS 3.1 spells nullable.
  allowUnionTypes: true,
  // Open schemas (x-not-shown) carry `required` without declaring the property's type on purpose.
  strictRequired: false,
  allErrors: true,
});
addFormats(ajv);
// OpenAPI-only annotations inside schemas: declared so strict mode accepts them as annotations.
ajv.addVocabulary([...collectExtensionKeywords(components.schemas, new Set())]);
ajv.addSchema({ $id: CONTRACT_ID, $defs: rewriteRefs(components.schemas) as Record<string, unknown> });

const validators = new Map<string, ValidateFunction>();

function validatorFor(schemaName: string): ValidateFunction {
  let fn = validators.get(schemaName);
  if (!fn) {
    if (!(schemaName in components.schemas)) {
      throw new Error(`Unknown contract schema "${schemaName}". Known schemas: ${schemaNames.join(', ')}`);
    }
    fn = ajv.getSchema(`${CONTRACT_ID}#/$defs/${schemaName}`);
    if (!fn) throw new Error(`Contract schema "${schemaName}" could not be compiled`);
    validators.set(schemaName, fn);
  }
  return fn;
}

function formatError(schemaName: string, error: ErrorObject): string {
  const where = error.instancePath || '(root)';
  const params = error.params as Record<string, unknown>;
  let detail = '';
  if (error.keyword === 'enum' && Array.isArray(params.allowedValues))
    detail = ` (${params.allowedValues.join(', ')})`;
  if (error.keyword === 'const') detail = ` (${JSON.stringify(params.allowedValue)})`;
  // `not`/`if` failures say nothing useful by themselves; the schema path names the rule that failed.
  if (error.keyword === 'not' || error.keyword === 'if')
    detail = ` (rule ${schemaName}${error.schemaPath.slice(1)})`;
  if (error.keyword === 'additionalProperties') detail = ` ("${String(params.additionalProperty)}")`;
  return `${where}: ${error.message ?? error.keyword}${detail}`;
}

export function validate(schemaName: string, value: unknown): ValidationResult {
  const fn = validatorFor(schemaName);
  const valid = fn(value) as boolean;
  return { valid, errors: valid ? [] : (fn.errors ?? []).map((e) => formatError(schemaName, e)) };
}

export class ContractMismatchError extends Error {
  constructor(
    readonly schemaName: string,
    readonly errors: string[],
  ) {
    super(`Value does not match contract schema ${schemaName}:\n  - ${errors.join('\n  - ')}`);
    this.name = 'ContractMismatchError';
  }
}

export function assertMatches(schemaName: string, value: unknown): void {
  const result = validate(schemaName, value);
  if (!result.valid) throw new ContractMismatchError(schemaName, result.errors);
}

/** Top-level property names a schema declares (following one $ref and allOf), in document order. */
export function fieldNames(schemaName: string): string[] {
  validatorFor(schemaName);
  return Object.keys(collectProperties(components.schemas[schemaName]));
}

function resolve<T extends JsonSchema>(
  node: JsonSchema,
  section: Record<string, JsonSchema>,
  prefix: string,
): T {
  const ref = node.$ref;
  if (typeof ref === 'string' && ref.startsWith(prefix)) return section[ref.slice(prefix.length)] as T;
  return node as T;
}

function collectProperties(schema: JsonSchema): Record<string, JsonSchema> {
  const resolved = resolve(schema, components.schemas, COMPONENT_REF);
  const props: Record<string, JsonSchema> = {
    ...((resolved.properties as Record<string, JsonSchema>) ?? {}),
  };
  for (const part of (resolved.allOf as JsonSchema[] | undefined) ?? [])
    Object.assign(props, collectProperties(part));
  return props;
}

function collectRequired(schema: JsonSchema): string[] {
  const resolved = resolve(schema, components.schemas, COMPONENT_REF);
  const own = (resolved.required as string[] | undefined) ?? [];
  return [...own, ...((resolved.allOf as JsonSchema[] | undefined) ?? []).flatMap(collectRequired)];
}

function schemaRefName(schema: JsonSchema | undefined): string | null {
  const ref = schema?.$ref;
  if (typeof ref !== 'string' || !ref.startsWith(COMPONENT_REF)) {
    throw new Error(`Contract responses must reference a component schema, found ${JSON.stringify(schema)}`);
  }
  return ref.slice(COMPONENT_REF.length);
}

const METHODS = ['get', 'post', 'delete', 'put', 'patch'] as const;

function buildOperations(): Operation[] {
  const ops: Operation[] = [];
  const paths = openapi.paths as Record<string, JsonSchema>;
  for (const [path, item] of Object.entries(paths)) {
    const shared = (item.parameters as JsonSchema[] | undefined) ?? [];
    for (const method of METHODS) {
      const op = item[method] as JsonSchema | undefined;
      if (!op) continue;
      const params = [...shared, ...((op.parameters as JsonSchema[] | undefined) ?? [])].map((p) =>
        resolve(p, components.parameters, '#/components/parameters/'),
      );
      const queryParams = params
        .filter((p) => p.in === 'query')
        .map((p) => ({
          name: String(p.name),
          required: p.required === true,
          schema: p.schema as JsonSchema,
        }));
      const bodySchema = (
        (op.requestBody as JsonSchema | undefined)?.content as Record<string, JsonSchema> | undefined
      )?.['application/json']?.schema as JsonSchema | undefined;
      const required = bodySchema ? collectRequired(bodySchema) : [];
      const bodyFields = bodySchema
        ? Object.entries(collectProperties(bodySchema)).map(([name, schema]) => ({
            name,
            required: required.includes(name),
            schema: resolve(schema, components.schemas, COMPONENT_REF),
          }))
        : [];
      const responseSchemaByStatus: Record<string, string | null> = {};
      const requiredResponseHeaders: Record<string, string[]> = {};
      for (const [status, raw] of Object.entries(op.responses as Record<string, JsonSchema>)) {
        const response = resolve(raw, components.responses, '#/components/responses/');
        const content = response.content as Record<string, JsonSchema> | undefined;
        responseSchemaByStatus[status] = content
          ? schemaRefName(content['application/json']?.schema as JsonSchema)
          : null;
        const headers = (response.headers as Record<string, JsonSchema> | undefined) ?? {};
        requiredResponseHeaders[status] = Object.entries(headers)
          .filter(([, h]) => resolve(h, components.headers, '#/components/headers/').required === true)
          .map(([name]) => name);
      }
      ops.push({
        method: method.toUpperCase() as HttpMethod,
        path,
        operationId: String(op.operationId),
        queryParams,
        bodyFields,
        responseSchemaByStatus,
        requiredResponseHeaders,
      });
    }
  }
  return ops;
}

export const operations: Operation[] = buildOperations();

function templateToRegExp(template: string): RegExp {
  const escaped = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${escaped}$`);
}

const matchers = operations.map((op) => ({ op, re: templateToRegExp(op.path) }));

/**
 * Finds the operation for a concrete request path. Accepts a path relative to the base URL
 * (/v1/jobs/abc), one that still carries the /api prefix, or a full URL; the query string is ignored.
 */
export function findOperation(method: string, path: string): Operation | undefined {
  let p = path;
  if (/^https?:\/\//i.test(p)) p = new URL(p).pathname;
  p = p.split('?')[0].replace(/\/+$/, '');
  const v1 = p.indexOf('/v1/');
  if (v1 > 0) p = p.slice(v1);
  const upper = method.toUpperCase();
  // Literal paths win over templates, so /v1/jobs never reads as /v1/jobs/{job_id}.
  const candidates = matchers.filter((m) => m.op.method === upper && m.re.test(p));
  candidates.sort((a, b) => a.op.path.split('{').length - b.op.path.split('{').length);
  return candidates[0]?.op;
}

function statusKey(op: Operation, status: number): string | undefined {
  const exact = String(status);
  if (exact in op.responseSchemaByStatus) return exact;
  const range = `${exact[0]}XX`;
  if (range in op.responseSchemaByStatus) return range;
  if ('default' in op.responseSchemaByStatus) return 'default';
  return undefined;
}

/**
 * The component schema name the document gives for a response, or null when the response has no
 * body (204). Throws when the path, method or status is not in the contract.
 */
export function responseSchemaFor(method: string, path: string, status: number): string | null {
  const op = findOperation(method, path);
  if (!op) throw new Error(`${method.toUpperCase()} ${path} is not an operation of the contract`);
  const key = statusKey(op, status);
  if (key === undefined) throw new Error(`${op.method} ${op.path} does not document status ${status}`);
  return op.responseSchemaByStatus[key];
}

/**
 * Validates a response body (parsed JSON, or undefined/'' for no body) for a concrete request, and,
 * when `headers` is given, that the headers the document requires are present (case-insensitive).
 */
export function validateResponse(
  method: string,
  path: string,
  status: number,
  body: unknown,
  headers?: Record<string, string | string[] | undefined>,
): ValidationResult {
  const op = findOperation(method, path);
  if (!op)
    return { valid: false, errors: [`${method.toUpperCase()} ${path} is not an operation of the contract`] };
  const key = statusKey(op, status);
  if (key === undefined)
    return { valid: false, errors: [`${op.method} ${op.path} does not document status ${status}`] };
  const errors: string[] = [];
  const schemaName = op.responseSchemaByStatus[key];
  if (schemaName === null) {
    if (body !== undefined && body !== null && body !== '')
      errors.push(`(root): status ${status} has no body, got one`);
  } else {
    errors.push(...validate(schemaName, body).errors);
  }
  if (headers) {
    const present = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
    for (const name of op.requiredResponseHeaders[key] ?? []) {
      if (!present.has(name.toLowerCase())) errors.push(`(headers): missing required header ${name}`);
    }
  }
  return { valid: errors.length === 0, errors };
}
