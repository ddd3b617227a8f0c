/**
 * One sandbox of the service and one local callback receiver (standing in for Zapier's callback URL)
 * per test file, with the app pointed at the sandbox explicitly, the way `zapier-platform env:set`
 * would point a deployed app at the service.
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import {
  startCallbackReceiver,
  type CallbackReceiver,
  type CapturedCallback,
} from '../demo/callback-receiver';
import { steps, useBaseUrl, type Step } from './helpers';

export interface SandboxSession {
  sb: Sandbox;
  receiver: CallbackReceiver;
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
      for (;;) {
        const callback = await session.receiver.next(20_000);
        if (callback.headers['Http-X-Service-Job'] === jobId) return callback;
      }
    },
  } as SandboxSession;
  beforeAll(async () => {
    session.sb = await startSandbox({ port: 0, timeScale: 0.01, allowInsecureWebhooks: true });
    session.receiver = await startCallbackReceiver();
  });
  afterAll(async () => {
    await session.receiver?.close();
    await session.sb?.close();
  });
  useBaseUrl(() => session.sb.baseUrl);
  return session;
}
