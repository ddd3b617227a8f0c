/**
 * The client's wire types against the contract. Each key list below is typed as a complete record of the
 * type's keys, so the compiler (npm test type-checks this file) fails when a field is added to or
 * removed from a type without this list; the test then fails when the list and openapi.yaml differ.
 * Required keys: a field the client treats as always present must be required by the contract.
 */
import { openapi } from '@evf/contract';
import type {
  Account,
  Buckets,
  BulkSubmission,
  CreditBalance,
  Details,
  Job,
  JobList,
  JobListItem,
  ResultRow,
  ResultsPage,
  SingleResult,
  Subscription,
  SubmitBulkParams,
  Tag,
  Verdicts,
  VerifySingleParams,
  WebhookBody,
} from '@evf/client';

/** Named keys only (index signatures of open schemas dropped), each marked required or optional. */
type KnownKeys<T> = {
  [K in keyof T as string extends K ? never : K]-?: Record<never, never> extends Pick<T, K>
    ? 'optional'
    : 'required';
};

const TYPES: Record<string, Record<string, 'optional' | 'required'>> = {
  SingleResult: {
    email: 'required',
    status: 'required',
    valid: 'required',
    score: 'required',
    reason: 'required',
    details: 'required',
    credits_used: 'required',
    credits_remaining: 'required',
    processed_at: 'required',
  } satisfies KnownKeys<SingleResult>,
  Details: {
    primary_label: 'required',
    tags: 'required',
    label_reasons: 'required',
    safe_to_send: 'optional',
    safe_to_send_score: 'optional',
    safe_to_send_reasons: 'optional',
  } satisfies KnownKeys<Details>,
  Tag: { label: 'required', confidence: 'required' } satisfies KnownKeys<Tag>,
  Job: {
    job_id: 'required',
    status: 'required',
    terminal: 'required',
    total_emails: 'required',
    processed: 'required',
    progress_percent: 'required',
    verdicts: 'required',
    buckets: 'required',
    created_at: 'required',
    started_at: 'optional',
    completed_at: 'optional',
    error: 'required',
    valid_count: 'optional',
    invalid_count: 'optional',
  } satisfies KnownKeys<Job>,
  Verdicts: {
    valid: 'required',
    invalid: 'required',
    catch_all: 'required',
    risky: 'required',
    role_based: 'required',
    disposable: 'required',
    unknown: 'required',
  } satisfies KnownKeys<Verdicts>,
  Buckets: { safe_to_send: 'required', risky: 'required', invalid: 'required' } satisfies KnownKeys<Buckets>,
  BulkSubmission: {
    job_id: 'required',
    status: 'required',
    total_emails: 'required',
    estimated_seconds: 'required',
    credits_used: 'required',
    credits_remaining: 'required',
    created_at: 'required',
  } satisfies KnownKeys<BulkSubmission>,
  JobListItem: {
    job_id: 'required',
    status: 'required',
    total_emails: 'required',
    processed: 'required',
    progress_percent: 'required',
    created_at: 'required',
  } satisfies KnownKeys<JobListItem>,
  JobList: { jobs: 'required', limit: 'required', offset: 'required' } satisfies KnownKeys<JobList>,
  ResultsPage: {
    job_id: 'required',
    status: 'required',
    total: 'required',
    page: 'required',
    per_page: 'required',
    has_more: 'required',
    results: 'required',
  } satisfies KnownKeys<ResultsPage>,
  ResultRow: {
    email: 'required',
    status: 'required',
    valid: 'required',
    score: 'required',
    reason: 'required',
    details: 'required',
  } satisfies KnownKeys<ResultRow>,
  CreditBalance: {
    credits: 'required',
    credits_used_today: 'required',
    credits_used_this_month: 'required',
    plan_limit: 'required',
    renewal_date: 'required',
  } satisfies KnownKeys<CreditBalance>,
  Account: {
    plan: 'required',
    credits: 'required',
    credits_used_today: 'required',
  } satisfies KnownKeys<Account>,
  Subscription: {
    status: 'required',
    plan: 'required',
    credits: 'required',
    renewal_date: 'required',
    has_billing: 'required',
    is_trial: 'required',
    trial_expired: 'required',
  } satisfies KnownKeys<Subscription>,
  WebhookBody: {
    event: 'required',
    job_id: 'required',
    status: 'required',
    total_emails: 'required',
    processed_emails: 'required',
    verdicts: 'required',
    created_at: 'required',
    completed_at: 'required',
    results_url: 'required',
    error: 'optional',
  } satisfies KnownKeys<WebhookBody>,
  VerifyBulkRequest: {
    emails: 'required',
    name: 'optional',
    webhook_url: 'optional',
    priority: 'optional',
    check_smtp: 'optional',
  } satisfies KnownKeys<SubmitBulkParams>,
  VerifySingleRequest: { email: 'required', check_smtp: 'optional' } satisfies KnownKeys<VerifySingleParams>,
};

const schemas = (
  openapi as {
    components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
  }
).components.schemas;

describe.each(Object.entries(TYPES))('%s', (name, keys) => {
  const schema = schemas[name]!;
  test('has exactly the fields of the contract', () => {
    expect(Object.keys(keys).sort()).toEqual(Object.keys(schema.properties ?? {}).sort());
  });
  test('a field the client relies on is required by the contract', () => {
    const required = new Set(schema.required ?? []);
    const relied = Object.entries(keys)
      .filter(([, r]) => r === 'required')
      .map(([k]) => k);
    // Request bodies go the other way: what the contract requires, the client's params require.
    if (name.endsWith('Request')) expect([...required].sort()).toEqual(relied.sort());
    else expect(relied.filter((k) => !required.has(k))).toEqual([]);
  });
});
