import {
  AuthenticationError,
  EvfError,
  InputError,
  InsufficientCreditsError,
  NotFoundError,
  RateLimitError,
  ServiceUnavailableError,
  SubmissionUncertainError,
  UnprocessableError,
  WebhookVerificationError,
} from '@evf/client';
import type { Bundle, ZObject } from 'zapier-platform-core';

/** The label a user sees for each field the client may name in an InputError. */
const FIELD_LABELS: Record<string, string> = {
  email: 'Email Address',
  emails: 'Email Addresses / Pasted List',
  name: 'List Name',
  priority: 'Priority',
  check_smtp: 'Check Mail Server',
  job_id: 'Job',
  key_id: 'Key ID',
  group: 'Only This Group',
  api_key: 'API Key (in the connection)',
  webhook_secret: 'Webhook Signing Secret (in the connection)',
  webhook_url: 'Callback URL',
  base_url: 'EVF_BASE_URL (app environment)',
};

/** Used when the service asks to wait but does not say how long. */
const DEFAULT_THROTTLE_SECONDS = 60;

function waitSeconds(ms: number | undefined): number {
  return ms === undefined ? DEFAULT_THROTTLE_SECONDS : Math.max(1, Math.ceil(ms / 1000));
}

/**
 * The one translation of client errors into Zapier's error types. Zapier reacts to each type
 * differently, which is why the choice matters:
 * - ExpiredAuthError: the connection is marked expired and the user is asked to reconnect (custom
 *   auth has no refresh step, so RefreshAuthError would only trigger a refresh that cannot happen);
 * - HaltedError: the run stops without counting as an error and is not auto-replayed: right for "out of
 *   credits" (the Zap stays on) and for a bulk submission that may already have been charged, where an
 *   automatic replay could charge the list twice;
 * - ThrottledError(message, seconds): Zapier retries the step after the given delay;
 * - z.errors.Error: an ordinary step error with a readable message.
 */
export function toZapierError(z: ZObject, err: unknown): Error {
  if (err instanceof AuthenticationError) return new z.errors.ExpiredAuthError(err.message);
  if (err instanceof InsufficientCreditsError) return new z.errors.HaltedError(err.message);
  if (err instanceof SubmissionUncertainError) return new z.errors.HaltedError(err.message);
  if (err instanceof RateLimitError)
    return new z.errors.ThrottledError(err.message, waitSeconds(err.retryAfterMs));
  if (err instanceof ServiceUnavailableError)
    return new z.errors.ThrottledError(err.message, waitSeconds(err.retryAfterMs));
  if (err instanceof InputError) {
    const label = FIELD_LABELS[err.field] ?? err.field;
    return new z.errors.Error(`${label}: ${err.message}`, `invalid_${err.field}`, 400);
  }
  if (err instanceof UnprocessableError) return new z.errors.Error(err.message, 'unprocessable', 422);
  if (err instanceof NotFoundError) return new z.errors.Error(err.message, 'not_found', 404);
  if (err instanceof WebhookVerificationError)
    return new z.errors.Error(err.message, `webhook_${err.code}`, 401);
  if (err instanceof EvfError) {
    const status = (err as { status?: unknown }).status;
    return new z.errors.Error(err.message, err.name, typeof status === 'number' ? status : undefined);
  }
  return err instanceof Error ? err : new Error(String(err));
}

type Perform<B extends Bundle, R> = (z: ZObject, bundle: B) => Promise<R>;

/** Wraps a perform function so every error it lets out goes through toZapierError. */
export function mapErrors<B extends Bundle, R>(perform: Perform<B, R>): Perform<B, R> {
  return async (z, bundle) => {
    try {
      return await perform(z, bundle);
    } catch (err) {
      throw toZapierError(z, err);
    }
  };
}
