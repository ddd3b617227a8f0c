import { STEP_BUDGET_MS } from './config';

/**
 * The time by which a step's HTTP work must be done, on the client's clock (Date.now). Zapier stops every
 * action, search and polling trigger at 30 s, requests and code together ("Important Zapier constraints
 * summary", https://docs.zapier.com/platform/build/operating-constraints); the budget leaves the rest for
 * Zapier's own work. Every request of a step, its retries and any wait the service asks for fit before it.
 */
export function stepDeadline(): number {
  return Date.now() + STEP_BUDGET_MS;
}
