import { createHmac, timingSafeEqual } from 'node:crypto';
import { EvfError } from '../errors';
import { LIMITS } from '../limits';
import type { WebhookBody, WebhookEventName } from '../types';

export type WebhookFailure =
  | 'no_secret'
  | 'missing_signature'
  | 'malformed_signature'
  | 'missing_timestamp'
  | 'malformed_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'signature_mismatch'
  | 'malformed_body';

const FAILURE_MESSAGES: Record<WebhookFailure, string> = {
  no_secret: 'No webhook signing secret is configured, so the message cannot be checked.',
  missing_signature: 'The message has no X-Service-Signature header.',
  malformed_signature: 'The X-Service-Signature header is not of the form v1=<64 lowercase hex characters>.',
  missing_timestamp: 'The message has no X-Service-Timestamp header.',
  malformed_timestamp: 'The X-Service-Timestamp header is not a Unix time in seconds.',
  timestamp_too_old:
    'The message is too old (its timestamp is outside the allowed window); it may be a replay.',
  timestamp_in_future: 'The message is dated too far in the future; check the clock.',
  signature_mismatch:
    'The signature does not match: the message was changed, or it was signed with another secret.',
  malformed_body: 'The message is signed correctly but its body is not a job event.',
};

/** A delivery that failed a check. `code` says which; the message never contains the secret. */
export class WebhookVerificationError extends EvfError {
  readonly code: WebhookFailure;
  constructor(code: WebhookFailure) {
    super(FAILURE_MESSAGES[code]);
    this.code = code;
  }
}

export type HeaderBag = Record<string, string | string[] | undefined> | Headers;

export interface VerifyWebhookInput {
  rawBody: string | Uint8Array;
  headers: HeaderBag;
  /** One secret, or several while rotating (the message passes if any matches). */
  secrets: string | readonly string[];
  toleranceSeconds?: number;
  /** Clock in milliseconds; injectable for tests. */
  now?: () => number;
}

export interface VerifiedWebhook {
  event: WebhookEventName;
  jobId: string;
  /** X-Service-Timestamp, Unix seconds. */
  timestamp: number;
  body: WebhookBody;
}

/**
 * Reads a header whatever its case, also through the `Http-` prefix Zapier puts on callback headers.
 * A repeated header is joined with commas, as HTTP does.
 */
export function getHeader(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).forEach === 'function') {
    return (headers as Headers).get(name) ?? undefined;
  }
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    const k = key.toLowerCase();
    if (k === wanted || k === 'http-' + wanted) {
      if (value === undefined) continue;
      return Array.isArray(value) ? value.join(',') : value;
    }
  }
  return undefined;
}

const SIGNATURE = /^v1=[0-9a-f]{64}$/;
const TIMESTAMP = /^\d{1,12}$/;

/**
 * Verifies a delivery the way the spec says: HMAC-SHA256 of "<timestamp>.<raw body>", compared in
 * constant time, with the timestamp inside the tolerance. Several comma-separated signatures are
 * accepted when any one matches, so a sender can sign with two secrets during a rotation.
 * The body is parsed only after the signature holds: nothing unauthenticated is interpreted.
 */
export function verifyWebhook(input: VerifyWebhookInput): VerifiedWebhook {
  const secrets = (typeof input.secrets === 'string' ? [input.secrets] : [...input.secrets]).filter(
    (s) => typeof s === 'string' && s.length > 0,
  );
  if (secrets.length === 0) throw new WebhookVerificationError('no_secret');

  const sigHeader = getHeader(input.headers, 'x-service-signature');
  if (sigHeader === undefined) throw new WebhookVerificationError('missing_signature');
  const candidates = sigHeader
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.startsWith('v1='));
  if (candidates.length === 0 || !candidates.every((s) => SIGNATURE.test(s))) {
    throw new WebhookVerificationError('malformed_signature');
  }

  const tsHeader = getHeader(input.headers, 'x-service-timestamp');
  if (tsHeader === undefined) throw new WebhookVerificationError('missing_timestamp');
  if (!TIMESTAMP.test(tsHeader.trim())) throw new WebhookVerificationError('malformed_timestamp');
  const timestamp = Number(tsHeader.trim());
  const tolerance = input.toleranceSeconds ?? LIMITS.webhookToleranceSeconds;
  const nowSeconds = Math.floor((input.now ? input.now() : Date.now()) / 1000);
  if (nowSeconds - timestamp > tolerance) throw new WebhookVerificationError('timestamp_too_old');
  if (timestamp - nowSeconds > tolerance) throw new WebhookVerificationError('timestamp_in_future');

  const raw =
    typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : Buffer.from(input.rawBody);
  const given = candidates.map((c) => Buffer.from(c.slice(3), 'hex'));
  let matched = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(`${tsHeader.trim()}.`).update(raw).digest();
    // Compare against every candidate without stopping early, so timing says nothing about which matched.
    for (const g of given) if (timingSafeEqual(expected, g)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('signature_mismatch');

  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('malformed_body');
  }
  if (!isWebhookBody(body)) throw new WebhookVerificationError('malformed_body');
  return { event: body.event, jobId: body.job_id, timestamp, body };
}

function isWebhookBody(value: unknown): value is WebhookBody {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    (v.event === 'job.completed' || v.event === 'job.failed') &&
    typeof v.job_id === 'string' &&
    v.job_id !== ''
  );
}
