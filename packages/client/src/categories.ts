import type { Details } from './types';

export const GROUPS = ['safe_to_send', 'risky', 'invalid'] as const;
export type Group = (typeof GROUPS)[number];

export const CATEGORIES = [
  'Spam Trap',
  'Disposable',
  'Role',
  'Valid',
  'Catch-All',
  'Inbox Full',
  'Invalid / Disabled / No Mail Server',
  'Unknown / Not Verified (refunded)',
  'Unknown / Not Verified (charged)',
  'Invalid',
] as const;
export type Category = (typeof CATEGORIES)[number];

export interface Categorization {
  category: Category;
  group: Group;
  /** True only for the safe_to_send group: the one answer that may be mailed. */
  safeToSend: boolean;
}

const TAG_RULES: ReadonlyArray<readonly [string, Category, Group]> = [
  ['spam_trap', 'Spam Trap', 'invalid'],
  ['disposable', 'Disposable', 'invalid'],
  ['role', 'Role', 'risky'],
];

const LABEL_RULES: Readonly<Record<string, readonly [Category, Group]>> = {
  valid: ['Valid', 'safe_to_send'],
  catch_all: ['Catch-All', 'risky'],
  inbox_full: ['Inbox Full', 'risky'],
  invalid: ['Invalid / Disabled / No Mail Server', 'invalid'],
  disabled: ['Invalid / Disabled / No Mail Server', 'invalid'],
  unknown: ['Unknown / Not Verified (refunded)', 'risky'],
  not_verified: ['Unknown / Not Verified (refunded)', 'risky'],
};

/** A label we have never seen is not evidence of deliverability: hold it back like an unknown. */
const UNRECOGNISED: readonly [Category, Group] = ['Unknown / Not Verified (refunded)', 'risky'];

/**
 * The dashboard's mapping: tags first (in the spec's order), then primary_label.
 * The row's `status` is deliberately not an input: the spec says it may disagree with details.
 */
export function categorize(
  details: Pick<Details, 'primary_label' | 'tags'> | null | undefined,
  options: CategorizeOptions = {},
): Categorization {
  const tags = Array.isArray(details?.tags) ? details.tags : [];
  for (const [tag, category, group] of TAG_RULES) {
    if (tags.some((t) => t && t.label === tag))
      return { category, group, safeToSend: group === 'safe_to_send' };
  }
  const label = typeof details?.primary_label === 'string' ? details.primary_label : '';
  const [category, group] = Object.prototype.hasOwnProperty.call(LABEL_RULES, label)
    ? LABEL_RULES[label]!
    : UNRECOGNISED;
  // The spec refunds unknowns only when a bulk job ends; a single check that answered unknown was charged.
  if (options.source === 'single' && category === 'Unknown / Not Verified (refunded)') {
    return { category: 'Unknown / Not Verified (charged)', group, safeToSend: false };
  }
  return { category, group, safeToSend: group === 'safe_to_send' };
}

export interface CategorizeOptions {
  /**
   * Where the answer came from. `bulk` (default): a job's row, whose unknown is refunded when the job
   * ends. `single`: POST /v1/verify/single, which charged its credit and refunds nothing for an unknown.
   */
  source?: 'bulk' | 'single';
}

export interface CategoryFields {
  category: Category;
  group: Group;
  safe_to_send: boolean;
}

/**
 * Adds the flat fields every platform outputs, so users can route with a plain filter step. A single
 * check's result (it carries `credits_used`, a job's row does not) is categorized as charged.
 */
export function withCategory<
  T extends { details?: Pick<Details, 'primary_label' | 'tags'> | null; credits_used?: unknown },
>(row: T): T & CategoryFields {
  const source = typeof row.credits_used === 'number' && row.credits_used > 0 ? 'single' : 'bulk';
  const { category, group, safeToSend } = categorize(row.details, { source });
  return { ...row, category, group, safe_to_send: safeToSend };
}

/** Counts rows per group, with every group present (0 when absent). */
export function countByGroup(
  rows: Iterable<{ details?: Pick<Details, 'primary_label' | 'tags'> | null }>,
): Record<Group, number> {
  const counts: Record<Group, number> = { safe_to_send: 0, risky: 0, invalid: 0 };
  for (const row of rows) counts[categorize(row.details).group] += 1;
  return counts;
}
