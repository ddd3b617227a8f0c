/**
 * One error shape for every status: `{ "error": { "code", "message", ...extra } }`.
 * The spec does not show the service's error body, so the sandbox picks one and keeps to it; clients
 * must read it defensively anyway.
 */
export interface ErrorBody {
  error: { code: string; message: string; [extra: string]: unknown };
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...this.extra } };
  }
}

/** 422 for one bad field, naming the field and the rule it broke. */
export function fieldError(
  field: string,
  rule: string,
  message: string,
  extra: Record<string, unknown> = {},
): HttpError {
  return new HttpError(422, 'invalid_request', message, { field, rule, ...extra });
}
