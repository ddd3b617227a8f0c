/**
 * The service's rules as the sandbox applies them, each written here from the spec and nowhere else in
 * the sandbox. Nothing is taken from the client package: the conformance and differential tests
 * compare two independent implementations, so a bug in one shows up as a disagreement.
 */
export * from './limits';
export * from './wire';
export { addressProblem } from './address';
export { isIp } from './ip';
export {
  webhookUrlViolations,
  resolvedAddressViolations,
  hostOf,
  isLoopbackHost,
  type WebhookUrlViolation,
} from './webhook-url';
export { categoryOf, type Category } from './categories';
export { signedDelivery } from './signing';
