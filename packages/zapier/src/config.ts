import { InputError, baseUrlProblem, type BaseUrlRule } from '@evf/client';

/**
 * The production address, written into the bundle by a release build (`scripts/bundle.cjs --release`,
 * run by `zapier-platform push` through the `_zapier-build` script), which refuses to build without an
 * https address. Absent in development builds and in tests, which run the sources.
 */
declare const __EVF_RELEASE_BASE_URL__: string | undefined;
const RELEASE_BASE_URL: string | undefined =
  typeof __EVF_RELEASE_BASE_URL__ === 'string' ? __EVF_RELEASE_BASE_URL__ : undefined;

/** Each base-URL rule of the client's adapter kit, in words that point at the app environment. */
const BASE_URL_WORDS: Record<BaseUrlRule, string> = {
  required:
    'No address of the email verification service is set for this app, so nothing was sent. The app owner sets EVF_BASE_URL (https://.../api) in the app environment.',
  syntax: 'The service address is not a URL; it must look like https://host/api.',
  credentials:
    'The service address must not contain a user name or password (the API key travels in its own header), so the API key was not sent.',
  https:
    'The service address must start with https:// (plain http only reaches a sandbox on this machine), so the API key was not sent.',
};

/**
 * The one place the service's base URL comes from: the app environment (`zapier-platform env:set
 * <version> EVF_BASE_URL=https://...`), else the address a release build was made for. There is no
 * silent default: a key must never go to whatever happens to listen on a default address. The rule is
 * the client's (baseUrlProblem); only the words are Zapier's.
 */
export function baseUrl(): string {
  const configured = process.env.EVF_BASE_URL?.trim() || RELEASE_BASE_URL;
  const problem = baseUrlProblem(configured);
  if (problem || configured === undefined) {
    const rule = problem?.rule ?? 'required';
    throw new InputError('base_url', rule, BASE_URL_WORDS[rule]);
  }
  return configured;
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
 * The web app's origin, written into the bundle by a release build, which refuses to build without an
 * https EVF_APP_ORIGIN: the spec names the pages (Profile, then API; Profile, API, Webhooks) but not the
 * app's address, and Zapier's check D002 wants the key's help to link where the key is.
 */
declare const __EVF_RELEASE_APP_ORIGIN__: string | undefined;

/** Development builds and tests only: a reserved name (RFC 2606) that a release can never carry. */
const DEVELOPMENT_APP_ORIGIN = 'https://app.emailverify.example';

/**
 * The web app users sign in to. Help links go here and name the page in words ("Profile, then API",
 * as the spec does): the spec gives no page addresses, and a guessed path would be a dead link.
 */
export const APP_ORIGIN: string =
  typeof __EVF_RELEASE_APP_ORIGIN__ === 'string' ? __EVF_RELEASE_APP_ORIGIN__ : DEVELOPMENT_APP_ORIGIN;
