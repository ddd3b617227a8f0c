import {
  categoryOf,
  type Category,
  type Details,
  type PrimaryLabel,
  type ResultRow,
  type TagLabel,
  type Verdicts,
} from '../rules';

/**
 * Deterministic answers, chosen by the start of the local part (case-insensitive, first match wins),
 * so tests and demos can ask for any outcome by naming the address. The README documents this table.
 */
export type OutcomeKind =
  | 'spam_trap'
  | 'disposable'
  | 'role'
  | 'valid'
  | 'invalid'
  | 'disabled'
  | 'catch_all'
  | 'inbox_full'
  | 'unknown'
  | 'not_verified'
  | 'slow';

export const PREFIX_RULES: ReadonlyArray<readonly [prefixes: readonly string[], kind: OutcomeKind]> = [
  [['trap'], 'spam_trap'],
  [['temp'], 'disposable'],
  [['info', 'sales', 'admin', 'support', 'contact', 'hello'], 'role'],
  [['valid'], 'valid'],
  [['invalid'], 'invalid'],
  [['disabled'], 'disabled'],
  [['catchall'], 'catch_all'],
  [['full'], 'inbox_full'],
  [['unknown'], 'unknown'],
  [['notverified'], 'not_verified'],
  [['slow'], 'slow'],
];

/** Held once: a lookup of the global Math inside a vm context (jest's) is slow, and this runs per character. */
const imul = Math.imul;

/** FNV-1a over the lower-cased address: stable across runs and platforms. */
export function addressHash(email: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < email.length; i++) {
    let c = email.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32;
    h ^= c;
    h = imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Addresses that match no prefix: mostly valid, some invalid, catch_all and unknown. */
function kindFromHash(hash: number): OutcomeKind {
  const bucket = hash % 100;
  if (bucket < 70) return 'valid';
  if (bucket < 82) return 'invalid';
  if (bucket < 92) return 'catch_all';
  return 'unknown';
}

export function outcomeKind(email: string): OutcomeKind {
  const at = email.lastIndexOf('@');
  const local = (at >= 0 ? email.slice(0, at) : email).toLowerCase();
  for (const [prefixes, kind] of PREFIX_RULES) if (prefixes.some((p) => local.startsWith(p))) return kind;
  return kindFromHash(addressHash(email));
}

interface KindShape {
  primary: PrimaryLabel;
  tag?: TagLabel;
  status: 'valid' | 'invalid' | 'risky';
  reason: string;
  labelReasons: string[];
  /** Score range [min, max); the hash picks a point inside. */
  score: readonly [number, number];
}

const SHAPES: Record<Exclude<OutcomeKind, 'slow'>, KindShape> = {
  spam_trap: {
    primary: 'invalid',
    tag: 'spam_trap',
    status: 'invalid',
    reason: 'Known spam trap',
    labelReasons: ['Address is a known spam trap', 'Mailing it damages sender reputation'],
    score: [0.01, 0.1],
  },
  disposable: {
    primary: 'valid',
    tag: 'disposable',
    status: 'risky',
    reason: 'Disposable mailbox provider',
    labelReasons: ['Mailbox exists', 'Domain belongs to a disposable email provider'],
    score: [0.3, 0.5],
  },
  role: {
    primary: 'valid',
    tag: 'role',
    status: 'risky',
    reason: 'Role-based address',
    labelReasons: ['Mailbox exists', 'Address belongs to a role or team, not a person'],
    score: [0.6, 0.75],
  },
  valid: {
    primary: 'valid',
    status: 'valid',
    reason: 'Mailbox exists and accepts mail',
    labelReasons: ['Mail server accepted the recipient', 'Domain has valid MX records'],
    score: [0.9, 0.99],
  },
  invalid: {
    primary: 'invalid',
    status: 'invalid',
    reason: 'Mailbox does not exist',
    labelReasons: ['Mail server rejected the recipient (550 5.1.1)'],
    score: [0.01, 0.1],
  },
  disabled: {
    primary: 'disabled',
    status: 'invalid',
    reason: 'Mailbox has been disabled',
    labelReasons: ['Mail server reports the account as disabled'],
    score: [0.01, 0.1],
  },
  catch_all: {
    primary: 'catch_all',
    status: 'risky',
    reason: 'Domain accepts all addresses',
    labelReasons: ['Domain accepts mail for any recipient', 'Mailbox existence cannot be confirmed'],
    score: [0.4, 0.6],
  },
  inbox_full: {
    primary: 'inbox_full',
    status: 'risky',
    reason: 'Mailbox is full',
    labelReasons: ['Mail server reports the mailbox is over quota (452 4.2.2)'],
    score: [0.3, 0.5],
  },
  unknown: {
    primary: 'unknown',
    status: 'risky',
    reason: 'Mail server did not give a definite answer',
    labelReasons: ['Mail server timed out or deferred the check', 'Credit refunded'],
    score: [0.2, 0.4],
  },
  not_verified: {
    primary: 'not_verified',
    status: 'risky',
    reason: 'Address could not be verified',
    labelReasons: ['Verification was not possible for this domain', 'Credit refunded'],
    score: [0.2, 0.4],
  },
};

const SAFE_TO_SEND_RATINGS = ['low', 'medium', 'high'] as const;

function pick(hash: number, [min, max]: readonly [number, number]): number {
  return Math.round((min + (((hash >>> 8) % 1000) / 1000) * (max - min)) * 1000) / 1000;
}

/** The full result row for an address, built on demand so stored jobs hold only the addresses. */
export function resultRow(email: string, opts: { checkSmtp?: boolean } = {}): ResultRow {
  const kind = outcomeKind(email);
  const shape = SHAPES[kind === 'slow' ? 'valid' : kind];
  const hash = addressHash(email);
  const at = email.lastIndexOf('@');
  const details: Details = {
    primary_label: shape.primary,
    tags: shape.tag ? [{ label: shape.tag, confidence: pick(hash, [0.8, 0.99]) }] : [],
    label_reasons: [...shape.labelReasons],
    // Informational fields: the spec allows more fields and says they may change.
    domain: at >= 0 ? email.slice(at + 1).toLowerCase() : '',
    smtp_checked: opts.checkSmtp !== false,
  };
  let status: ResultRow['status'] = shape.status;
  if (kind === 'catch_all') {
    const rating = SAFE_TO_SEND_RATINGS[hash % 3]!;
    details.safe_to_send = rating;
    details.safe_to_send_score = pick(
      hash,
      rating === 'high' ? [0.7, 0.9] : rating === 'medium' ? [0.4, 0.7] : [0.1, 0.4],
    );
    details.safe_to_send_reasons = [`Domain engagement history rates it ${rating}`, 'Catch-all domain'];
    // The spec warns the row status may disagree with details: one catch-all row in three says invalid.
    if (hash % 3 === 0) status = 'invalid';
  }
  return {
    email,
    status,
    valid: status === 'valid',
    score: pick(hash, shape.score),
    reason: shape.reason,
    details,
  };
}

export function isRefundable(kind: OutcomeKind): boolean {
  return kind === 'unknown' || kind === 'not_verified';
}

const VERDICT_BY_CATEGORY: Record<Category, keyof Verdicts> = {
  'Spam Trap': 'invalid',
  Disposable: 'disposable',
  Role: 'role_based',
  Valid: 'valid',
  'Catch-All': 'catch_all',
  'Inbox Full': 'risky',
  'Invalid / Disabled / No Mail Server': 'invalid',
  'Unknown / Not Verified (refunded)': 'unknown',
};

/** Each row counts in exactly one verdict, so the verdicts always add up to `processed`. */
export function verdictOf(details: Details): keyof Verdicts {
  return VERDICT_BY_CATEGORY[categoryOf(details).category];
}
