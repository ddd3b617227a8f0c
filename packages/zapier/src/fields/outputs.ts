import type { PlainOutputField } from 'zapier-platform-core';
import { MAX_RESULT_ROWS } from '../config';

type FieldType = NonNullable<PlainOutputField['type']>;
const field = (
  key: string,
  label: string,
  type: FieldType,
  extra: Partial<PlainOutputField> = {},
): PlainOutputField => ({
  key,
  label,
  type,
  ...extra,
});

/**
 * The field of a list of line items itself (its items are described by `key[]child` fields). Zapier
 * shows every live key a Zap can map, the list included, so the list needs a label of its own; its
 * items are objects, which no output field type names, hence no type.
 */
const lineItemsField = (key: string, label: string): PlainOutputField => ({ key, label, list: true });

/** The flat fields this app adds to every verified address, from the client's shared mapping. */
export function categoryOutputFields(prefix = ''): PlainOutputField[] {
  return [
    field(`${prefix}category`, 'Category', 'string'),
    field(`${prefix}group`, 'Group (Safe to Send, Risky or Invalid)', 'string'),
    field(`${prefix}safe_to_send`, 'Safe to Send', 'boolean'),
  ];
}

/** Fields of a verified address (a single result or a result row), optionally inside line items. */
export function verifiedAddressOutputFields(prefix = ''): PlainOutputField[] {
  return [
    field(`${prefix}email`, 'Email Address', 'string'),
    ...categoryOutputFields(prefix),
    field(`${prefix}status`, 'Status (Informational)', 'string'),
    field(`${prefix}valid`, 'Valid', 'boolean'),
    field(`${prefix}score`, 'Confidence Score', 'number'),
    field(`${prefix}reason`, 'Reason', 'string'),
    field(`${prefix}details__primary_label`, 'Primary Label', 'string'),
    field(`${prefix}details__label_reasons`, 'Label Reasons', 'string', { list: true }),
    lineItemsField(`${prefix}details__tags`, 'Tags (Line Items)'),
    field(`${prefix}details__tags[]label`, 'Tag', 'string'),
    field(`${prefix}details__tags[]confidence`, 'Tag Confidence', 'number'),
    field(`${prefix}details__safe_to_send`, 'Catch-All Send Rating', 'string'),
    field(`${prefix}details__safe_to_send_score`, 'Catch-All Send Score', 'number'),
    field(`${prefix}details__safe_to_send_reasons`, 'Catch-All Send Rating Reasons', 'string', {
      list: true,
    }),
    // Informational fields the service adds to details (the spec allows more and says they may change).
    field(`${prefix}details__domain`, 'Domain', 'string'),
    field(`${prefix}details__smtp_checked`, 'Mail Server Checked', 'boolean'),
  ];
}

/**
 * What a count covers, in its label: the job's own counts cover every address of the job, the counts
 * this app makes cover only the rows a step returned (capped, or filtered by group).
 */
/** The balance as GET /v1/account/credits gives it: Get Credit Balance and Credit Balance Below. */
export function creditOutputFields(): PlainOutputField[] {
  return [
    field('credits', 'Credits Left', 'integer'),
    field('credits_used_today', 'Credits Used in the Last 24 Hours', 'integer'),
    field('credits_used_this_month', 'Credits Used in the Last 30 Days', 'integer'),
    field('plan_limit', 'Plan Limit', 'string'),
    field('renewal_date', 'Renewal Date', 'datetime'),
  ];
}

export type CountScope = 'Whole Job' | 'Returned Rows';

export function groupCountOutputFields(prefix: string, scope: CountScope): PlainOutputField[] {
  return [
    field(`${prefix}safe_to_send`, `Safe to Send Count (${scope})`, 'integer'),
    field(`${prefix}risky`, `Risky Count (${scope})`, 'integer'),
    field(`${prefix}invalid`, `Invalid Count (${scope})`, 'integer'),
  ];
}

export function verdictOutputFields(prefix: string): PlainOutputField[] {
  return [
    field(`${prefix}valid`, 'Valid Verdicts (Whole Job)', 'integer'),
    field(`${prefix}invalid`, 'Invalid Verdicts (Whole Job)', 'integer'),
    field(`${prefix}catch_all`, 'Catch-All Verdicts (Whole Job)', 'integer'),
    field(`${prefix}risky`, 'Risky Verdicts (Whole Job)', 'integer'),
    field(`${prefix}role_based`, 'Role-Based Verdicts (Whole Job)', 'integer'),
    field(`${prefix}disposable`, 'Disposable Verdicts (Whole Job)', 'integer'),
    field(`${prefix}unknown`, 'Unknown Verdicts (Whole Job)', 'integer'),
  ];
}

/** The flat fields that say a job stopped without finishing its list (see shapes.jobOutcome). */
export function jobOutcomeOutputFields(): PlainOutputField[] {
  return [
    field('job_failed', 'Job Failed or Stopped Early', 'boolean'),
    field('failure_note', 'What Happened to the Job', 'string'),
  ];
}

/**
 * A job's own fields (GET /v1/jobs/{job_id}, and the job list's items), each labelled here once: every
 * operation that returns one of them returns it under this label.
 */
const JOB_FIELDS = {
  job_id: ['Job ID', 'string'],
  status: ['Job Status', 'string'],
  terminal: ['Finished', 'boolean'],
  total_emails: ['Total Addresses', 'integer'],
  processed: ['Processed Addresses', 'integer'],
  progress_percent: ['Progress (%)', 'number'],
  created_at: ['Created At', 'datetime'],
  started_at: ['Started At', 'datetime'],
  completed_at: ['Completed At', 'datetime'],
  error: ['Error', 'string'],
  valid_count: ['Valid Count (Legacy)', 'integer'],
  invalid_count: ['Invalid Count (Legacy)', 'integer'],
} as const satisfies Record<string, readonly [string, FieldType]>;

type JobFieldKey = keyof typeof JOB_FIELDS;

/** The output fields of the job fields named, in the order named. */
export function jobFields(keys: readonly JobFieldKey[]): PlainOutputField[] {
  return keys.map((key) => {
    const [label, type] = JOB_FIELDS[key];
    return field(key, label, type);
  });
}

/** Every field of a job (GET /v1/jobs/{job_id}). */
export function jobOutputFields(): PlainOutputField[] {
  return [
    ...jobFields(['job_id', 'status', 'terminal', 'total_emails', 'processed', 'progress_percent']),
    ...verdictOutputFields('verdicts__'),
    ...groupCountOutputFields('buckets__', 'Whole Job'),
    ...jobFields(['created_at', 'started_at', 'completed_at', 'error', 'valid_count', 'invalid_count']),
  ];
}

/** What pre-flight took out of a list before submitting it. */
export function preflightOutputFields(): PlainOutputField[] {
  return [
    field('received', 'Addresses Received', 'integer'),
    field('unique_count', 'Unique Valid Addresses Submitted', 'integer'),
    field('duplicates_removed', 'Duplicates Removed', 'integer'),
    field('malformed_removed', 'Malformed Addresses Removed', 'integer'),
    lineItemsField('malformed', 'Malformed Addresses (Line Items)'),
    field('malformed[]email', 'Malformed Address', 'string'),
    // A position is the address's line number in the list as given (1 = the first address), the way a
    // user finds it again in what they pasted or mapped.
    field('malformed[]position', 'Malformed Address Line Number (1 = First Address)', 'integer'),
    field('malformed[]reason', 'Why It Is Malformed', 'string'),
    lineItemsField('duplicates', 'Duplicate Addresses (Line Items)'),
    field('duplicates[]email', 'Duplicate Address', 'string'),
    field('duplicates[]position', 'Duplicate Line Number (1 = First Address)', 'integer'),
    field('duplicates[]first_position', 'Line Number of the Kept Copy', 'integer'),
  ];
}

/** How many result rows a step returned, under its cap, and whether more rows follow. */
export function returnedRowsOutputFields(): PlainOutputField[] {
  return [
    field('returned_rows', `Rows Returned (At Most ${MAX_RESULT_ROWS.toLocaleString('en-US')})`, 'integer'),
    field('truncated', 'More Rows Follow (Truncated)', 'boolean'),
  ];
}

/** The rows of verified addresses a step returns as line items, with every field of a row. */
export function resultRowsOutputFields(): PlainOutputField[] {
  return [lineItemsField('results', 'Result Rows (Line Items)'), ...verifiedAddressOutputFields('results[]')];
}

export { field, lineItemsField };
