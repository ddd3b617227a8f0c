/**
 * The Watch Bulk Job Finished path: the shared webhook vectors through the Make webhook component,
 * then real deliveries from the sandbox to a local receiver that runs the component, followed by the
 * instant trigger reading the job back with the API key.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signWebhook } from '@evf/client';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { validate } from '@evf/contract';
import { webhookVectors } from '@evf/contract/test-vectors';
import { loadImlFunctions } from './support/iml-functions';
import { receiveWebhook, runModule, type MakeConnection, type WebhookOutcome } from './support/make-runtime';

const vectors = webhookVectors;

/**
 * Make hands the webhook a parsed body, so a body whose bytes are not compact JSON cannot be
 * checked byte for byte. Only this vector is affected; see README.md, "Webhook signatures".
 */
const NOT_CHECKABLE_BY_MAKE = ['body_reserialized_whitespace'];

const verify = loadImlFunctions().evfVerifyWebhook as (...args: unknown[]) => string;

describe('shared webhook vectors through the Make webhook component', () => {
  it('there are vectors, and the known gap is still a vector', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(30);
    for (const name of NOT_CHECKABLE_BY_MAKE) expect(vectors.map((v) => v.name)).toContain(name);
  });

  it.each(vectors.filter((v) => !NOT_CHECKABLE_BY_MAKE.includes(v.name)).map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const connection: MakeConnection = { apiKey: 'evf_unused', baseUrl: 'https://api.example.invalid/api', webhookSecret: v.secrets.join(',') };
    const out = receiveWebhook('jobFinished', { headers: v.headers, rawBody: v.rawBody }, connection, new Date(v.now * 1000));
    if (v.expect === 'accept') {
      expect(out.status).toBe(200);
      expect(out.bundle).toEqual(JSON.parse(v.rawBody));
    } else {
      expect(out.status).toBe(401);
      expect(out.bundle).toBeUndefined();
      let body: unknown = v.rawBody;
      try {
        body = JSON.parse(v.rawBody);
      } catch {
        // Make passes a body it cannot parse as text.
      }
      expect(verify(v.headers, body, v.secrets.join(','), v.now * 1000)).toBe(v.reason);
    }
  });

  it('the known gap: a compact body delivered with other whitespace is accepted by Make (same content, same signer)', () => {
    const v = vectors.find((x) => x.name === 'body_reserialized_whitespace')!;
    expect(v.expect).toBe('reject');
    const out = receiveWebhook('jobFinished', { headers: v.headers, rawBody: v.rawBody }, { apiKey: 'evf_unused', baseUrl: 'https://api.example.invalid/api', webhookSecret: v.secrets.join(',') }, new Date(v.now * 1000));
    // The parsed content equals what was signed, so no field can have been changed by a forger.
    expect(out.status).toBe(200);
  });

  it('a secret set on the webhook itself is used when the connection has none', () => {
    const v = vectors.find((x) => x.expect === 'accept')!;
    const noSecret = { apiKey: 'evf_unused', baseUrl: 'https://api.example.invalid/api' };
    const out = receiveWebhook('jobFinished', { headers: v.headers, rawBody: v.rawBody }, noSecret, new Date(v.now * 1000), { signingSecret: v.secrets.join(',') });
    expect(out.status).toBe(200);
    const wrong = receiveWebhook('jobFinished', { headers: v.headers, rawBody: v.rawBody }, noSecret, new Date(v.now * 1000), { signingSecret: 'whsec_wrong' });
    expect(wrong.status).toBe(401);
  });

  it('without a signing secret in the connection every delivery is refused', () => {
    const v = vectors.find((x) => x.expect === 'accept')!;
    const out = receiveWebhook('jobFinished', { headers: v.headers, rawBody: v.rawBody }, { apiKey: 'evf_unused', baseUrl: 'https://api.example.invalid/api' }, new Date(v.now * 1000));
    expect(out.status).toBe(401);
    expect(out.bundle).toBeUndefined();
  });
});

describe('real deliveries from the sandbox to the Make webhook, then the instant trigger', () => {
  let sb: Sandbox;
  let receiver: Server;
  let receiverUrl: string;
  let conn: MakeConnection;
  const outcomes: WebhookOutcome[] = [];

  beforeAll(async () => {
    sb = await startSandbox({ port: 0, timeScale: 0.01, rowsPerSecond: 2000, allowInsecureWebhooks: true });
    conn = { apiKey: sb.apiKey, baseUrl: sb.baseUrl, webhookSecret: sb.webhookSecret };
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]));
        const out = receiveWebhook('jobFinished', { headers, rawBody: Buffer.concat(chunks).toString('utf8') }, conn);
        outcomes.push(out);
        res.writeHead(out.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(out.responseBody));
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise((r) => receiver?.close(r));
    await sb?.close();
  });

  it('a finished job is delivered, accepted once, and the trigger outputs the job read back from the API', async () => {
    // The Make module refuses http:// webhook URLs (the service does too); the local receiver needs
    // one, so this job is submitted directly to the sandbox that allows it for tests.
    const res = await fetch(`${sb.baseUrl}/v1/verify/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sb.apiKey },
      body: JSON.stringify({ emails: ['valid.a@example.com', 'trap.b@example.com', 'unknown.c@example.com'], webhook_url: receiverUrl }),
    });
    expect(res.status).toBe(202);
    const { job_id } = (await res.json()) as { job_id: string };
    for (let i = 0; i < 200 && outcomes.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    await sb.webhooksIdle();
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.status).toBe(200);
    const payload = outcomes[0]!.bundle as { job_id: string; event: string };
    expect(payload.job_id).toBe(job_id);
    expect(validate('WebhookBody', payload).errors).toEqual([]);

    const trigger = await runModule('watchJobFinished', {}, conn, { payload });
    expect(trigger.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`GET /api/v1/jobs/${job_id}`]);
    const bundle = trigger.bundles[0] as { event: string; results_url: string; job: { job_id: string; terminal: boolean } };
    expect(bundle.event).toBe('job.completed');
    expect(bundle.job.terminal).toBe(true);
    expect(validate('Job', bundle.job).errors).toEqual([]);
  });

  it('a forged delivery to the same address gets 401 and starts nothing', async () => {
    const before = outcomes.length;
    const rawBody = JSON.stringify({ event: 'job.completed', job_id: 'job_forged', status: 'completed', total_emails: 1, processed_emails: 1, verdicts: {}, created_at: '2026-01-01T00:00:00Z', completed_at: '2026-01-01T00:00:01Z', results_url: '/v1/jobs/job_forged/results' });
    const ts = Math.floor(Date.now() / 1000);
    const res = await fetch(receiverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-timestamp': String(ts), 'x-service-signature': signWebhook({ rawBody, secret: 'whsec_guessed', timestamp: ts }) },
      body: rawBody,
    });
    expect(res.status).toBe(401);
    expect(outcomes.length).toBe(before + 1);
    expect(outcomes[before]!.bundle).toBeUndefined();
  });

  it('a job id this account does not own cannot pass the instant trigger, even inside a valid-looking payload', async () => {
    await expect(runModule('watchJobFinished', {}, conn, { payload: { event: 'job.completed', job_id: 'job_of_someone_else' } })).rejects.toMatchObject({ statusCode: 404 });
  });
});
