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
  moduleTimeout: {
    text: 'a module gets no answer after about 40 s and fails with a timeout',
    source:
      'https://community.make.com/t/timeout-error/37183 ("usually 40 seconds"); the harness counts the whole module run, waits included',
  },
  repeatScope: {
    text: 'a repeat condition sees temp only, not body',
    source:
      "Make's repeat directive (its schema in Make's VS Code extension, sources.json#repeat; the temp-only scope as issue 17 reads Make's repeat docs); the answer reaches the condition through response.temp (https://developers.make.com/custom-apps-documentation/component-blocks/api/handling-responses/temp)",
  },
  repeatBounds: {
    text: 'a repeat needs a limit and must end inside the module timeout',
    source:
      'sources.json#repeat in Make\'s VS Code extension ("a predefined delay in milliseconds", "bounded by the repeat.limit") with the module timeout above',
  },
  paginationItems: {
    text: 'pagination stops at 3,200 items',
    source:
      'https://developers.make.com/custom-apps-documentation/best-practices/trigger-modules ("a 3200 pagination limit")',
  },
  paginationRequests: {
    text: 'a module run makes at most 50 requests (the harness bound: Make documents only the 3,200-item limit)',
    source:
      'harness bound, stricter than https://developers.make.com/custom-apps-documentation/component-blocks/api/pagination',
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
  webhookScope: {
    text: 'a webhook reads only now, environment, parameters, data, body, query, method, headers (no connection)',
    source:
      'https://developers.make.com/custom-apps-documentation/app-structure/webhooks (Available IML variables)',
  },
  directiveScope: {
    text: 'each directive reads only the variables Make gives it',
    source:
      'https://developers.make.com/custom-apps-documentation/app-components/modules/action/components (Available IML variables); .../app-structure/rpcs/available-iml-variables',
  },
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
} as const;

export const MODULE_TIMEOUT_MS = 40_000;
export const PAGINATION_ITEM_LIMIT = 3_200;
export const MAX_REQUESTS_PER_RUN = 50;
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
