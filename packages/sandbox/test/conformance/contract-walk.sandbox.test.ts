/**
 * The sandbox speaks the contract: every answer it gives on the wire, success and error, validates
 * against openapi.yaml (the helpers' raw fetch checks each one before the test sees it), and so does
 * the webhook it delivers. Raw fetch, not the client, so nothing between the wire and the check can
 * paper over a difference.
 */
import { createHmac } from 'node:crypto';
import type { Sandbox } from '@evf/sandbox';
import { openapi, validate } from '@evf/contract';
import { startRawReceiver, type RawReceiver } from '../../../../test/support/webhook-receiver';
import { client, start, type CallOptions, type RawResponse } from './helpers';

let sb: Sandbox;
let receiver: RawReceiver;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  sb = await start({ allowInsecureWebhooks: true, queueDelayMs: 1000 });
  call = client(sb);
  receiver = await startRawReceiver(() => 204);
});

afterAll(async () => {
  await sb?.close();
  await receiver?.close();
});

/** One call whose answer the helpers have validated against the contract, with the status expected. */
async function expectConforms(
  method: string,
  path: string,
  opts: CallOptions = {},
  expectedStatus?: number,
): Promise<RawResponse> {
  const [bare, query] = path.split('?');
  const r = await call(method, bare!, {
    ...opts,
    query: Object.fromEntries(new URLSearchParams(query ?? '')),
  });
  if (expectedStatus !== undefined) expect([method, path, r.status]).toEqual([method, path, expectedStatus]);
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
      { body: { emails: LIST, name: 'contract run', priority: 'high', webhook_url: receiver.url } },
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
    // Its own job, so the test does not depend on the lifecycle test having run first.
    const submitted = await expectConforms(
      'POST',
      '/v1/verify/bulk',
      { body: { emails: LIST, webhook_url: receiver.url } },
      202,
    );
    const jobId = (submitted.body as { job_id: string }).job_id;
    const delivered = () => receiver.raw.find((d) => d.headers['x-service-job'] === jobId);
    const end = Date.now() + 10_000;
    while (!delivered() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
    const { headers, rawBody: body } = delivered()!;
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
    try {
      await expectConforms('POST', '/v1/verify/bulk', { body: { emails: ['valid.1@acme-corp.com'] } }, 503);
    } finally {
      sb.faults.resumeNewJobs();
    }
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
