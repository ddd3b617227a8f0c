/**
 * The sandbox speaks the contract: every answer it gives on the wire, success and error, validates
 * against openapi.yaml, and so does the webhook it delivers. Raw fetch, not the client, so nothing
 * between the wire and the check can paper over a difference.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { openapi, validate, validateResponse } from '@evf/contract';

let sb: Sandbox;
let receiver: Server;
let hookUrl: string;
const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.01, rowsPerSecond: 2000, allowInsecureWebhooks: true });
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  await sb?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

async function call(
  method: string,
  path: string,
  opts: { body?: unknown; key?: string | null } = {},
): Promise<WireResponse> {
  const headers: Record<string, string> = {};
  if (opts.key !== null) headers['X-API-Key'] = opts.key ?? sb.apiKey;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${sb.baseUrl}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const responseHeaders: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    responseHeaders[name] = value;
  });
  const text = await res.text();
  let body: unknown = text;
  if (text !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      // Kept as text: the contract leaves error bodies open, success bodies must be JSON and will fail.
    }
  }
  return { status: res.status, headers: responseHeaders, body };
}

async function expectConforms(
  method: string,
  path: string,
  opts: { body?: unknown; key?: string | null } = {},
  expectedStatus?: number,
) {
  const r = await call(method, path, opts);
  if (expectedStatus !== undefined) expect([method, path, r.status]).toEqual([method, path, expectedStatus]);
  expect([
    method,
    path,
    r.status,
    validateResponse(method, path, r.status, r.body, r.headers).errors,
  ]).toEqual([method, path, r.status, []]);
  return r;
}

async function waitTerminal(jobId: string, deadlineMs = 10_000): Promise<Record<string, unknown>> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const r = await expectConforms('GET', `/v1/jobs/${jobId}`, {}, 200);
    const job = r.body as Record<string, unknown>;
    if (job.terminal === true) return job;
    if (Date.now() > end) throw new Error(`job ${jobId} not terminal after ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const LIST = [
  'valid.a@acme-corp.com',
  'info@acme-corp.com',
  'catchall.b@bigcorp.io',
  'trap.c@oldlist.net',
  'temp.d@mailinator.com',
  'invalid.e@acme-corp.com',
  'unknown.f@slowmail.org',
  'full.g@example-mail.com',
  'notverified.h@x-corp.com',
  'disabled.i@acme-corp.com',
  'VALID.A@acme-corp.com',
];

describe('the sandbox answers as the contract says', () => {
  it('verify single: 200 for each outcome, 408 for a slow mail server', async () => {
    for (const email of LIST) await expectConforms('POST', '/v1/verify/single', { body: { email } }, 200);
    await expectConforms(
      'POST',
      '/v1/verify/single',
      { body: { email: 'valid.x@acme-corp.com', check_smtp: false } },
      200,
    );
    await expectConforms('POST', '/v1/verify/single', { body: { email: 'slow.z@acme-corp.com' } }, 408);
  });

  it('bulk job lifecycle: 202, job while running and finished, result pages, job list', async () => {
    const submitted = await expectConforms(
      'POST',
      '/v1/verify/bulk',
      { body: { emails: LIST, name: 'contract run', priority: 'high', webhook_url: hookUrl } },
      202,
    );
    const jobId = (submitted.body as { job_id: string }).job_id;
    await expectConforms('GET', `/v1/jobs/${jobId}`, {}, 200);
    await expectConforms('GET', `/v1/jobs/${jobId}/results`, {}, 200);
    const job = await waitTerminal(jobId);
    expect(job.status).toBe('completed');
    const page1 = await expectConforms('GET', `/v1/jobs/${jobId}/results?page=1&per_page=4`, {}, 200);
    expect((page1.body as { has_more: boolean }).has_more).toBe(true);
    const last = await expectConforms('GET', `/v1/jobs/${jobId}/results?page=3&per_page=4`, {}, 200);
    expect((last.body as { has_more: boolean }).has_more).toBe(false);
    await expectConforms('GET', `/v1/jobs/${jobId}/results?per_page=1000`, {}, 200);
    await expectConforms('GET', '/v1/jobs', {}, 200);
    await expectConforms('GET', '/v1/jobs?status=completed&limit=100&offset=0', {}, 200);
  });

  it('delivers a webhook whose headers and body match the contract and whose signature verifies', async () => {
    const end = Date.now() + 10_000;
    while (deliveries.length === 0 && Date.now() < end)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(deliveries.length).toBeGreaterThanOrEqual(1);
    const { headers, body } = deliveries[0];
    const parsed = JSON.parse(body);
    expect(validate('WebhookBody', parsed).errors).toEqual([]);
    const params = (
      openapi.components as {
        parameters: Record<string, { name: string; schema: { const?: string; pattern?: string } }>;
      }
    ).parameters;
    expect(headers['user-agent']).toBe(params.WebhookUserAgent.schema.const);
    expect(headers['content-type']).toMatch(/^application\/json/);
    expect(headers['x-service-event']).toBe(parsed.event);
    expect(headers['x-service-job']).toBe(parsed.job_id);
    expect(String(headers['x-service-timestamp'])).toMatch(
      new RegExp(params.WebhookTimestamp.schema.pattern!),
    );
    expect(String(headers['x-service-signature'])).toMatch(
      new RegExp(params.WebhookSignature.schema.pattern!),
    );
    const expected = createHmac('sha256', sb.webhookSecret)
      .update(`${headers['x-service-timestamp']}.${body}`)
      .digest('hex');
    expect(headers['x-service-signature']).toBe(`v1=${expected}`);
  });

  it('a job that fails midway reads as the contract says', async () => {
    sb.faults.failJob(undefined, { afterRows: 3, error: 'stopped for the contract test' });
    const submitted = await expectConforms('POST', '/v1/verify/bulk', { body: { emails: LIST } }, 202);
    const job = await waitTerminal((submitted.body as { job_id: string }).job_id);
    expect([job.status, typeof job.error]).toEqual(['failed', 'string']);
    await expectConforms('GET', `/v1/jobs/${job.job_id}/results`, {}, 200);
  });

  it('account endpoints', async () => {
    await expectConforms('GET', '/v1/account/credits', {}, 200);
    await expectConforms('GET', '/v1/account', {}, 200);
    await expectConforms('GET', '/v1/subscription', {}, 200);
  });

  it('errors: 401, 402, 404, 422, 429 with X-RateLimit-Reset, 503 with Retry-After', async () => {
    await expectConforms('GET', '/v1/account', { key: null }, 401);
    await expectConforms('GET', '/v1/account', { key: 'evf_not_a_real_key_000000' }, 401);
    const poor = sb.addAccount({ id: 'acct_contract_poor', plan: 'starter', credits: 2 });
    await expectConforms(
      'POST',
      '/v1/verify/bulk',
      {
        key: poor.apiKey,
        body: { emails: ['valid.1@acme-corp.com', 'valid.2@acme-corp.com', 'valid.3@acme-corp.com'] },
      },
      402,
    );
    await expectConforms('DELETE', '/v1/keys/key_does_not_exist', {}, 404);
    await expectConforms('GET', '/v1/jobs/job_does_not_exist');
    await expectConforms(
      'POST',
      '/v1/verify/bulk',
      { body: { emails: ['valid.1@acme-corp.com', 'not an address'] } },
      422,
    );
    await expectConforms(
      'POST',
      '/v1/verify/bulk',
      { body: { emails: ['valid.1@acme-corp.com'], webhook_url: 'https://10.1.2.3/hook' } },
      422,
    );
    sb.faults.failNext({ path: '/v1/verify/bulk', status: 429 });
    await expectConforms('POST', '/v1/verify/bulk', { body: { emails: ['valid.1@acme-corp.com'] } }, 429);
    sb.faults.failNext({ path: '/v1/verify/single', status: 429 });
    await expectConforms('POST', '/v1/verify/single', { body: { email: 'valid.1@acme-corp.com' } }, 429);
    sb.faults.pauseNewJobs({ retryAfterSeconds: 5 });
    await expectConforms('POST', '/v1/verify/bulk', { body: { emails: ['valid.1@acme-corp.com'] } }, 503);
  });

  it('revoking a key: 204 with no body; the revoked key is refused; unknown key_id is 404', async () => {
    const newKey = 'evf_contract_rotation_new_8d2f4a61c0b9';
    const extra = sb.addAccount({
      id: 'acct_contract_revoke',
      plan: 'pro',
      credits: 10,
      keys: [{ id: 'key_contract_old' }, { id: 'key_contract_new', key: newKey }],
    });
    await expectConforms('GET', '/v1/account', { key: newKey }, 200);
    await expectConforms('DELETE', '/v1/keys/key_contract_new', { key: extra.apiKey }, 204);
    await expectConforms('GET', '/v1/account', { key: newKey }, 401);
    await expectConforms('DELETE', '/v1/keys/key_contract_never_existed', { key: extra.apiKey }, 404);
  });
});
