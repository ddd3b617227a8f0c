/**
 * When an answer is tried again. The spec: "An address that came back unknown is re-verified later, not
 * guessed." An Unknown or Not Verified answer is open again after a stated delay (6 hours after the first
 * answer, then 24 hours after the second), at most as many more times as there are delays; after that
 * the row stays Unknown, with a reason that says how many times it was tried. A definite answer is never
 * open again. Pure: no clock but the `now` it is given, and the memory is plain JSON a platform keeps
 * beside its list memory (n8n's static data, Zapier's cache, a Make data store).
 */

const HOUR = 3600_000;

/** The delays before each further try, in order: their number is the cap on further tries. */
export const VERIFY_AGAIN_DELAYS_MS: readonly number[] = [6 * HOUR, 24 * HOUR];

/** The primary labels that are not an answer about the mailbox, and so may be asked again. */
const OPEN_LABELS = new Set(['unknown', 'not_verified']);

/**
 * An answer as the rule reads it: a primary label ('unknown', 'not_verified', 'valid', ...) or a result
 * row, whose `details.primary_label` says it (its `status` is valid, invalid or risky: an Unknown is risky).
 */
function labelOf(answer: unknown): string {
  if (typeof answer === 'string') return answer.trim().toLowerCase();
  const label = (answer as { details?: { primary_label?: unknown } } | null)?.details?.primary_label;
  return typeof label === 'string' ? label.trim().toLowerCase() : '';
}

/** Whether an answer (a primary label, or a result row) may be tried again: Unknown, Not Verified. */
export function mayVerifyAgain(answer: unknown): boolean {
  return OPEN_LABELS.has(labelOf(answer));
}

/** What is remembered per address: how many answers it has had, and when the last came. */
export interface VerifyAgainEntry {
  /** Answers so far (1 after the first verification). */
  attempts: number;
  /** When the last answer came, ISO 8601. */
  answeredAt: string;
  /** The last answer's primary label (unknown or not_verified). */
  status: string;
}

/** Per address (lower-cased), the entries of the addresses whose answer was Unknown or Not Verified. */
export interface VerifyAgainMemory {
  v: 1;
  emails: Record<string, VerifyAgainEntry>;
}

/** The fields every per-row output and result row carries. */
export interface VerifyAgainFields {
  /** When the row may be sent again (ISO 8601); null for a definite answer or once the cap is reached. */
  verify_again_after: string | null;
  /** How many times the address has been verified. */
  verify_attempts: number;
  /** Why no further try comes, once the cap is reached (e.g. "Unknown after 3 tries: not tried again"). */
  verify_again_reason: string | null;
}

export interface VerifyAgainPolicy {
  /** The delays before each further try; default VERIFY_AGAIN_DELAYS_MS (6 hours, then 24). */
  delaysMs?: readonly number[];
}

const keyOf = (email: string): string => email.trim().toLowerCase();

function delaysOf(policy: VerifyAgainPolicy): readonly number[] {
  const d = policy.delaysMs ?? VERIFY_AGAIN_DELAYS_MS;
  return d.filter((ms) => Number.isFinite(ms) && ms >= 0);
}

/** The memory read from storage (anything: missing, old or hand-edited). */
export function openVerifyAgain(stored: unknown): VerifyAgainMemory {
  const raw = (stored as Partial<VerifyAgainMemory> | null)?.emails;
  const emails: Record<string, VerifyAgainEntry> = {};
  if (raw && typeof raw === 'object') {
    for (const [email, e] of Object.entries(raw)) {
      if (
        e &&
        Number.isSafeInteger(e.attempts) &&
        e.attempts >= 1 &&
        typeof e.answeredAt === 'string' &&
        !Number.isNaN(Date.parse(e.answeredAt)) &&
        typeof e.status === 'string'
      ) {
        emails[email] = { attempts: e.attempts, answeredAt: e.answeredAt, status: e.status };
      }
    }
  }
  return { v: 1, emails };
}

/** The fields for a row, from its answer's status and what the memory holds for it. */
export function verifyAgainFields(
  entry: VerifyAgainEntry | undefined,
  status: unknown,
  policy: VerifyAgainPolicy = {},
): VerifyAgainFields {
  const attempts = entry?.attempts ?? 1;
  if (!mayVerifyAgain(status)) {
    return { verify_again_after: null, verify_attempts: attempts, verify_again_reason: null };
  }
  const delays = delaysOf(policy);
  const delay = delays[attempts - 1];
  const answeredAt = entry ? Date.parse(entry.answeredAt) : NaN;
  if (delay === undefined) {
    const times = attempts === 1 ? 'once' : `${attempts} times`;
    return {
      verify_again_after: null,
      verify_attempts: attempts,
      verify_again_reason: `Unknown after being verified ${times}: not tried again.`,
    };
  }
  return {
    verify_again_after: Number.isNaN(answeredAt) ? null : new Date(answeredAt + delay).toISOString(),
    verify_attempts: attempts,
    verify_again_reason: null,
  };
}

/**
 * The memory after answers came: each Unknown or Not Verified answer counts one more try; a definite
 * answer is forgotten (it is never open again). An address the memory holds but not among `answers`
 * keeps its count.
 */
export function recordAnswers(
  memory: VerifyAgainMemory,
  answers: ReadonlyArray<{ email: string; status: unknown }>,
  now: number,
): VerifyAgainMemory {
  const emails = { ...memory.emails };
  const at = new Date(now).toISOString();
  for (const { email, status } of answers) {
    const key = keyOf(email);
    if (!mayVerifyAgain(status)) {
      delete emails[key];
      continue;
    }
    const before = emails[key];
    emails[key] = {
      attempts: (before?.attempts ?? 0) + 1,
      answeredAt: at,
      status: labelOf(status),
    };
  }
  return { v: 1, emails };
}

/** The entry for an address, if its last answer was Unknown or Not Verified. */
export function entryFor(memory: VerifyAgainMemory, email: string): VerifyAgainEntry | undefined {
  return memory.emails[keyOf(email)];
}

/**
 * Whether a row already answered is open again now: its answer is Unknown or Not Verified, its time has
 * come, and the cap is not reached. A row the memory does not know is open again only if
 * `answeredAt` (when the row's answer was written) says its first delay has passed.
 */
export function isDueAgain(
  memory: VerifyAgainMemory,
  email: string,
  status: unknown,
  now: number,
  policy: VerifyAgainPolicy = {},
  answeredAt?: string,
): boolean {
  if (!mayVerifyAgain(status)) return false;
  const known = entryFor(memory, email);
  const entry =
    known ??
    (answeredAt && !Number.isNaN(Date.parse(answeredAt))
      ? { attempts: 1, answeredAt, status: labelOf(status) }
      : undefined);
  if (!entry) return false;
  const after = verifyAgainFields(entry, status, policy).verify_again_after;
  return after !== null && Date.parse(after) <= now;
}

/** Addresses due again, and the earliest time another comes due (null: none is waiting). */
export function dueAgain(
  memory: VerifyAgainMemory,
  now: number,
  policy: VerifyAgainPolicy = {},
): { due: string[]; nextAt: string | null } {
  const due: string[] = [];
  let next = Infinity;
  for (const [email, entry] of Object.entries(memory.emails)) {
    const after = verifyAgainFields(entry, entry.status, policy).verify_again_after;
    if (after === null) continue;
    const t = Date.parse(after);
    if (t <= now) due.push(email);
    else next = Math.min(next, t);
  }
  return { due, nextAt: next === Infinity ? null : new Date(next).toISOString() };
}

/**
 * For platforms that keep the count in the row itself (a sheet's columns): the fields for an answer that
 * just came, from the row's earlier `verify_attempts` cell (empty for a row answered the first time).
 */
export function answeredRowFields(
  earlierAttempts: unknown,
  status: unknown,
  now: number,
  policy: VerifyAgainPolicy = {},
): VerifyAgainFields {
  const before = Number(earlierAttempts);
  const attempts = (Number.isSafeInteger(before) && before > 0 ? before : 0) + 1;
  const entry = { attempts, answeredAt: new Date(now).toISOString(), status: labelOf(status) };
  return verifyAgainFields(entry, status, policy);
}

/** Whether a row's `verify_again_after` cell names a time that has come (empty: never). */
export function isRowDueAgain(row: { verify_again_after?: unknown }, now: number): boolean {
  const cell = row.verify_again_after;
  if (typeof cell !== 'string' || cell.trim() === '') return false;
  const at = Date.parse(cell);
  return !Number.isNaN(at) && at <= now;
}
