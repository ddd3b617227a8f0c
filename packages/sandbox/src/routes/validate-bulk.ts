import { HttpError, fieldError } from '../http/errors';
import {
  addressProblem,
  LIMITS,
  PRIORITIES,
  webhookUrlViolations,
  type Priority,
  type WebhookUrlViolation,
} from '../rules';

export interface BulkRequest {
  /** Unique addresses (case-insensitive), first spelling kept, in submission order. */
  unique: string[];
  name: string | null;
  webhookUrl: string | null;
  priority: Priority;
  checkSmtp: boolean;
}

export interface InvalidEmail {
  email: string;
  index: number;
  reason: string;
}

/** The 422 body lists offending items; past this many it says how many more there were. */
const MAX_LISTED_INVALID = 1000;

function describeItem(item: unknown): string {
  if (typeof item === 'string') return item;
  const json = JSON.stringify(item);
  return json === undefined ? String(item) : json.slice(0, 300);
}

/** The one 422 for a webhook_url the service will not deliver to, whether judged by its text or its DNS. */
export function webhookUrlRefused(violations: readonly WebhookUrlViolation[]): HttpError {
  return new HttpError(
    422,
    'invalid_webhook_url',
    `webhook_url was refused and nothing was charged: ${violations.map((v) => v.message).join('; ')}.`,
    { field: 'webhook_url', rule: violations[0]!.rule, violations },
  );
}

/**
 * Every rule of POST /v1/verify/bulk that can be judged from the body alone. Throws 422 naming the
 * field and the rule; for addresses, the 422 lists every offending item with its index and reason.
 */
export function validateBulkBody(body: Record<string, unknown>, allowInsecureWebhooks: boolean): BulkRequest {
  const { emails, name, webhook_url: webhookUrl, priority, check_smtp: checkSmtp } = body;
  if (!Array.isArray(emails)) {
    throw fieldError(
      'emails',
      'required',
      'emails is required: a JSON array of 1 to 50,000 email addresses.',
    );
  }
  if (emails.length < LIMITS.minEmailsPerJob)
    throw fieldError('emails', 'min_items', 'emails is empty; send at least one address.');
  if (emails.length > LIMITS.maxEmailsPerJob) {
    throw fieldError(
      'emails',
      'max_items',
      `emails has ${emails.length} items; one call takes at most ${LIMITS.maxEmailsPerJob}. Split larger lists into several calls.`,
    );
  }
  const invalid: InvalidEmail[] = [];
  let invalidCount = 0;
  emails.forEach((item: unknown, index) => {
    const reason = addressProblem(item);
    if (reason === undefined) return;
    invalidCount += 1;
    if (invalid.length < MAX_LISTED_INVALID) invalid.push({ email: describeItem(item), index, reason });
  });
  if (invalidCount > 0) {
    throw new HttpError(
      422,
      'invalid_emails',
      `${invalidCount} of ${emails.length} addresses are not valid email addresses, so the whole call was refused and nothing was charged. Remove or fix them and submit again.`,
      { field: 'emails', rule: 'email_syntax', invalid_emails: invalid, invalid_count: invalidCount },
    );
  }
  if (name !== undefined && name !== null) {
    if (typeof name !== 'string') throw fieldError('name', 'type', 'name must be text.');
    if (name.length > LIMITS.maxNameLength) {
      throw fieldError(
        'name',
        'max_length',
        `name is ${name.length} characters long; the limit is ${LIMITS.maxNameLength}.`,
      );
    }
  }
  if (webhookUrl !== undefined && webhookUrl !== null) {
    const violations = webhookUrlViolations(webhookUrl, { allowLoopbackHttp: allowInsecureWebhooks });
    if (violations.length) throw webhookUrlRefused(violations);
  }
  if (priority !== undefined && priority !== null && !(PRIORITIES as readonly unknown[]).includes(priority)) {
    throw fieldError('priority', 'enum', `priority must be one of ${PRIORITIES.join(', ')}.`);
  }
  if (checkSmtp !== undefined && checkSmtp !== null && typeof checkSmtp !== 'boolean') {
    throw fieldError('check_smtp', 'type', 'check_smtp must be true or false.');
  }
  return {
    unique: dedupeIgnoringCase(emails as string[]),
    name: typeof name === 'string' ? name : null,
    webhookUrl: typeof webhookUrl === 'string' ? webhookUrl : null,
    priority: (priority as Priority | undefined | null) ?? 'normal',
    checkSmtp: checkSmtp !== false,
  };
}

/** The service's charging rule: duplicates compared ignoring case are removed; the first spelling stays. */
function dedupeIgnoringCase(emails: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const email of emails) {
    const key = email.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(email);
  }
  return out;
}
