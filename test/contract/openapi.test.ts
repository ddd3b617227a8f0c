import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { compileErrors, validate as validateOas, dereference } from '@readme/openapi-parser';
import { OPENAPI_PATH, openapi, operations, schemaNames, validate } from '@evf/contract';

type Doc = Record<string, any>;
const freshDoc = (): Doc => parse(readFileSync(OPENAPI_PATH, 'utf8'));

// Written from the spec's "Endpoints" section, independently of the document.
const SPEC_ENDPOINTS = [
  'POST /v1/verify/single',
  'POST /v1/verify/bulk',
  'GET /v1/jobs/{job_id}',
  'GET /v1/jobs/{job_id}/results',
  'GET /v1/jobs',
  'GET /v1/account/credits',
  'GET /v1/account',
  'GET /v1/subscription',
  'DELETE /v1/keys/{key_id}',
];

const op = (method: string, path: string) => freshDoc().paths[path][method.toLowerCase()];
const queryParam = (method: string, path: string, name: string) =>
  op(method, path).parameters.find((p: Doc) => p.name === name && p.in === 'query');

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validateOas(freshDoc() as any);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(result.valid).toBe(true);
    expect(result.warnings).toEqual([]);
    expect(openapi.openapi).toBe('3.1.0');
  });

  it('fails validation when broken (the check above can fail)', async () => {
    const broken = freshDoc();
    delete broken.paths['/v1/jobs'].get.responses;
    broken.paths['/v1/account'].get.parameters = [{ name: 'x', in: 'nowhere' }];
    const result = await validateOas(broken as any);
    expect(result.valid).toBe(false);
  });

  it('dereferences completely', async () => {
    const doc = await dereference(freshDoc() as any);
    expect(JSON.stringify(doc)).not.toContain('"$ref"');
  });

  it('has exactly the endpoints of the spec', () => {
    const documented = operations.map((o) => `${o.method} ${o.path}`).sort();
    expect(documented).toEqual([...SPEC_ENDPOINTS].sort());
  });

  it('names the server with a base URL ending in /api and the X-API-Key scheme', () => {
    const server = (openapi.servers as Doc[])[0];
    expect(server.url).toBe('{base_url}');
    expect(server.variables.base_url.default).toMatch(/\/api$/);
    const scheme = (openapi.components as Doc).securitySchemes.ApiKeyAuth;
    expect(scheme).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(scheme.description).toContain('evf_');
    expect(openapi.security).toEqual([{ ApiKeyAuth: [] }]);
  });

  it('carries the limits and defaults of the spec', () => {
    expect(queryParam('GET', '/v1/jobs/{job_id}/results', 'per_page').schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 100,
    });
    expect(queryParam('GET', '/v1/jobs/{job_id}/results', 'page').schema).toEqual({
      type: 'integer',
      minimum: 1,
      default: 1,
    });
    expect(queryParam('GET', '/v1/jobs', 'limit').schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    expect(queryParam('GET', '/v1/jobs', 'offset').schema).toEqual({
      type: 'integer',
      minimum: 0,
      default: 0,
    });
    expect(queryParam('GET', '/v1/jobs', 'status')['x-not-shown']).toBe(true);
    const schemas = freshDoc().components.schemas;
    expect(schemas.VerifyBulkRequest.properties.emails).toMatchObject({ minItems: 1, maxItems: 50000 });
    expect(schemas.VerifyBulkRequest.properties.name.maxLength).toBe(255);
    expect(schemas.VerifyBulkRequest.properties.webhook_url.maxLength).toBe(2048);
    for (const rule of [
      'https://',
      'public address',
      'localhost',
      'port 443',
      '1024',
      'username or password',
      '2,048',
    ]) {
      expect(schemas.VerifyBulkRequest.properties.webhook_url.description).toContain(rule);
    }
    // RFC 3986 3.1: a scheme is case-insensitive, so HTTPS:// uses https:// as the spec asks.
    for (const [url, ok] of [
      ['https://hooks.example.com/x', true],
      ['HTTPS://hooks.example.com/x', true],
      ['HttpS://hooks.example.com/x', true],
      ['http://hooks.example.com/x', false],
      ['ftp://hooks.example.com/x', false],
    ] as const) {
      expect([url, validate('VerifyBulkRequest', { emails: ['a@b.co'], webhook_url: url }).valid]).toEqual([
        url,
        ok,
      ]);
    }
    expect(schemas.Priority.enum).toEqual(['normal', 'high', 'urgent']);
    expect(schemas.VerifySingleRequest.properties.check_smtp.default).toBe(true);
    expect(schemas.VerifyBulkRequest.properties.check_smtp.default).toBe(true);
  });

  it('documents every error status the spec names, with the wait headers', () => {
    const responses = (method: string, path: string) => Object.keys(op(method, path).responses);
    expect(responses('POST', '/v1/verify/single')).toEqual(
      expect.arrayContaining(['200', '402', '408', '429']),
    );
    expect(responses('POST', '/v1/verify/bulk')).toEqual(
      expect.arrayContaining(['202', '402', '422', '429', '503']),
    );
    expect(responses('DELETE', '/v1/keys/{key_id}')).toEqual(expect.arrayContaining(['204', '404']));
    // Statuses the sandbox answers that the spec does not show are listed too, marked x-not-shown
    // (packages/sandbox/test/conformance/statuses.sandbox.test.ts holds the sandbox to this list).
    expect(responses('POST', '/v1/verify/single')).toEqual(
      expect.arrayContaining(['400', '403', '413', '422']),
    );
    expect(responses('GET', '/v1/jobs/{job_id}')).toEqual(expect.arrayContaining(['404']));
    expect(responses('GET', '/v1/jobs/{job_id}/results')).toEqual(expect.arrayContaining(['404', '422']));
    for (const name of [
      'JobNotFound',
      'AddressRefused',
      'InvalidQuery',
      'InvalidBody',
      'BodyTooLarge',
      'NoApiAccess',
    ])
      expect([name, freshDoc().components.responses[name]['x-not-shown']]).toEqual([name, true]);
    const comps = freshDoc().components;
    expect(Object.keys(comps.responses.RateLimited.headers)).toEqual(['X-RateLimit-Reset']);
    expect(Object.keys(comps.responses.JobsPaused.headers)).toEqual(['Retry-After']);
    expect(comps.responses.AuthenticationFailed['x-not-shown']).toBe(true);
    expect(comps.responses.AuthenticationFailed.description).toContain('not shown');
    for (const o of operations) expect(o.responseSchemaByStatus['401']).toBe('Error');
  });

  it('marks what the spec does not show and keeps those schemas open', () => {
    const s = freshDoc().components.schemas;
    for (const name of ['Error', 'Account', 'Subscription', 'JobStatus', 'ApiKeyRecord'])
      expect(s[name]['x-not-shown']).toBe(true);
    expect(s.CreditBalance.properties.plan_limit['x-not-shown']).toBe(true);
    expect(validate('Error', 'upstream proxy said no').valid).toBe(true);
    expect(validate('Error', { message: 'x', code: 7 }).valid).toBe(true);
    expect(validate('Error', null).valid).toBe(true);
    for (const planLimit of [null, 100000, { monthly: 5 }, 'unlimited']) {
      expect(
        validate('CreditBalance', {
          credits: 1,
          credits_used_today: 0,
          credits_used_this_month: 0,
          plan_limit: planLimit,
          renewal_date: '2026-02-01T00:00:00Z',
        }).valid,
      ).toBe(true);
    }
    expect(
      validate('Account', { plan: { id: 'growth' }, credits: 1, credits_used_today: 0, anything: 'else' })
        .valid,
    ).toBe(true);
    expect(
      validate('Subscription', {
        status: 1,
        plan: null,
        credits: '5',
        renewal_date: 0,
        has_billing: 'yes',
        is_trial: false,
        trial_expired: false,
      }).valid,
    ).toBe(true);
    expect(validate('Subscription', { status: 'active' }).valid).toBe(false);
  });

  it('accepts job statuses beyond the known ones, since the terminal set is not shown', () => {
    expect(validate('JobStatus', 'archived').valid).toBe(true);
    expect(validate('JobStatus', 3).valid).toBe(false);
    const known = freshDoc().components.schemas.JobStatus.anyOf[0].enum;
    expect(known).toEqual(['queued', 'processing', 'completed', 'failed', 'interrupted', 'cancelled']);
  });

  it('has the closed enums of the spec', () => {
    expect(validate('PrimaryLabel', 'catch_all').valid).toBe(true);
    expect(validate('PrimaryLabel', 'catchall').valid).toBe(false);
    expect(validate('TagLabel', 'role').valid).toBe(true);
    expect(validate('TagLabel', 'free_provider').valid).toBe(false);
    expect(validate('SingleStatus', 'risky').valid).toBe(true);
    expect(validate('SingleStatus', 'catch_all').valid).toBe(false);
  });

  it('has a schema for every resource of the spec', () => {
    for (const name of [
      'SingleResult',
      'Details',
      'Tag',
      'Job',
      'Verdicts',
      'Buckets',
      'BulkSubmission',
      'JobListItem',
      'JobList',
      'ResultsPage',
      'ResultRow',
      'CreditBalance',
      'Account',
      'Subscription',
      'Error',
      'WebhookBody',
    ]) {
      expect(schemaNames).toContain(name);
    }
  });

  it('describes both webhooks with every header and the body', () => {
    const webhooks = freshDoc().webhooks;
    expect(Object.keys(webhooks).sort()).toEqual(['job.completed', 'job.failed']);
    const params = freshDoc().components.parameters;
    for (const event of ['job.completed', 'job.failed']) {
      const post = webhooks[event].post;
      const names = post.parameters.map((p: Doc) => (p.$ref ? params[p.$ref.split('/').pop()].name : p.name));
      expect(names).toEqual([
        'User-Agent',
        'X-Service-Event',
        'X-Service-Job',
        'X-Service-Timestamp',
        'X-Service-Signature',
      ]);
      expect(post.requestBody.content['application/json'].schema.allOf[0].$ref).toBe(
        '#/components/schemas/WebhookBody',
      );
    }
    expect(params.WebhookSignature.schema.pattern).toBe('^v1=[0-9a-f]{64}$');
    expect(params.WebhookUserAgent.schema.const).toBe('Service-Webhook/1');
  });
});
