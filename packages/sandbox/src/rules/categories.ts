import type { Details, PrimaryLabel, TagLabel } from './wire';

/**
 * The spec's "Dashboard category mapping (apply tags first, then primary_label)", as a table read top to
 * bottom: the first row whose condition holds gives the category and its group.
 */
export type Group = 'safe_to_send' | 'risky' | 'invalid';
export type Category =
  | 'Spam Trap'
  | 'Disposable'
  | 'Role'
  | 'Valid'
  | 'Catch-All'
  | 'Inbox Full'
  | 'Invalid / Disabled / No Mail Server'
  | 'Unknown / Not Verified (refunded)';

interface MappingRow {
  when: { tag: TagLabel } | { labels: readonly PrimaryLabel[] };
  category: Category;
  group: Group;
}

const MAPPING: readonly MappingRow[] = [
  { when: { tag: 'spam_trap' }, category: 'Spam Trap', group: 'invalid' },
  { when: { tag: 'disposable' }, category: 'Disposable', group: 'invalid' },
  { when: { tag: 'role' }, category: 'Role', group: 'risky' },
  { when: { labels: ['valid'] }, category: 'Valid', group: 'safe_to_send' },
  { when: { labels: ['catch_all'] }, category: 'Catch-All', group: 'risky' },
  { when: { labels: ['inbox_full'] }, category: 'Inbox Full', group: 'risky' },
  {
    when: { labels: ['invalid', 'disabled'] },
    category: 'Invalid / Disabled / No Mail Server',
    group: 'invalid',
  },
  {
    when: { labels: ['unknown', 'not_verified'] },
    category: 'Unknown / Not Verified (refunded)',
    group: 'risky',
  },
];

export function categoryOf(details: Pick<Details, 'primary_label' | 'tags'>): {
  category: Category;
  group: Group;
} {
  const row = MAPPING.find(({ when }) =>
    'tag' in when
      ? details.tags.some((t) => t.label === when.tag)
      : when.labels.includes(details.primary_label),
  );
  // Every primary label the sandbox writes has a row; reaching here is a bug in the sandbox itself.
  if (!row) throw new Error(`no category for primary_label ${String(details.primary_label)}`);
  return { category: row.category, group: row.group };
}
