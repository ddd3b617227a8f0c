/**
 * The Watch finished bulk jobs path. Make gives a webhook the parsed body and no connection, so the
 * webhook cannot recompute the service's HMAC over the raw bytes, and Make does not document the
 * letter case of header names, so the webhook reads none. A JSON object with a job_id gets 200 and
 * starts the scenario with the job ID and event name only; anything else gets 400 and starts nothing.
 * The instant trigger makes no request: a scenario started by an instant trigger is switched off by
 * its first error, so nothing a delivery, the service or the network does can fail it. The job is
 * read with the API key by the next module (Get a bulk job), where a forged or foreign ID answers 404.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signWebhook } from '@evf/client';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { validate } from '@evf/contract';
import { webhookVectors } from '@evf/contract/test-vectors';
import { receiveWebhook, runModule, type MakeConnection, type WebhookOutcome } from './harness/make-runtime';

const vectors = webhookVectors;

/** What the webhook must accept: a JSON object with a job_id, whatever its headers say. */
function hasJobId(rawBody: string): boolean {
  try {
    const body: unknown = JSON.parse(rawBody);
    return typeof body === 'object' && body !== null && !Array.isArray(body) && 'job_id' in body;
  } catch {
    return false;
  }
}

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
  it('there are vectors, some of them not deliveries at all', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(30);
    expect(vectors.filter((v) => !hasJobId(v.rawBody)).map((v) => v.name)).toEqual(
      expect.arrayContaining([
        'non_json_body_signed',
        'truncated_json_body_signed',
        'json_array_body_signed',
      ]),
    );
  });

  it.each(vectors.map((v) => [v.name, v] as const))('%s', (_n, v) => {
    const out = receiveWebhook(
      'jobFinished',
      { headers: v.headers, rawBody: v.rawBody },
      {},
      new Date(v.now * 1000),
    );
    if (!hasJobId(v.rawBody)) {
      expect(v.expect).toBe('reject');
      expect(out.status).toBe(400);
      expect(out.bundle).toBeUndefined();
      return;
    }
    // Genuine or not (the HMAC cannot be checked here), only the announced ID and event go on.
    const body = JSON.parse(v.rawBody) as { job_id: unknown; event?: unknown };
    expect(out.status).toBe(200);
    expect(out.bundle).toEqual(
      body.event === undefined ? { job_id: body.job_id } : { job_id: body.job_id, event: body.event },
    );
  });
});

describe('header names in any letter case', () => {
  const rawBody = JSON.stringify({ event: 'job.completed', job_id: 'job_0001', status: 'completed' });
  const ts = Math.floor(Date.now() / 1000);
  const signature = signWebhook({ rawBody, secret: 'whsec_any', timestamp: ts });
  it.each([
    ['lower case', { 'x-service-timestamp': String(ts), 'x-service-signature': signature }],
    ['as the spec writes them', { 'X-Service-Timestamp': String(ts), 'X-Service-Signature': signature }],
    ['upper case', { 'X-SERVICE-TIMESTAMP': String(ts), 'X-SERVICE-SIGNATURE': signature }],
  ])('%s: accepted the same way', (_name, headers) => {
    const out = receiveWebhook('jobFinished', { headers, rawBody });
    expect(out.status).toBe(200);
    expect(out.bundle).toEqual({ job_id: 'job_0001', event: 'job.completed' });
  });
});

describe('a genuine delivery is never refused for its bytes (JSON spellings a re-serialisation would change)', () => {
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

  it('a finished job is delivered and accepted at the first attempt; the trigger emits its ID with no request, and Get a bulk job reads it', async () => {
    // The Make module refuses http:// webhook URLs (the service does too); the local receiver needs
    // one, so this job is submitted directly to the sandbox, which allows it for tests.
    // Only this test's deliveries count: the others post to the same receiver, in whatever order they run.
    const before = outcomes.length;
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
    for (let i = 0; i < 200 && outcomes.length === before; i++) await new Promise((r) => setTimeout(r, 25));
    await sb.webhooksIdle();
    const mine = outcomes.slice(before);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.status).toBe(200);
    const payload = mine[0]!.bundle;
    expect(payload).toEqual({ job_id, event: 'job.completed' });

    const trigger = await runModule('watchJobFinished', {}, conn, { payload });
    expect(trigger.requests).toEqual([]);
    expect(trigger.bundles).toEqual([{ job_id, event: 'job.completed' }]);
    const job = await runModule('getJob', { job_id }, conn);
    expect((job.bundles[0] as { terminal: boolean }).terminal).toBe(true);
    expect(validate('Job', job.bundles[0]).errors).toEqual([]);
  });

  it('a delivery signed with a guessed secret starts a run with the claimed ID only; reading it answers 404 in the next module', async () => {
    const before = outcomes.length;
    const rawBody = JSON.stringify({
      event: 'job.completed',
      job_id: 'job_forged',
      status: 'completed',
      total_emails: 1,
      processed_emails: 1,
      verdicts: { valid: 1 },
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
    const trigger = await runModule('watchJobFinished', {}, conn, { payload: outcomes[before]!.bundle });
    // Nothing the forger wrote about the job (status, counts, results path) is emitted.
    expect(trigger.bundles).toEqual([{ job_id: 'job_forged', event: 'job.completed' }]);
    const err = await runModule('getJob', { job_id: 'job_forged' }, conn).catch((e: Error) => e);
    expect(err).toMatchObject({ name: 'DataError', statusCode: 404 });
  });

  it('something that is not a delivery gets 400 and starts nothing (the service tries it five times in all, then stops)', async () => {
    const before = outcomes.length;
    const res = await fetch(receiverUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"hello":"world"}',
    });
    expect(res.status).toBe(400);
    expect(outcomes[before]!.bundle).toBeUndefined();
  });
});

describe('nothing the service or the network does can fail the instant trigger (its first error would switch the scenario off)', () => {
  const payload = { job_id: 'job_any', event: 'job.completed' };

  it('the service unreachable: the trigger still emits, and sends nothing', async () => {
    const gone: MakeConnection = { apiKey: conn.apiKey, baseUrl: 'http://127.0.0.1:9/api' };
    const r = await runModule('watchJobFinished', {}, gone, { payload });
    expect(r.requests).toEqual([]);
    expect(r.bundles).toEqual([payload]);
  });

  it('a stale or foreign job ID, or one that tries to leave /v1/jobs/: emitted as announced, never read here', async () => {
    for (const job_id of ['job_of_someone_else', '../account']) {
      const r = await runModule('watchJobFinished', {}, conn, {
        payload: { job_id, event: 'job.completed' },
      });
      expect(r.requests).toEqual([]);
      expect(r.bundles).toEqual([{ job_id, event: 'job.completed' }]);
    }
    // The next module keeps the ID inside /v1/jobs/ (encoded) and answers 404 for it.
    const err = await runModule('getJob', { job_id: '../account' }, conn).catch((e: Error) => e);
    expect(err).toMatchObject({ statusCode: 404 });
  });
});
