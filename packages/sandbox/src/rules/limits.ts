/**
 * The spec's numbers and names, each defined once in the sandbox (spec sections "Limits", "States and
 * transitions", "Authentication", "Events"). Written from the spec, not taken from the client: the
 * sandbox is the independent side of the conformance tests.
 */
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
  webhookAckTimeoutMs: 10_000,
  /** Five attempts in total: the waits between them. */
  webhookRetryWaitsSeconds: [2, 10, 60, 300] as readonly number[],
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
 * The spec does not show the exact terminal set; the sandbox decides: every status past processing.
 * Its jobs only ever end completed or failed, and `terminal` on the wire is derived from this set.
 */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set([
  'completed',
  'failed',
  'interrupted',
  'cancelled',
]);
export const PRIMARY_LABELS = [
  'valid',
  'invalid',
  'catch_all',
  'inbox_full',
  'disabled',
  'unknown',
  'not_verified',
] as const;
export const TAG_LABELS = ['spam_trap', 'disposable', 'role'] as const;

/** "Keys start with the prefix evf_" (Authentication). */
export const KEY_PREFIX = 'evf_';
/** "The signing secret starts with whsec_" (Events, Signature). */
export const SECRET_PREFIX = 'whsec_';

export function isTerminal(status: string): boolean {
  return TERMINAL_STATUSES.has(status);
}
