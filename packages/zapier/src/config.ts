import { DEFAULT_SANDBOX_URL } from '@evf/client/node';

/**
 * The one place the service's base URL comes from: the app environment (`zapier-platform env:set
 * <version> EVF_BASE_URL=https://...`), else the local sandbox, so the same app runs in tests and demos.
 */
export function baseUrl(): string {
  const configured = process.env.EVF_BASE_URL?.trim();
  return configured ? configured : DEFAULT_SANDBOX_URL;
}

/** Zapier stops an action at 30 s; single verification may take the service 30 s, so give up before. */
export const SINGLE_VERIFY_TIMEOUT_MS = 25_000;

/** One read request's limit; with a retry it still fits a step. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** Budget for a whole step's HTTP work (searches, polls, resume), inside Zapier's 30 s limit. */
export const STEP_BUDGET_MS = 25_000;

/** Longest pause between retries the client may take inside a step; longer waits become ThrottledError. */
export const MAX_IN_STEP_WAIT_MS = 5_000;

/**
 * Rows returned as line items by one step. Zapier caps the size of a step's output (about 6 MB in
 * practice, and line items get unwieldy far earlier); past this the output says it was truncated.
 */
export const MAX_RESULT_ROWS = 5_000;

/**
 * Where users manage keys and the webhook secret in the service's web app. The spec names the pages
 * (Profile, then API; Profile, API, Webhooks) but not the app's address: replace this origin before
 * publishing.
 */
export const APP_ORIGIN = 'https://app.emailverify.example';
export const API_KEYS_URL = `${APP_ORIGIN}/profile/api`;
export const WEBHOOKS_SETTINGS_URL = `${APP_ORIGIN}/profile/api/webhooks`;
