import {
  ApiError,
  ConnectionError,
  EvfError,
  InputError,
  PartialSubmissionError,
  RateLimitError,
  RequestTimeoutError,
  ServiceUnavailableError,
  SubmissionUncertainError,
  TimeBudgetSpentError,
  VerificationUncertainError,
  WebhookVerificationError,
  errorField,
  errorReason,
  errorStatus,
} from '@evf/client';
import type { Bundle, ZObject } from 'zapier-platform-core';

/** The label a user sees for each field the client (or the service) may name in an error. */
const FIELD_LABELS: Record<string, string> = {
  email: 'Email Address',
  emails: 'Email Addresses / Pasted List',
  name: 'List Name',
  priority: 'Priority',
  check_smtp: 'Check Mail Server',
  job_id: 'Job',
  key_id: 'Key ID',
  group: 'Only This Group',
  on_failure: 'If the Job Fails',
  api_key: 'API Key (in the connection)',
  webhook_secret: 'Webhook Signing Secret (in the connection)',
  webhook_url: 'Callback URL',
  base_url: 'EVF_BASE_URL (app environment)',
  // Verify File and Wait's and the results search's own fields, so no message starts with a raw key.
  file: 'Table File',
  column: 'Address Column',
  sheet: 'Sheet',
  start_row: 'Start at Row',
  max_addresses: 'Most Addresses to Send',
  minimum_credits: 'Minimum Credits',
  threshold: 'Threshold',
  reverify_after_days: 'Verify Again After (Days)',
};

/** Used when the service asks to wait but does not say how long. */
const DEFAULT_THROTTLE_SECONDS = 60;

/** What a Zapier user does when a list submission may have been charged: look before submitting again. */
export const CHECK_RECENT_JOBS_ADVICE =
  'Before you replay this run, look for the job in the Job dropdown of "Find Bulk Job" (or wait for the "Bulk Job Finished" trigger): replaying could verify and charge the list twice.';

function waitSeconds(ms: number | undefined): number {
  return ms === undefined ? DEFAULT_THROTTLE_SECONDS : Math.max(1, Math.ceil(ms / 1000));
}

/** "Nothing there" from the service: a search answers it with no items, Revoke API Key with a result. */
export function isNotFound(err: unknown): err is ApiError {
  return errorStatus(err) === 404;
}

/**
 * Where the error reaches the user: a Zap step (a run to replay, a Zap Zapier may have switched off) or
 * the connection dialog (a key being pasted, no run, no Zap yet), whose advice differs.
 */
export type ErrorPlace = 'step' | 'connection';

/**
 * The service's reason without sentences about HTTP headers ("Wait until the time in
 * X-RateLimit-Reset."): they speak to a programmer, and in a Zap the app has already read the header
 * and says what it means (Zapier waits and runs the step again).
 */
export function reasonForUsers(err: unknown): string | undefined {
  const reason = errorReason(err);
  if (!reason) return undefined;
  const kept = (reason.match(/[^.!?]+[.!?]*\s*/g) ?? [reason])
    .filter((sentence) => !/\bheaders?\b|\bX-[A-Za-z-]+|\bRetry-After\b/i.test(sentence))
    .join('')
    .trim();
  return kept || undefined;
}

/** "What happened (HTTP n). The service said: reason" then the Zapier advice. */
function describe(what: string, err: unknown, advice = ''): string {
  const status = errorStatus(err);
  const reason = reasonForUsers(err);
  const said = reason ? ` The service said: "${reason}"` : '';
  const tail = advice ? ` ${advice}` : '';
  return `${what}${status === undefined ? '' : ` (HTTP ${status})`}.${said}${tail}`;
}

/**
 * The one translation of client errors into Zapier's error types, chosen by what the user can do:
 * - ExpiredAuthError only when a new key can help (401): Zapier marks the connection expired and asks
 *   the user to reconnect (custom auth has no refresh step, so RefreshAuthError could not help);
 * - HaltedError when nothing the Zap can do helps until the user acts outside it (no API access, no
 *   credits), and where an automatic replay could charge twice: a halted run is never replayed on its
 *   own and does not count toward turning the Zap off;
 * - ThrottledError(message, seconds) when waiting helps: Zapier runs the step again after the delay;
 * - z.errors.Error for a bad input (naming the field) and other ordinary step errors.
 * Messages are composed here from the status, the service's reason and Zapier advice, so no library
 * or other platform wording (API paths, other platforms' operations) reaches a Zap's history.
 */
export function toZapierError(z: ZObject, err: unknown, place: ErrorPlace = 'step'): Error {
  const connecting = place === 'connection';
  if (err instanceof InputError) {
    const label = FIELD_LABELS[err.field] ?? err.field;
    return new z.errors.Error(`${label}: ${err.message}`, `invalid_${err.field}`, 400);
  }
  if (err instanceof SubmissionUncertainError) {
    // When the list left and how long it was: what finds the job in the dropdown.
    const when = ` at ${err.sentAt}`;
    const size = ` of ${err.addressCount} addresses`;
    return new z.errors.HaltedError(
      `The list${size} was sent${when} but no answer came back, so the service may have accepted and charged it. ${CHECK_RECENT_JOBS_ADVICE}`,
    );
  }
  if (err instanceof PartialSubmissionError) {
    const ids = err.submittedJobIds;
    const cause =
      err.cause === undefined ? '' : ` What stopped the rest: ${toZapierErrorMessage(z, err.cause)}`;
    const uncertain = err.uncertain
      ? ` ${err.uncertain.emails.length} more addresses were sent with no answer and may be a job already.`
      : '';
    return new z.errors.HaltedError(
      `Part of the list was submitted as ${ids.length} job(s) (${ids.join(', ')}), then the rest stopped; ${err.unsent.length} addresses were not sent.${uncertain}${cause} Pick those jobs in "Find Bulk Job" to see what they hold before you submit only the addresses they lack.`,
    );
  }
  if (err instanceof VerificationUncertainError) return noVerdict(z, err);
  if (err instanceof WebhookVerificationError)
    return new z.errors.Error(err.message, `webhook_${err.code}`, 401);
  if (err instanceof TimeBudgetSpentError) {
    // The client's words name the request's method and path; the user needs what it means for them.
    return new z.errors.Error(
      'This step ran out of time (Zapier stops a step at 30 seconds) before its next request could be sent; that request was not sent and nothing was charged for it. Replay this run from your Zap history; if it keeps happening, the service is answering slowly.',
      'time_budget_spent',
    );
  }

  // Only the client's ApiError has a status here: Zapier's own errors carry one too and pass through.
  const status = errorStatus(err);
  if (status !== undefined) {
    const rule = BY_STATUS[status] ?? (status >= 500 ? serverProblem : otherStatus);
    return rule(z, err, connecting);
  }
  if (err instanceof EvfError) return new z.errors.Error(err.message, err.name);
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * A single check that got no answer it could trust (a 5xx, a dropped connection, no answer in time) is
 * an error in Zap history, never an "unknown" verdict: Zapier's build guidelines say "Users should never
 * receive a success/200 response if there was an error in the request", and a verdict made up during an
 * outage would tag every lead risky with nothing in Zap history. An ordinary error (not halted), so
 * Zapier's autoreplay may run it again: at worst one more credit for the one address.
 */
function noVerdict(z: ZObject, err: VerificationUncertainError): Error {
  const cause = err.cause;
  const status = errorStatus(cause);
  const what =
    status !== undefined && status >= 300
      ? `the service, or a gateway in front of it, answered HTTP ${status}`
      : cause instanceof RequestTimeoutError
        ? 'no answer came back in time'
        : cause instanceof ConnectionError
          ? 'the connection broke before an answer came back'
          : 'the answer could not be read';
  return new z.errors.Error(
    `No verdict for this address: it was sent for verification at ${err.sentAt}, and ${what}. The service may have verified it and used 1 credit. Replay this run from your Zap history in a few minutes (it may use 1 more credit); if many runs fail like this, the service is having an outage.`,
    'no_verdict',
    status !== undefined && status >= 300 ? status : undefined,
  );
}

/** What one HTTP status becomes in Zapier: the error type by what the user can do, and the words. */
type StatusRule = (z: ZObject, err: unknown, connecting: boolean) => Error;

const refusedInput: StatusRule = (z, err) => {
  const status = errorStatus(err);
  const field = errorField(err);
  const label = field ? `${FIELD_LABELS[field] ?? field}: ` : '';
  return new z.errors.Error(
    `${label}${describe('The service refused the request', err, 'Correct the input and run the step again.')}`,
    field ? `invalid_${field}` : status === 400 ? 'bad_request' : 'unprocessable',
    status,
  );
};

const serverProblem: StatusRule = (z, err, connecting) =>
  new z.errors.Error(
    describe(
      'The email verification service had an internal problem',
      err,
      connecting ? 'Test this connection again in a few minutes.' : 'Replay this run in a few minutes.',
    ),
    'server_error',
    errorStatus(err),
  );

const otherStatus: StatusRule = (z, err) =>
  new z.errors.Error(describe('The service answered with an error', err), 'api_error', errorStatus(err));

/**
 * One rule per status the service answers with (as n8n's node keeps its error table), so each case
 * reads on its own; statuses not listed are a server problem (5xx) or a plain error.
 */
const BY_STATUS: Record<number, StatusRule> = {
  400: refusedInput,
  // The spec lists 408 among its errors: the address's mail server gave no answer in 30 s, the service
  // gave no verdict (no primary_label to map) and refunded the credit. So it is an error, not a verdict.
  408: (z, err) =>
    new z.errors.Error(
      describe(
        "No verdict for this address: its mail server gave no answer within the service's 30 seconds, and the service refunded the credit",
        err,
        'Replay this run from your Zap history later; no credit was used.',
      ),
      'verification_timeout',
      408,
    ),
  422: refusedInput,
  // A new key helps only here: Zapier marks the connection expired and asks the user to reconnect
  // (custom auth has no refresh step, so RefreshAuthError could not help).
  401: (z, err, connecting) => {
    // The service's reason may already say where keys are made; the advice then says only what is
    // left to do in Zapier, so no message says the same thing twice.
    const saysWhere = /Profile/i.test(reasonForUsers(err) ?? '');
    return new z.errors.ExpiredAuthError(
      connecting
        ? describe(
            'The service refused this API key',
            err,
            saysWhere
              ? 'Then paste it here (it starts with evf_ and is shown only once).'
              : 'Copy the key again in the app under Profile, then API (it starts with evf_ and is shown only once: create a new one if you no longer have it), and paste it here.',
          )
        : describe(
            "The service refused this connection's API key",
            err,
            saysWhere
              ? 'Then reconnect the account in Zapier with the new key, and turn the Zap on again if Zapier switched it off.'
              : 'Create a key in the app under Profile, then API, reconnect the account in Zapier with it, and turn the Zap on again if Zapier switched it off.',
          ),
    );
  },
  // Halted: nothing the Zap can do helps until the user acts outside it, and a halted run is never
  // replayed on its own (an automatic replay could charge twice).
  402: (z, err) =>
    new z.errors.HaltedError(
      describe(
        'The account has too few credits for this step',
        err,
        // The service's reason already says how to get credits; repeating it would say it twice.
        reasonForUsers(err)
          ? 'Replay this run from your Zap history once the balance covers it.'
          : 'Buy credits or a plan in the app, then replay this run from your Zap history.',
      ),
    ),
  403: (z, err, connecting) =>
    new z.errors.HaltedError(
      describe(
        'The service refused this account access to the API',
        err,
        `A new key will not help: change the plan (or add a top-up) in the app, ${connecting ? 'then test this connection again' : 'then replay this run from your Zap history'}.`,
      ),
    ),
  404: (z, err, connecting) =>
    new z.errors.Error(
      connecting
        ? // The connection reads only the account: there is no ID or dropdown to check.
          describe(
            'The service found no account for this connection',
            err,
            "Check that the key is one the app lists under Profile, then API; if it is, the app's service address is wrong, which only the app's owner can change (EVF_BASE_URL).",
          )
        : describe(
            'Not found',
            err,
            'Check the ID, or pick the item from the dropdown; it may belong to another account.',
          ),
      'not_found',
      404,
    ),
  // Waiting helps: Zapier runs the step again after the delay the service gave.
  429: (z, err, connecting) =>
    err instanceof RateLimitError
      ? new z.errors.ThrottledError(
          describe(
            "The plan's API allowance is used up for now",
            err,
            connecting
              ? 'Test this connection again once the allowance resets.'
              : 'Zapier runs this step again once the allowance resets.',
          ),
          waitSeconds(err.retryAfterMs),
        )
      : otherStatus(z, err, connecting),
  503: (z, err, connecting) =>
    err instanceof ServiceUnavailableError
      ? new z.errors.ThrottledError(
          describe(
            'The service is not taking new work for now',
            err,
            connecting
              ? 'Test this connection again after the wait.'
              : 'Zapier runs this step again after the wait.',
          ),
          waitSeconds(err.retryAfterMs),
        )
      : serverProblem(z, err, connecting),
};

/** A client error as the words a Zap's history would show (ThrottledError keeps its text inside JSON). */
function toZapierErrorMessage(z: ZObject, err: unknown): string {
  const mapped = toZapierError(z, err);
  try {
    const parsed = JSON.parse(mapped.message) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // a plain message
  }
  return mapped.message;
}

type Perform<B extends Bundle, R> = (z: ZObject, bundle: B) => Promise<R>;

/** Wraps a perform function so every error it lets out goes through toZapierError. */
export function mapErrors<B extends Bundle, R>(
  perform: Perform<B, R>,
  place: ErrorPlace = 'step',
): Perform<B, R> {
  return async (z, bundle) => {
    try {
      return await perform(z, bundle);
    } catch (err) {
      throw toZapierError(z, err, place);
    }
  };
}
