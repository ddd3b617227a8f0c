import { InputError } from '../errors';
import { API_KEY_PREFIX, LIMITS, PRIORITIES, WEBHOOK_SECRET_PREFIX } from '../limits';
import type { Priority } from '../types';

export function assertApiKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.trim() === '') {
    throw new InputError(
      'api_key',
      'required',
      'An API key is required. Create one in the app under Profile, then API, and paste it into the connection.',
    );
  }
  if (!key.startsWith(API_KEY_PREFIX)) {
    throw new InputError(
      'api_key',
      'prefix',
      `That does not look like an API key: keys start with "${API_KEY_PREFIX}". Copy the key again from Profile, then API.`,
    );
  }
  if (/\s/.test(key)) {
    throw new InputError(
      'api_key',
      'whitespace',
      'The API key contains spaces or line breaks; paste it again without them.',
    );
  }
}

/**
 * What can be told from the secret alone. The service never checks a secret (it only signs with it), so a
 * well-formed but wrong secret shows only when a signed message fails to verify; these catch the slips
 * a paste makes: the API key in the secret's place, a secret pasted twice.
 */
export function assertWebhookSecret(secret: unknown): asserts secret is string {
  if (typeof secret === 'string' && secret.startsWith(API_KEY_PREFIX)) {
    throw new InputError(
      'webhook_secret',
      'api_key',
      `That is an API key (it starts with "${API_KEY_PREFIX}"), not the webhook signing secret: copy the secret from Profile, API, Webhooks. It starts with "${WEBHOOK_SECRET_PREFIX}".`,
    );
  }
  if (
    typeof secret !== 'string' ||
    !secret.startsWith(WEBHOOK_SECRET_PREFIX) ||
    secret.length <= WEBHOOK_SECRET_PREFIX.length
  ) {
    throw new InputError(
      'webhook_secret',
      'prefix',
      `The webhook signing secret must start with "${WEBHOOK_SECRET_PREFIX}". Copy it from Profile, API, Webhooks.`,
    );
  }
  if (secret.indexOf(WEBHOOK_SECRET_PREFIX, 1) !== -1) {
    throw new InputError(
      'webhook_secret',
      'pasted_twice',
      `The webhook signing secret holds "${WEBHOOK_SECRET_PREFIX}" twice, as if pasted twice. Copy it again from Profile, API, Webhooks (two secrets during a rotation go with a space between them).`,
    );
  }
}

export function assertJobId(jobId: unknown): asserts jobId is string {
  if (typeof jobId !== 'string' || jobId.trim() === '') {
    throw new InputError(
      'job_id',
      'required',
      'A job ID is required: pick a job from the list or map the job_id of a submitted job.',
    );
  }
}

export function assertKeyId(keyId: unknown): asserts keyId is string {
  if (typeof keyId !== 'string' || keyId.trim() === '') {
    throw new InputError(
      'key_id',
      'required',
      'A key ID is required: the ID of the API key to revoke (not the key itself).',
    );
  }
  if (keyId.startsWith(API_KEY_PREFIX)) {
    throw new InputError(
      'key_id',
      'not_a_secret',
      'That is an API key, not a key ID. Give the key ID shown in the app; never paste a key here.',
    );
  }
}

export function assertName(name: unknown): void {
  if (name === undefined || name === null) return;
  if (typeof name !== 'string') throw new InputError('name', 'type', 'The list name must be text.');
  if (name.length > LIMITS.maxNameLength) {
    throw new InputError(
      'name',
      'max_length',
      `The list name is ${name.length} characters long; shorten it to ${LIMITS.maxNameLength} or fewer.`,
    );
  }
}

export function assertPriority(priority: unknown): asserts priority is Priority | undefined {
  if (priority === undefined || priority === null) return;
  if (!(PRIORITIES as readonly unknown[]).includes(priority)) {
    throw new InputError(
      'priority',
      'enum',
      `Priority must be one of ${PRIORITIES.join(', ')} (got "${String(priority)}").`,
    );
  }
}

function assertIntegerIn(field: string, value: unknown, min: number, max: number, hint: string): void {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InputError(
      field,
      'range',
      `${field} must be a whole number from ${min} to ${max}${hint} (got ${String(value)}).`,
    );
  }
}

export function assertPerPage(perPage: unknown): void {
  assertIntegerIn('per_page', perPage, 1, LIMITS.maxPerPage, '');
}

export function assertPage(page: unknown): void {
  assertIntegerIn('page', page, 1, Number.MAX_SAFE_INTEGER, '');
}

export function assertJobsLimit(limit: unknown): void {
  assertIntegerIn('limit', limit, 1, LIMITS.maxJobsLimit, '');
}

export function assertOffset(offset: unknown): void {
  assertIntegerIn('offset', offset, 0, Number.MAX_SAFE_INTEGER, '');
}

export function assertSingleEmail(
  email: unknown,
  problem: (s: unknown) => string | undefined,
): asserts email is string {
  const why = problem(email);
  if (why) {
    const shown = typeof email === 'string' ? `"${email.slice(0, 100)}"` : 'The value';
    throw new InputError('email', 'syntax', `${shown} ${why}. Fix the address; nothing was sent or charged.`);
  }
}

/** A caller's cap on how many items to return: a whole number, 0 meaning none. */
export function assertMaxItems(max: unknown, field = 'limit'): void {
  if (max === undefined || max === null) return;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 0) {
    throw new InputError(
      field,
      'range',
      `${field} must be a whole number of items, 0 or more (got ${String(max)}).`,
    );
  }
}
