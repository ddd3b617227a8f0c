/**
 * The client's webhook verifier against the independent openssl vectors (shared/test-vectors), once,
 * the way a receiver meets them: each vector's raw bytes POSTed over loopback to a real receiver
 * (node:http, then verifyWebhook over the raw body), which answers 200 or 401 with the failure code.
 * Each platform runs the same vectors through its own receiving code in its own suite.
 */
import { webhookVectors as vectors } from '@evf/contract/test-vectors';
import { installSecretGuard, registerSecret } from '../../../test/support/secret-guard';
import { postRaw, startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver';

installSecretGuard();
for (const v of vectors) v.secrets.forEach(registerSecret);

describe('openssl webhook vectors POSTed to a real receiver over loopback', () => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver([]);
  });
  afterAll(() => receiver.close());

  test('the vector file holds both kinds (so this suite cannot pass empty)', () => {
    expect(vectors.filter((v) => v.expect === 'accept').length).toBeGreaterThanOrEqual(5);
    expect(vectors.filter((v) => v.expect === 'reject').length).toBeGreaterThanOrEqual(20);
  });

  test.each(vectors.map((v) => [v.name, v] as const))('%s', async (_name, v) => {
    receiver.secrets = v.secrets;
    receiver.now = () => v.now * 1000;
    const before = receiver.log.length;
    const status = await postRaw(receiver.url, v.headers, v.rawBody);
    const entry = receiver.log[before]!;
    expect(receiver.log).toHaveLength(before + 1);
    if (v.expect === 'accept') {
      expect(status).toBe(200);
    } else {
      expect(status).toBe(401);
      expect(entry.failure).toBe(v.reason);
    }
  });

  test('accepted vectors became one event per job_id, however often a job was delivered', async () => {
    // Its own receiver, fed every accepted vector: the result does not depend on the order tests run in.
    const own = await startWebhookReceiver([]);
    try {
      for (const v of vectors.filter((x) => x.expect === 'accept')) {
        own.secrets = v.secrets;
        own.now = () => v.now * 1000;
        expect(await postRaw(own.url, v.headers, v.rawBody)).toBe(200);
      }
      expectOneEventPerJob(own);
    } finally {
      await own.close();
    }
  });
});

function expectOneEventPerJob(receiver: WebhookReceiver): void {
  const accepted = vectors.filter((v) => v.expect === 'accept');
  const acceptedJobs = new Set(accepted.map((v) => JSON.parse(v.rawBody).job_id as string));
  expect(receiver.events.map((e) => e.jobId).sort()).toEqual([...acceptedJobs].sort());
  expect(receiver.log.filter((l) => l.duplicate)).toHaveLength(accepted.length - acceptedJobs.size);
}
