/**
 * The rules the service and its clients share, taken from the client so both sides apply one
 * definition: address syntax, webhook_url rules, IP classification, signing, category mapping.
 */
export {
  LIMITS,
  JOB_STATUSES,
  PRIORITIES,
  categorize,
  emailProblem,
  checkWebhookUrl,
  checkResolvedAddresses,
  classifyAddress,
  buildWebhookDelivery,
} from '@evf/client';
export type { WebhookUrlViolation, Category, Group } from '@evf/client';
export type {
  Details,
  Tag,
  Verdicts,
  Buckets,
  ResultRow,
  SingleResult,
  Job,
  JobListItem,
  JobList,
  BulkSubmission,
  ResultsPage,
  CreditBalance,
  WebhookBody,
  JobStatus,
  PrimaryLabel,
  TagLabel,
  Priority,
} from '@evf/client';
