/**
 * The service's rules as the sandbox applies them, each written here from the spec and nowhere else in
 * the sandbox. Nothing is taken from the client package: the conformance and differential tests
 * compare two independent implementations, so a bug in one shows up as a disagreement.
 */
export * from './limits';
export * from './wire';
export { addressProblem } from './address';
export { judgeIp, isIp, type IpVerdict } from './ip';
export {
  webhookUrlViolations,
  resolvedAddressViolations,
  hostOf,
  isLoopbackHost,
  type WebhookRule,
  type WebhookUrlViolation,
  type WebhookUrlPolicy,
} from './webhook-url';
export { categoryOf, type Category, type Group } from './categories';
export { signedDelivery } from './signing';
