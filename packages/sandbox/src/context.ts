import type { SandboxClock } from './clock';
import type { AccountStore } from './engine/accounts';
import type { JobEngine } from './engine/jobs';
import type { FaultController } from './faults';
import type { ResetFormat, RetryAfterFormat } from './http/reply';
import type { Resolver, WebhookDispatcher } from './webhooks';

/** Everything a route needs, built once per sandbox. */
export interface SandboxContext {
  clock: SandboxClock;
  accounts: AccountStore;
  jobs: JobEngine;
  faults: FaultController;
  webhooks: WebhookDispatcher;
  resolver: Resolver;
  allowInsecureWebhooks: boolean;
  rateLimitResetFormat: ResetFormat;
  retryAfterFormat: RetryAfterFormat;
  /** Spec milliseconds a normal single verification takes. */
  singleLatencyMs: number;
  maxBodyBytes: number;
  /** GET /v1/account adds fields the spec does not show (SandboxOptions.accountExtras). */
  accountExtras: boolean;
}
