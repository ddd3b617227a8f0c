/**
 * @evf/client: the platform-neutral core. No timers, no process, no global object, and no imports but
 * node:crypto, so it can be bundled into an n8n community node and pass n8n's package scanner.
 * Node's defaults (fetch transport, timers, DNS) live in the `@evf/client/node` entry point.
 *
 * This is the public surface the README documents; everything else is internal.
 */

// The client and what its calls take and give.
export { EmailVerificationClient } from './client';
export type { ClientOptions, RevokeResult } from './client';
export type { RequestOptions, RetryOptions } from './core/http';
export type { ResultsOptions, JobsOptions } from './core/pagination';
export { isJobStopped } from './core/waiting';
export { assertSomethingToSend } from './bulk';
export type { WaitOptions } from './core/waiting';
export type {
  ListSubmission,
  SubmitListParams,
  SubmitListOptions,
  SubmissionPlan,
  JobFields,
  PostOptions,
} from './bulk';
export type { ResultsWindow, ResultsWindowOptions, RowsOnlyWindow, WindowEnd } from './results-window';
export { readPositionWindow } from './position-window';
export type { PositionWindow, PositionWindowOptions } from './position-window';
export type { FinishedJobs, FinishedJobsOptions } from './finished-jobs';
export type { JobsRows, JobsRowsOptions } from './jobs-rows';
export * from './types';

// Errors, one class per situation.
export {
  EvfError,
  InputError,
  ApiError,
  BadRequestError,
  AuthenticationError,
  InsufficientCreditsError,
  PermissionDeniedError,
  NotFoundError,
  VerificationTimeoutError,
  UnprocessableError,
  RateLimitError,
  ServiceUnavailableError,
  ServerError,
  ConnectionError,
  RequestTimeoutError,
  AbortedError,
  TimeBudgetSpentError,
  SubmissionUncertainError,
  VerificationUncertainError,
  PartialSubmissionError,
  AllowanceExceededError,
  JobWaitTimeoutError,
} from './errors';
export type { InvalidEmail, UncertainSubmission, UncertainChunk, StoppedBy } from './errors';

// The spec's limits, statuses and the API allowance tables.
export {
  LIMITS,
  JOB_STATUSES,
  STOPPED_STATUSES,
  PRIORITIES,
  API_KEY_PREFIX,
  WEBHOOK_SECRET_PREFIX,
} from './limits';
export { allowanceOf, PLAN_ALLOWANCES } from './allowance';
export type { ApiAllowance } from './allowance';

// Decisions: the dashboard's category mapping.
export * from './categories';

// A list sent over several runs: what to send now, so nothing is charged twice.
export { nextSend, rememberRun } from './list-memory';
export type { ListMemory, NextSend } from './list-memory';

// A per-row check: the free verdict for a cell that holds no single usable address.
export { badInputVerdict } from './bad-input';
export type { BadInputVerdict, BadInputProblem } from './bad-input';

// Holding a whole job's rows at once: each repeated part kept once.
export { createRowSharer } from './shared-parts';
export type { RowSharerOptions } from './shared-parts';

// Checks a platform runs on its own inputs before anything is sent.
export { addressesByItem, preflightEmails, summarizePreflight } from './validation/preflight';
export type {
  PreflightReport,
  PreflightOptions,
  DuplicateAddress,
  MalformedAddress,
  UnwrappedAddress,
} from './validation/preflight';
export { isEmailSyntaxValid, emailProblem } from './validation/email';
export { checkWebhookUrl, checkResolvedAddresses } from './validation/webhook-url';
export type { WebhookUrlViolation, WebhookUrlOptions, WebhookUrlPolicy } from './validation/webhook-url';
export { classifyAddress, isLoopbackUrl } from './validation/ip';
export type { AddressClass } from './validation/ip';
export { assertApiKey, assertWebhookSecret } from './validation/params';

// What each row of a list gets beside it (the result columns), for the file write-back (@evf/tables) and
// for platforms that write verdicts beside their own rows; a list's stable key for finding its jobs again.
export { rowVerdicts, isOpenRow, RESULT_COLUMNS } from './row-verdicts';
export type { WriteBackCounts, RowOutcome, RowVerdicts, RowVerdictOptions } from './row-verdicts';
export { listFingerprint } from './list-key';

// Webhooks: verify what the service sends; sign test deliveries the same way.
export { verifyWebhook, WebhookVerificationError } from './webhooks/verify';
export { checkCompletionMessage } from './webhooks/resume';
export type { ResumeInput, ResumeOutcome, MessageCheck } from './webhooks/resume';
export type { VerifiedWebhook, VerifyWebhookInput, WebhookFailure, HeaderBag } from './webhooks/verify';
export { signWebhook, buildWebhookDelivery } from './webhooks/sign';
export type { WebhookDelivery } from './webhooks/sign';

// For platform transports and runtimes.
export type { Runtime } from './core/runtime';
export { TransportError } from './core/transport';
export type {
  Transport,
  TransportRequest,
  TransportResponse,
  HttpMethod,
  TransportFailure,
} from './core/transport';
export { parseRetryHeader } from './core/retry';

// The adapter kit: what every platform adapter needs from the client instead of a copy of its own.
export { transportFailure, failureContextOf } from './adapter-kit/transport-failure';
export type { FailureContext } from './adapter-kit/transport-failure';
export { baseUrlProblem } from './adapter-kit/base-url';
export type { BaseUrlProblem, BaseUrlRule, BaseUrlPolicy } from './adapter-kit/base-url';
export { lowerCaseHeaders } from './adapter-kit/headers';
export type { HeaderSource } from './adapter-kit/headers';
export { errorStatus, errorReason, errorField } from './adapter-kit/error-details';
export { runList } from './lists/run';
export type { ListRunClient, ListRunInput, ListRunOutcome, ListRunResult, HeldReason } from './lists/run';
export { openBook, LIST_WINDOW_MS } from './lists/book';
export type { ListBook, BookEntry, InDoubt, ForgetPolicy } from './lists/book';
export { SETTLE_AFTER_MS } from './lists/settle';
export { readFinishedFeed } from './lists/finished-feed';
export type { FeedState, FeedRead } from './lists/finished-feed';

// When an Unknown or Not Verified answer is tried again, and the cap on further tries.
export {
  VERIFY_AGAIN_DELAYS_MS,
  mayVerifyAgain,
  openVerifyAgain,
  verifyAgainFields,
  recordAnswers,
  entryFor,
  isDueAgain,
  dueAgain,
  answeredRowFields,
  isRowDueAgain,
} from './verify-again';
export type {
  VerifyAgainEntry,
  VerifyAgainMemory,
  VerifyAgainFields,
  VerifyAgainPolicy,
} from './verify-again';

// Low credit: a trigger that fires once per drop below a threshold, and a list checked against the balance.
export { creditThreshold, creditBelow, coverList } from './credit-alert';
export type { BelowMemory, BelowItem, ListCover, ShortCreditChoice } from './credit-alert';
