/**
 * The webhook signature test vectors (made by openssl, see generate.sh), typed, for every receiver's
 * tests: the client's verifier, Zapier's performResume, the n8n trigger and the Make webhook.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type WebhookRejectReason =
  | 'missing_signature'
  | 'malformed_signature'
  | 'missing_timestamp'
  | 'malformed_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'signature_mismatch'
  | 'malformed_body';

export interface WebhookVector {
  name: string;
  description: string;
  /** Secrets the receiver holds (two during a rotation). */
  secrets: string[];
  /** Headers exactly as delivered; a missing-header case simply lacks the header. */
  headers: Record<string, string>;
  /** The body exactly as delivered. */
  rawBody: string;
  /** The receiver's clock, Unix seconds. */
  now: number;
  expect: 'accept' | 'reject';
  reason?: WebhookRejectReason;
}

export const WEBHOOK_VECTORS_PATH = join(__dirname, 'webhook-vectors.json');

export const webhookVectors: WebhookVector[] = JSON.parse(readFileSync(WEBHOOK_VECTORS_PATH, 'utf8')) as WebhookVector[];
