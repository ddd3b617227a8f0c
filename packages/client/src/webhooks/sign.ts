import { createHmac } from 'node:crypto';
import type { WebhookBody } from '../types';

/** `v1=` + lowercase hex HMAC-SHA256 of "<timestamp>.<raw body>", as the service signs deliveries. */
export function signWebhook(input: {
  rawBody: string | Uint8Array;
  secret: string;
  timestamp: number;
}): string {
  const mac = createHmac('sha256', input.secret).update(`${input.timestamp}.`);
  mac.update(typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : input.rawBody);
  return `v1=${mac.digest('hex')}`;
}

export interface WebhookDelivery {
  rawBody: string;
  headers: Record<string, string>;
}

/** A complete delivery (headers and body) exactly as the service sends one: for the sandbox and tests. */
export function buildWebhookDelivery(input: {
  body: WebhookBody;
  secret: string;
  timestamp: number;
}): WebhookDelivery {
  const rawBody = JSON.stringify(input.body);
  return {
    rawBody,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'Service-Webhook/1',
      'X-Service-Event': input.body.event,
      'X-Service-Job': input.body.job_id,
      'X-Service-Timestamp': String(input.timestamp),
      'X-Service-Signature': signWebhook({ rawBody, secret: input.secret, timestamp: input.timestamp }),
    },
  };
}
