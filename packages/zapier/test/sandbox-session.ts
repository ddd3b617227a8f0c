/**
 * One sandbox of the service and one local callback receiver (standing in for Zapier's callback URL)
 * per test file, with the app pointed at the sandbox explicitly, the way `zapier-platform env:set`
 * would point a deployed app at the service.
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { startRawReceiver, type RawDelivery, type RawReceiver } from '../../../test/support/webhook-receiver';
import { zapierHeaderName, type CapturedCallback } from '../demo/callback-receiver';
import { steps, useBaseUrl, type Step } from './helpers';

/** A delivery as Zapier hands it to performResume: header names prefixed "Http-", the body untouched. */
function asZapierCallback(delivery: RawDelivery): CapturedCallback {
  return {
    method: 'POST',
    headers: Object.fromEntries(Object.entries(delivery.headers).map(([k, v]) => [zapierHeaderName(k), v])),
    content: delivery.rawBody,
    querystring: new URL(delivery.path, 'http://receiver').search.replace(/^\?/, ''),
  };
}

export interface SandboxSession {
  sb: Sandbox;
  /** The test receiver in raw mode: it stands in for Zapier's callback URL and answers 200. */
  receiver: RawReceiver;
  /** The sandbox account's connection: key and signing secret. */
  auth(): { api_key: string; webhook_secret: string };
  /** Verify List and Wait's perform, handing out the local receiver as its callback URL. */
  wait: Step;
  /**
   * The callback for this job. Deliveries are at least once (an acknowledgement slower than the
   * sandbox's scaled timeout is sent again), so a repeat for an earlier job may still be queued: skipped.
   */
  callbackFor(jobId: string): Promise<CapturedCallback>;
}

export function useSandboxSession(): SandboxSession {
  const session = {
    auth: () => ({ api_key: session.sb.apiKey, webhook_secret: session.sb.webhookSecret }),
    wait: ((z, b) => steps.wait({ ...z, generateCallbackUrl: () => session.receiver.url }, b)) as Step,
    async callbackFor(jobId: string) {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const delivery = session.receiver.raw.find((d) => d.headers['x-service-job'] === jobId);
        if (delivery) return asZapierCallback(delivery);
        if (Date.now() > deadline) throw new Error(`no callback for job ${jobId} within 20 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  } as SandboxSession;
  beforeAll(async () => {
    session.sb = await startSandbox({ port: 0, timeScale: 0.01, allowInsecureWebhooks: true });
    session.receiver = await startRawReceiver(() => 200, '/hooks/catch/test');
  });
  afterAll(async () => {
    await session.receiver?.close();
    await session.sb?.close();
  });
  useBaseUrl(() => session.sb.baseUrl);
  return session;
}
