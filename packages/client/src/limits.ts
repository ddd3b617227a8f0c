/** Limits of the service, as the spec states them. One place, so adapters and checks agree. */
export const LIMITS = {
  minEmailsPerJob: 1,
  maxEmailsPerJob: 50_000,
  maxNameLength: 255,
  maxWebhookUrlLength: 2_048,
  defaultPerPage: 100,
  maxPerPage: 1_000,
  defaultJobsLimit: 20,
  maxJobsLimit: 100,
  singleVerificationWaitMs: 30_000,
  webhookToleranceSeconds: 300,
  webhookAckTimeoutMs: 10_000,
  webhookRetryWaitsSeconds: [2, 10, 60, 300] as readonly number[],
  minPollIntervalMs: 10_000,
  maxPollIntervalMs: 30_000,
  defaultPollIntervalMs: 15_000,
  maxEmailLength: 254,
  maxLocalPartLength: 64,
  maxDomainLength: 253,
  maxDomainLabelLength: 63,
} as const;

export const PRIORITIES = ['normal', 'high', 'urgent'] as const;
export const JOB_STATUSES = [
  'queued',
  'processing',
  'completed',
  'failed',
  'interrupted',
  'cancelled',
] as const;
/**
 * Statuses after which a job cannot move on. The spec names them but does not show the exact terminal
 * set, so the job's own `terminal` flag wins whenever it is present.
 */
export const STOPPED_STATUSES: readonly string[] = JOB_STATUSES.filter(
  (s) => s !== 'queued' && s !== 'processing',
);
export const API_KEY_PREFIX = 'evf_';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
