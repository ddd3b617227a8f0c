/**
 * The Watch Bulk Job Finished path. Make gives a webhook the parsed body and no connection, so the
 * webhook cannot recompute the service's HMAC over the raw bytes; it accepts what has the form of a
 * delivery and never refuses a genuine one (a refusal is retried five times and then the
 * notification is lost). The instant trigger then reads the job back with the API key: that read is
 * the authoritative check, and a delivery naming a job the account does not have is dropped there.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signWebhook } from '@evf/client';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { validate } from '@evf/contract';
import { webhookVectors } from '@evf/contract/test-vectors';
import { receiveWebhook, runModule, type MakeConnection, type WebhookOutcome } from './support/make-runtime';

const vectors = webhookVectors;

/** The vectors the webhook itself turns away (400): no job_id in a JSON object, or no v1= signature. */
const REFUSED_AT_THE_WEBHOOK = [
  'missing_signature_header',
  'malformed_signature_no_prefix',
  'malformed_signature_empty',
  'only_unknown_scheme',
  'non_json_body_signed',
  'truncated_json_body_signed',
  'json_array_body_signed',
];

let sb: Sandbox;
let conn: MakeConnection;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.01, rowsPerSecond: 2000, allowInsecureWebhooks: true });
  conn = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
});
afterAll(async () => {
  await sb?.close();
});

describe('the shared webhook vectors through the Make webhook', () => {
  it('there are vectors, and every name listed here is one', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(30);
    for (const name of REFUSED_AT_THE_WEBHOOK) expect(vectors.map((v) => v.name)).toContain(name);
  });

  it.each(vectors.filter((v) => v.expect === 'accept').map((v) => [v.name, v] as const))(
    'genuine %s: accepted with 200 and handed on',
    (_n, v) => {
      const out = receiveWebhook(
        'jobFinished',
        { headers: v.headers, rawBody: v.rawBody },
        {},
        new Date(v.now * 1000),
      );
      expect(out.status).toBe(200);
      expect(out.bundle).toEqual(JSON.parse(v.rawBody));
    },
  );

  it.each(vectors.filter((v) => v.expect === 'reject').map((v) => [v.name, v] as const))(
    '%s: refused at the webhook, or dropped by the read-back',
    async (name, v) => {
      const out = receiveWebhook(
        'jobFinished',
        { headers: v.headers, rawBody: v.rawBody },
        {},
        new Date(v.now * 1000),
      );
      if (REFUSED_AT_THE_WEBHOOK.includes(name)) {
        expect(out.status).toBe(400);
        expect(out.bundle).toBeUndefined();
        return;
      }
      // The webhook cannot tell this one from a genuine delivery; the job it names is not on this
      // account, so the instant trigger's read with the API key answers 404 and nothing runs after it.
      expect(out.status).toBe(200);
      await expect(runModule('watchJobFinished', {}, conn, { payload: out.bundle })).rejects.toMatchObject({
        name: 'DataError',
        statusCode: 404,
      });
    },
  );
});

describe('a genuine delivery is never refused for its bytes (issue 17, point 7)', () => {
  const body = {
    event: 'job.completed',
    job_id: 'job_0001',
    status: 'completed',
    total_emails: 1,
    processed_emails: 1,
    verdicts: { valid: 1 },
    created_at: '2026-01-01T00:00:00Z',
    completed_at: '2026-01-01T00:00:01Z',
    results_url: '/v1/jobs/job_0001/results',
  };
  const compact = JSON.stringify(body);
  const variants: [string, string][] = [
    ['pretty-printed', JSON.stringify(body, null, 2)],
    ['\\u escapes', compact.replace('"event"', '"\\u0065vent"')],
    [
      'escaped slashes',
      compact.replace('"/v1/jobs/job_0001/results"', '"\\/v1\\/jobs\\/job_0001\\/results"'),
    ],
    ['1.0 for an integer', compact.replace('"total_emails":1', '"total_emails":1.0')],
    ['an integer past 2^53', compact.replace('"processed_emails":1', '"processed_emails":9007199254740993')],
  ];
  it.each(variants)('%s', (_name, rawBody) => {
    expect(rawBody).not.toBe(JSON.stringify(JSON.parse(rawBody)));
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'x-service-timestamp': String(ts),
      'x-service-signature': signWebhook({ rawBody, secret: 'whsec_any', timestamp: ts }),
      'x-service-job': 'job_0001',
    };
    const out = receiveWebhook('jobFinished', { headers, rawBody });
    expect(out.status).toBe(200);
    expect((out.bundle as { job_id: string }).job_id).toBe('job_0001');
  });
});

describe('real deliveries from the sandbox to the Make webhook, then the instant trigger', () => {
  let receiver: Server;
  let receiverUrl: string;
  const outcomes: WebhookOutcome[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]),
        );
        const out = receiveWebhook('jobFinished', {
          headers,
          rawBody: Buffer.concat(chunks).toString('utf8'),
          method: req.method,
        });
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
  });

  it('a finished job is delivered, accepted at the first attempt, and the trigger outputs the job read back from the API', async () => {
    // The Make module refuses http:// webhook URLs (the service does too); the local receiver needs
    // one, so this job is submitted directly to the sandbox, which allows it for tests.
    const res = await fetch(`${sb.baseUrl}/v1/verify/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': sb.apiKey },
      body: JSON.stringify({
        emails: ['valid.a@example.com', 'trap.b@example.com', 'unknown.c@example.com'],
        webhook_url: receiverUrl,
      }),
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
    const bundle = trigger.bundles[0] as {
      event: string;
      results_url: string;
      job: { job_id: string; terminal: boolean };
    };
    expect(bundle.event).toBe('job.completed');
    expect(bundle.job.terminal).toBe(true);
    expect(validate('Job', bundle.job).errors).toEqual([]);
  });

  it('a delivery signed with a guessed secret reaches the trigger, whose read-back drops it (404)', async () => {
    const before = outcomes.length;
    const rawBody = JSON.stringify({
      event: 'job.completed',
      job_id: 'job_forged',
      status: 'completed',
      total_emails: 1,
      processed_emails: 1,
      verdicts: {},
      created_at: '2026-01-01T00:00:00Z',
      completed_at: '2026-01-01T00:00:01Z',
      results_url: '/v1/jobs/job_forged/results',
    });
    const ts = Math.floor(Date.now() / 1000);
    const res = await fetch(receiverUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-timestamp': String(ts),
        'x-service-signature': signWebhook({ rawBody, secret: 'whsec_guessed', timestamp: ts }),
      },
      body: rawBody,
    });
    expect(res.status).toBe(200);
    const payload = outcomes[before]!.bundle;
    const err = await runModule('watchJobFinished', {}, conn, { payload }).catch((e: Error) => e);
    expect(err).toMatchObject({ name: 'DataError', statusCode: 404 });
    expect((err as Error).message).toMatch(/dropped/);
  });

  it('something that is not a delivery gets 400 and starts nothing', async () => {
    const before = outcomes.length;
    const res = await fetch(receiverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"hello":"world"}',
    });
    expect(res.status).toBe(400);
    expect(outcomes[before]!.bundle).toBeUndefined();
  });

  it('a job id that tries to leave /v1/jobs/ stays a job id (encoded), and is dropped', async () => {
    const err = await runModule('watchJobFinished', {}, conn, {
      payload: { event: 'job.completed', job_id: '../account' },
    }).catch((e: Error) => e);
    expect(err).toMatchObject({ statusCode: 404 });
    const ok = await runModule('watchJobFinished', {}, conn, {
      payload: { event: 'job.completed', job_id: 'job_of_someone_else' },
    }).catch((e: Error) => e);
    expect(ok).toMatchObject({ statusCode: 404 });
  });
});
