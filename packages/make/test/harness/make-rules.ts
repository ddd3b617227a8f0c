/**
 * The rules of Make's custom-app runtime that this app relies on, as the local harness enforces them.
 * Each one names the Make page it comes from; where Make documents no number, the harness picks one
 * stricter than Make and says so. The README's rule table lists the same rules.
 */

export class MakeRuleError extends Error {
  constructor(
    readonly rule: keyof typeof RULES,
    message: string,
  ) {
    super(`${message} [Make rule: ${RULES[rule].text}; ${RULES[rule].source}]`);
    this.name = 'MakeRuleError';
  }
}

export const RULES = {
  rpcRequests: {
    text: 'an RPC performs at most 3 calls (and its records are at most 3 pages)',
    source:
      'https://docs.make.com/apps/app-structure/rpcs, Best Practices: "Request Count ... calls performed by RPC | 3", "Record Count ... 3 * number of objects per page"',
  },
  moduleTimeout: {
    text: 'a module gets no answer after 40 s unless the base raises its timeout (up to 300 s); this app keeps 40 s, so the harness holds it to 40 s, waits included',
    source:
      'https://developers.make.com/custom-apps-documentation/app-components/base (timeout, up to 300 s); https://community.make.com/t/timeout-error/37183 ("usually 40 seconds")',
  },
  repeatScope: {
    text: 'a repeat condition sees temp only, not body',
    source:
      "Make's repeat directive (its schema in Make's VS Code extension, sources.json#repeat; the temp-only scope is the stricter reading of Make's repeat docs); the answer reaches the condition through response.temp (https://developers.make.com/custom-apps-documentation/component-blocks/api/handling-responses/temp)",
  },
  repeatBounds: {
    text: 'a repeat needs a limit and must end inside the module timeout',
    source:
      'sources.json#repeat in Make\'s VS Code extension ("a predefined delay in milliseconds", "bounded by the repeat.limit") with the module timeout above',
  },
  repeatOutput: {
    text: "a repeated request that has an output may emit a bundle per round (the harness takes that reading); a module that must emit one bundle sets output: null on the repeated request and emits from a later one, as Make's repeat examples do",
    source:
      "Make's repeat documentation (developers.make.com custom apps, API component blocks, repeat): its examples put output: null on the repeated request (checked 2026-11-26, /work/shared/DESIGN.md); https://developers.make.com/custom-apps-documentation/component-blocks/api (a communication may be an array of requests run in order)",
  },
  formanParameters: {
    text: "a module's input passes Make's own parameter validator, Forman, wherever the harness's checker passes it",
    source:
      '@makehq/forman-schema 1.16.0 (validateForman), built from https://github.com/integromat/make-forman-schema; read from ../shared/make-forman-schema or EVF_MAKE_FORMAN when present',
  },
  paginationItems: {
    text: 'pagination stops at 3,200 records read in one module run (the harness counts records read, filtered or not)',
    source:
      'https://developers.make.com/custom-apps-documentation/component-blocks/api/pagination and Make\'s limits table (Max Request Count 100, Max Pagination Request Count 50, Max Past Record 3200: https://community.make.com/t/i-want-to-use-make-to-update-5000-records-of-data-make-reads-only-3200-records/45057); https://developers.make.com/custom-apps-documentation/best-practices/trigger-modules ("a 3200 pagination limit")',
  },
  paginationRequests: {
    text: 'a module run makes at most 50 requests in all (Make allows 100 requests, 50 of them pagination requests; the harness counts the first page too, so it is stricter)',
    source:
      'https://developers.make.com/custom-apps-documentation/component-blocks/api/pagination; the limits table above (Max Request Count 100, Max Pagination Request Count 50)',
  },
  paginationNeedsLimit: {
    text: 'a paginating module stops on its limit',
    source:
      'https://developers.make.com/custom-apps-documentation/component-blocks/api/handling-responses/limit ("also used by pagination logic to determine whether to fetch the next page")',
  },
  triggerType: {
    text: 'a polling trigger orders items by its type: date for items with a create/update date, id only for items with nothing but an id',
    source:
      'https://developers.make.com/custom-apps-documentation/app-components/modules/trigger (response.trigger.type)',
  },
  triggerOrder: {
    text: 'trigger.order states the order the API returns items in',
    source:
      'https://developers.make.com/custom-apps-documentation/app-components/modules/trigger (response.trigger.order); unordered or asc may miss items (best-practices/trigger-modules)',
  },
  epochLimit: {
    text: 'the epoch request has a static limit of at most 300',
    source:
      'https://developers.make.com/custom-apps-documentation/best-practices/trigger-modules (Epoch: "at maximum, 300")',
  },
  instantTriggerShape: {
    text: 'an instant trigger makes at most one request, without iterate or pagination, and gets the webhook bundle as payload',
    source:
      'https://developers.make.com/custom-apps-documentation/app-components/modules/instant-trigger (Communication)',
  },
  instantTriggerNoRequest: {
    text: "an instant trigger's first error switches the user's scenario off, so this app's instant trigger makes no request that could fail (Make's own rule makes the request optional)",
    source:
      'integromat/make-skills skills/make-scenario-building/error-handling.md ("If a scenario starts with an instant trigger ... the scenario deactivates immediately upon the first error"); https://developers.make.com/custom-apps-documentation/app-components/modules/instant-trigger ("Communication is only optional in the instant trigger")',
  },
  webhookHeaderCase: {
    text: 'the letter case of header names reaching a webhook is not documented, so the harness hands them over as the sender wrote them',
    source:
      'https://developers.make.com/custom-apps-documentation/app-structure/webhooks (headers: no casing stated); RFC 9110 section 5.1 (field names are case-insensitive)',
  },
  /**
   * The API key is therefore used by the module after the webhook, which has the connection; the app's
   * webhook is a dedicated one, linked to the user's account
   * (https://developers.make.com/custom-apps-documentation/app-structure/webhooks/dedicated).
   */
  webhookScope: {
    text: 'a webhook reads only now, environment, parameters, data, body, query, method, headers (no connection)',
    source:
      'https://developers.make.com/custom-apps-documentation/app-structure/webhooks (Available IML variables)',
  },
  connectionOwnData: {
    text: "a connection sees its own parameters and its own common data, never the app's common data nor the base, so its test call needs a full address",
    source:
      'https://developers.make.com/custom-apps-documentation/app-components/connections (common data: a connection\'s is its own; "When you need the common data to be available to all modules, use Apps common data instead"; read 2026-11-28, /work/shared/DESIGN.md); https://developers.make.com/custom-apps-documentation/app-components/base (the base is inherited by modules and RPCs)',
  },
  directiveScope: {
    text: 'each directive reads only the variables Make gives it',
    source:
      'https://developers.make.com/custom-apps-documentation/app-components/modules/action/components (Available IML variables); .../app-structure/rpcs/available-iml-variables',
  },
  /**
   * The app uses only built-in functions instead (`if`, `ifempty`, `switch`, `contains`, `map`, `join`,
   * `split`, `get`, `length`, `encodeURL`): https://www.make.com/en/help/functions/general-functions,
   * .../string-functions and .../array-functions.
   */
  noCustomFunctions: {
    text: 'custom IML functions are not available by default',
    source: 'https://developers.make.com/custom-apps-documentation/app-components/iml-functions',
  },
  oneBasedIndexes: {
    text: 'arrays are 1-based',
    source:
      'https://www.make.com/en/help/functions/array-functions ("The first item in an array is index 1")',
  },
  webhookParsedBody: {
    text: 'a webhook gets the parsed body, never the raw bytes',
    source:
      'https://developers.make.com/custom-apps-documentation/app-structure/webhooks (body is the parsed request body)',
  },
  errorType: {
    text: "response.error's type is one of Make's error types, written as a name or as an IML expression",
    source:
      'https://developers.make.com/custom-apps-documentation/component-blocks/api/handling-responses/error ("type: IML string. An expression that specifies the error type"; default RuntimeError); enums.json#error-type in Make\'s Apps SDK schemas',
  },
  errorMessageLength: {
    text: 'an error message is at most 1,024 characters of IML',
    source: "response.json#error in Make's Apps SDK schemas (message maxLength 1024)",
  },
  errorMerge: {
    text: 'a module that sets its own default error message covers every status the base covers (the harness bound: Make does not document how the two merge, so the app must read the same under either reading)',
    source:
      'harness bound, stricter than https://developers.make.com/custom-apps-documentation/app-components/base (modules inherit the base)',
  },
  validDirective: {
    text: "a 2xx answer whose response.valid is false stops the module with the valid directive's type and message",
    source:
      'https://developers.make.com/custom-apps-documentation/component-blocks/api/handling-responses/valid ("module execution stops and Make throws an error")',
  },
  retriedByMake: {
    text: 'Make reruns by itself what ends in RateLimitError, ConnectionError or ModuleTimeoutError',
    source:
      'https://help.make.com/automatic-retry-of-incomplete-executions ("automatically retries incomplete executions that have been created because of RateLimitError, ConnectionError, ModuleTimeoutError"); https://help.make.com/exponential-backoff (scheduled reruns on the same three)',
  },
  disablesScenario: {
    text: 'InvalidConfigurationError and InvalidAccessTokenError (the invalid-credential kind of it) disable the scenario until the user acts',
    source:
      'integromat/imt-proto lib-es6/error.js (InvalidAccessTokenError extends InvalidConfigurationError, "Used when service access token is expired or invalid ... Also disables the scenario"); https://help.make.com/types-of-errors (credentials refused: "create a new connection")',
  },
  transportFailure: {
    text: "a request that gets no HTTP answer (connection dropped) fails with Make's own error, which the app cannot type; the harness assumes the worst, ConnectionError",
    source:
      'https://help.make.com/fix-connection-errors (ConnectionError: the app is unavailable); harness bound, since Make documents no type for a dropped connection',
  },
  chargeNotReplayed: {
    text: "a POST that may have been charged never ends in a type Make reruns by itself, unless the answer is the service's own 429/503: the status with its wait header (the spec shows no error body shape)",
    source:
      "this app's rule over RULES.retriedByMake; the service's wait headers: shared/openapi.yaml (429 X-RateLimit-Reset, 503 Retry-After)",
  },
} as const;

/** Every error type a custom app may name (enums.json#error-type in Make's Apps SDK schemas). */
export const ERROR_TYPES = [
  'RuntimeError',
  'DataError',
  'RateLimitError',
  'OutOfSpaceError',
  'ConnectionError',
  'InvalidConfigurationError',
  'InvalidAccessTokenError',
  'IncompleteDataError',
  'DuplicateDataError',
] as const;
/** RULES.retriedByMake. */
export const RETRIED_BY_MAKE: readonly string[] = ['RateLimitError', 'ConnectionError', 'ModuleTimeoutError'];
/** RULES.disablesScenario. */
export const DISABLES_SCENARIO: readonly string[] = ['InvalidConfigurationError', 'InvalidAccessTokenError'];
/** RULES.errorMessageLength. */
export const ERROR_MESSAGE_MAX = 1_024;

export const MODULE_TIMEOUT_MS = 40_000;
export const PAGINATION_ITEM_LIMIT = 3_200;
export const MAX_REQUESTS_PER_RUN = 50;
export const RPC_MAX_REQUESTS = 3;
export const EPOCH_LIMIT_MAX = 300;
/** At least this much of the module timeout is left for the requests themselves when a repeat waits. */
export const REQUEST_ALLOWANCE_MS = 10_000;

const BASE_VARS = ['parameters', 'temp', 'now', 'common', 'data', 'environment'] as const;

/** What each directive may read (see RULES.directiveScope, RULES.repeatScope, RULES.webhookScope). */
export const SCOPES = {
  /** url, method, headers, qs, body of a module or RPC request. */
  moduleRequest: [...BASE_VARS, 'connection'],
  /** The same for an instant trigger, which also has the webhook's bundle. */
  instantRequest: [...BASE_VARS, 'connection', 'payload'],
  /** response.* of a module or RPC (item only inside iterate, output, limit and trigger). */
  moduleResponse: [...BASE_VARS, 'connection', 'body', 'headers', 'statusCode', 'item'],
  instantResponse: [...BASE_VARS, 'connection', 'payload', 'body', 'headers', 'statusCode'],
  pagination: [...BASE_VARS, 'connection', 'body', 'headers', 'pagination'],
  repeatCondition: ['temp'],
  /** The connection's own test request has the connection's fields as parameters, no `connection`. */
  connectionRequest: [...BASE_VARS],
  connectionResponse: [...BASE_VARS, 'body', 'headers', 'statusCode'],
  /** The base applies to every module request and answer. */
  base: [...BASE_VARS, 'connection', 'body', 'headers', 'statusCode'],
  webhook: ['now', 'environment', 'parameters', 'data', 'body', 'query', 'method', 'headers'],
} as const;

export type ScopeName = keyof typeof SCOPES;
