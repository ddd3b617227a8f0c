import { createHmac } from 'node:crypto';
import type { WebhookBody } from './wire';

/**
 * One delivery exactly as the spec describes it (Events: "Request sent to the receiver", "Signature"):
 * the signed string is "<timestamp>.<raw body>", HMAC-SHA256 with the account's secret, lowercase hex,
 * sent as v1=<hex>.
 */
export function signedDelivery(
  body: WebhookBody,
  secret: string,
  timestamp: number,
): { rawBody: string; headers: Record<string, string> } {
  const rawBody = JSON.stringify(body);
  const hex = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`, 'utf8').digest('hex');
  return {
    rawBody,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'Service-Webhook/1',
      'X-Service-Event': body.event,
      'X-Service-Job': body.job_id,
      'X-Service-Timestamp': String(timestamp),
      'X-Service-Signature': `v1=${hex}`,
    },
  };
}
