/**
 * Low credit, seen before a list is refused. Two pure rules a platform uses with its own storage:
 * - `creditBelow`: a polling trigger that fires once per drop below a threshold. The memory is when the
 *   balance was first seen below (`{ since }`); the item's id is that moment, so a platform that dedupes
 *   by id fires once per drop, and a later drop (after a top-up or refunds lifted the balance) has a new
 *   id. A lost memory while the balance is low costs one extra alert, never a missed one.
 * - `coverList`: before a bulk step charges anything, how much of a list the balance covers, and words
 *   that say how many credits are missing. Reading the balance (GET /v1/credits) is free.
 */
import { InputError } from './errors';

export interface BelowMemory {
  since: string | null;
}

export interface BelowItem {
  /** `below:<threshold>:<since>`: the same for every poll of one drop. */
  id: string;
  threshold: number;
  below_since: string;
  /** Threshold minus the credits left. */
  credits_short: number;
}

/** The threshold a user typed, as a whole number of credits, 1 or more. */
export function creditThreshold(value: unknown): number {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  const n = text === '' ? NaN : Number(text.trim().replace(/[,_\s]/g, ''));
  if (Number.isSafeInteger(n) && n >= 1) return n;
  throw new InputError(
    'threshold',
    'range',
    'Threshold must be a whole number of credits, 1 or more (e.g. 1000: it fires when fewer than 1,000 credits are left).',
  );
}

/** One poll: the item to emit (none when the balance is at or above the threshold) and the memory to keep. */
export function creditBelow(
  memory: BelowMemory | null | undefined,
  credits: number,
  threshold: number,
  now: number,
): { item: BelowItem | null; memory: BelowMemory } {
  const before = typeof memory?.since === 'string' ? memory.since : null;
  if (credits >= threshold) return { item: null, memory: { since: null } };
  const since = before ?? new Date(now).toISOString();
  return {
    item: {
      id: `below:${threshold}:${since}`,
      threshold,
      below_since: since,
      credits_short: threshold - credits,
    },
    memory: { since },
  };
}

/** What to do when the balance cannot cover the whole list. */
export type ShortCreditChoice = 'sendWhatFits' | 'sendNothing';

export interface ListCover {
  /** The balance covers the whole list. */
  covered: boolean;
  /** How many addresses to send now (the list's size, what the balance covers, or 0). */
  send: number;
  /** Credits missing for the whole list (0 when covered). */
  missing: number;
  /** When not covered: words for the user, before anything is charged. */
  message: string | null;
}

const n = (x: number): string => x.toLocaleString('en-US');

/** How much of a list of `size` addresses (1 credit each) a balance of `credits` covers. */
export function coverList(size: number, credits: number, choice: ShortCreditChoice): ListCover {
  const have = Math.max(0, Math.floor(credits));
  if (have >= size) return { covered: true, send: size, missing: 0, message: null };
  const missing = size - have;
  const what =
    `The list has ${n(size)} address${size === 1 ? '' : 'es'} and ${n(have)} credit${have === 1 ? ' is' : 's are'} left: ` +
    `${n(missing)} credit${missing === 1 ? ' is' : 's are'} missing.`;
  if (choice === 'sendWhatFits' && have > 0) {
    return {
      covered: false,
      send: have,
      missing,
      message: `${what} Sending the first ${n(have)}; top up to send the other ${n(missing)}.`,
    };
  }
  return { covered: false, send: 0, missing, message: `${what} Nothing was sent and nothing was charged.` };
}
