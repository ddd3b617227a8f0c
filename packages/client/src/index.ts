/**
 * @evf/client: the platform-neutral core. No timers, no process, no global object, and no imports but
 * node:crypto, so it can be bundled into an n8n community node and pass n8n's package scanner.
 * Node's defaults (fetch transport, timers, DNS) live in the `@evf/client/node` entry point.
 */
export * from './types';
export * from './errors';
export * from './limits';
export * from './categories';
export { EmailVerificationClient, isJobStopped } from './client';
export type { ClientOptions, ResultsOptions, WaitOptions, RevokeResult } from './client';
export { planSubmission } from './bulk';
export type { ListSubmission, SubmitListParams, SubmitListOptions, SubmissionPlan } from './bulk';
export { allowanceOf, PLAN_ALLOWANCES } from './allowance';
export type { ApiAllowance } from './allowance';
export { HttpCore, DEFAULT_RETRY } from './core/http';
export type { RequestOptions, RetryOptions } from './core/http';
export type { Runtime } from './core/runtime';
export { TransportError, lowerCaseHeaders } from './core/transport';
export type { Transport, TransportRequest, TransportResponse, HttpMethod, TransportFailure } from './core/transport';
export { parseRetryHeader, backoffDelay } from './core/retry';
export { scanEmail, isEmailSyntaxValid, emailProblem, parseEmailList, reasonFor, SCAN_OK, SCAN_OK_UPPER, SCAN_SEPARATOR } from './validation/email';
export { preflightEmails, summarizePreflight } from './validation/preflight';
export type { PreflightReport, DuplicateAddress, MalformedAddress, PreflightOptions, UnwrappedAddress } from './validation/preflight';
export { unwrapAddress } from './validation/email';
export { checkWebhookUrl, assertWebhookUrl, checkResolvedAddresses } from './validation/webhook-url';
export type { WebhookUrlViolation, WebhookUrlOptions } from './validation/webhook-url';
export { classifyAddress, isIpLiteral, isLoopbackUrl, parseIPv4, parseIPv6 } from './validation/ip';
export type { AddressClass } from './validation/ip';
export * from './validation/params';
export { verifyWebhook, getHeader, WebhookVerificationError } from './webhooks/verify';
export type { VerifiedWebhook, VerifyWebhookInput, WebhookFailure, HeaderBag } from './webhooks/verify';
export { signWebhook, buildWebhookDelivery } from './webhooks/sign';
export type { WebhookDelivery } from './webhooks/sign';
