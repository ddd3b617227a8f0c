/**
 * What an adapter reads from a client error to word it for its users: the HTTP status, the service's
 * own reason, and the input field at fault (named by the client's pre-flight or by the service's
 * 400/422 body, `{ error: { field } }` or `{ field }`).
 */
import { ApiError, InputError } from '../errors';

/** The status the service answered with, when the error is an answer at all. */
export function errorStatus(error: unknown): number | undefined {
  return error instanceof ApiError ? error.status : undefined;
}

/** The service's own words for the refusal, trimmed, when its body carried any. */
export function errorReason(error: unknown): string | undefined {
  const reason = error instanceof ApiError ? error.serverMessage?.trim() : undefined;
  return reason ? reason : undefined;
}

/** The input field at fault: the client's InputError names it, the service's body may. */
export function errorField(error: unknown): string | undefined {
  if (error instanceof InputError) return error.field;
  if (!(error instanceof ApiError)) return undefined;
  const body = error.body;
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  const nested =
    record.error && typeof record.error === 'object' ? (record.error as Record<string, unknown>) : {};
  const field = nested.field ?? record.field;
  return typeof field === 'string' && field !== '' ? field : undefined;
}
