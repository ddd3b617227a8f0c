/**
 * Forged and replayed webhooks at the HTTP level: real deliveries from the sandbox to a receiver
 * (node:http + verifyWebhook over the raw body), replayed, re-dated and signed across a secret
 * rotation. The openssl vectors run once against the client's verifier, over the wire, in
 * packages/client/test/webhook-vectors.sandbox.test.ts.
 */
import type { Sandbox } from '@evf/sandbox';
import { clientFor, eventually, startFastSandbox } from '../support/sandbox';
import { installSecretGuard, assertNoSecrets } from '../support/secret-guard';
import { postRaw, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

installSecretGuard();

describe('real deliveries from the sandbox to a receiver holding the account secret', () => {
  let sb: Sandbox;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    sb = await startFastSandbox();
    receiver = await startWebhookReceiver([sb.webhookSecret]);
  });
  afterAll(async () => {
    await receiver.close();
    await sb.close();
  });

  async function submitAndAwaitDelivery(emails: string[]): Promise<string> {
    const { client } = clientFor(sb);
    const submission = await client.submitList({
      emails,
      webhook_url: receiver.url,
      name: 'reliability webhooks',
    });
    const jobId = submission.jobs[0]!.job_id;
    await eventually(() =>
      sb.webhookAttempts.some(
        (a) => (a.jobId === jobId && a.outcome === 'acknowledged') || (a.jobId === jobId && a.attempt === 5),
      ),
    );
    return jobId;
  }

  test('a real delivery verifies and becomes one event whose rows can be fetched from results_url', async () => {
    const emails = [
      'valid.one@example.com',
      'invalid.two@example.com',
      'unknown.three@example.com',
      'catchall.four@example.org',
    ];
    const jobId = await submitAndAwaitDelivery(emails);
    const event = receiver.events.find((e) => e.jobId === jobId)!;
    expect(event).toBeDefined();
    expect(event.event).toBe('job.completed');
    expect(event.body).toMatchObject({
      job_id: jobId,
      status: 'completed',
      total_emails: 4,
      processed_emails: 4,
      results_url: `/v1/jobs/${jobId}/results`,
    });
    const { client } = clientFor(sb);
    const rows: string[] = [];
    for await (const row of client.results(jobId)) rows.push(row.email);
    expect(rows.sort()).toEqual([...emails].sort());
    assertNoSecrets(event, 'the received event');
  });

  test('replayed copies of a delivery (same job_id) are acknowledged but make no second event', async () => {
    const jobId = await submitAndAwaitDelivery(['valid.replay@example.com']);
    const original = receiver.raw.find((r) => r.headers['x-service-job'] === jobId)!;
    const eventsBefore = receiver.events.length;
    const statuses = await Promise.all(
      [1, 2, 3, 4, 5].map(() => postRaw(receiver.url, original.headers, original.rawBody)),
    );
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(receiver.events.length).toBe(eventsBefore);
    expect(receiver.events.filter((e) => e.jobId === jobId)).toHaveLength(1);
  });

  test('a captured delivery replayed after the 300 s window, or edited, is refused with 401', async () => {
    const jobId = await submitAndAwaitDelivery(['valid.stale@example.com']);
    const original = receiver.raw.find((r) => r.headers['x-service-job'] === jobId)!;
    const sentAt = Number(original.headers['x-service-timestamp']) * 1000;
    try {
      receiver.now = () => sentAt + 301_000;
      expect(await postRaw(receiver.url, original.headers, original.rawBody)).toBe(401);
      expect(receiver.log.at(-1)!.failure).toBe('timestamp_too_old');
      receiver.now = () => sentAt + 299_000;
      expect(await postRaw(receiver.url, original.headers, original.rawBody)).toBe(200);
    } finally {
      receiver.now = () => Date.now();
    }
    // A forger who rewrites the job id, the timestamp or the status without the secret gets nowhere.
    const forgedBody = original.rawBody.replace('"status":"completed"', '"status":"failed"');
    expect(forgedBody).not.toBe(original.rawBody);
    expect(await postRaw(receiver.url, original.headers, forgedBody)).toBe(401);
    const newTs = { ...original.headers, 'x-service-timestamp': String(Math.floor(Date.now() / 1000) + 1) };
    expect(await postRaw(receiver.url, newTs, original.rawBody)).toBe(401);
    const otherJob = { ...original.headers, 'x-service-job': 'job_forged' };
    const otherBody = original.rawBody.replace(jobId, 'job_forged');
    expect(await postRaw(receiver.url, otherJob, otherBody)).toBe(401);
    expect(receiver.events.find((e) => e.jobId === 'job_forged')).toBeUndefined();
  });

  test('secret rotation: a receiver holding [new, old] takes deliveries signed before and after; one holding only the old secret refuses the new ones', async () => {
    const old = sb.webhookSecret;
    const first = await submitAndAwaitDelivery(['valid.before-rotation@example.com']);
    const signedWithOld = receiver.raw.find((r) => r.headers['x-service-job'] === first)!;

    const next = sb.rotateWebhookSecret(sb.accountId);
    expect(next).not.toBe(old);
    receiver.secrets = [next, old];
    const second = await submitAndAwaitDelivery(['valid.after-rotation@example.com']);
    expect(receiver.events.filter((e) => e.jobId === second)).toHaveLength(1);
    // The message signed with the old secret still verifies during the overlap (and stays a duplicate).
    expect(await postRaw(receiver.url, signedWithOld.headers, signedWithOld.rawBody)).toBe(200);
    expect(receiver.events.filter((e) => e.jobId === first)).toHaveLength(1);

    // Rotation takes effect at once on the sender: a receiver that kept only the old secret refuses.
    receiver.secrets = [old];
    const { client } = clientFor(sb);
    const third = (
      await client.submitList({ emails: ['valid.stale-receiver@example.com'], webhook_url: receiver.url })
    ).jobs[0]!.job_id;
    await eventually(() => sb.webhookAttempts.some((a) => a.jobId === third));
    const refused = receiver.log.filter((l) => l.failure === 'signature_mismatch');
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(sb.webhookAttempts.find((a) => a.jobId === third)).toMatchObject({
      outcome: 'rejected',
      status: 401,
    });
    expect(receiver.events.find((e) => e.jobId === third)).toBeUndefined();
    // Once the receiver learns the new secret, the sender's next retry gets through: still one event.
    receiver.secrets = [next, old];
    await eventually(() => receiver.events.some((e) => e.jobId === third), 15_000);
    await sb.webhooksIdle();
    expect(receiver.events.filter((e) => e.jobId === third)).toHaveLength(1);
  });
});
