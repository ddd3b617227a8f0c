/**
 * The memory a list run keeps between runs, as plain JSON a platform can store anywhere (Zapier's cache,
 * n8n's static data, a Make data store): per list its fingerprints, job ids, sizes, unsent addresses and
 * times, and at most one submission in doubt. No address is kept beyond what resuming needs: the unsent
 * ones, and those of a submission whose outcome is not known yet.
 */
import { nextSend, type ListMemory, type NextSend } from '../list-memory';
import type { SubmitListParams } from '../bulk';

/** The one window (30 days): a list given again within it is never charged again; see the README. */
export const LIST_WINDOW_MS = 30 * 24 * 60 * 60_000;
/** A book holds a few lists at a time: platforms store it with the workflow or the step. */
export const MAX_LISTS = 20;

/**
 * A submission whose answer was lost (a timeout, a 5xx after the request may have arrived, a dropped
 * connection, or the run itself stopped after the request left). Written before the request is sent.
 */
export interface InDoubt {
  /** When the request (the first of the plan, for a whole plan) left, ISO 8601. */
  sentAt: string;
  /** The addresses that may have been charged, in order: resent only once the service shows no job. */
  emails: string[];
  /** The job sizes the addresses went in, in order: one job's size, or every job of a plan. */
  sizes: number[];
}

export interface BookEntry {
  memory: ListMemory;
  inDoubt?: InDoubt;
  /** The last time a run was given this list (ISO 8601): the window runs from here. */
  lastSeen: string;
  /** When every address had been sent and nothing was in doubt (ISO 8601). */
  finishedAt?: string;
}

export interface ListBook {
  v: 1;
  lists: BookEntry[];
}

export interface ForgetPolicy {
  /**
   * A finished list is forgotten this long after it finished, even when it keeps being given (a user who
   * verifies the same list again every month). Absent: it stays remembered while it keeps being given,
   * and goes one window after the last run that was given it.
   */
  keepFinishedMs?: number;
}

function isEntry(value: unknown): value is BookEntry {
  const e = value as BookEntry | null;
  return (
    !!e &&
    typeof e === 'object' &&
    !!e.memory &&
    Array.isArray(e.memory.lists) &&
    Array.isArray(e.memory.jobs) &&
    Array.isArray(e.memory.unsent) &&
    typeof e.lastSeen === 'string'
  );
}

/** The book read from storage (anything: it may be missing, old or hand-edited), with expired lists gone. */
export function openBook(stored: unknown, now: number, policy: ForgetPolicy = {}): ListBook {
  const raw = (stored as Partial<ListBook> | null)?.lists;
  const lists = Array.isArray(raw) ? raw.filter(isEntry) : [];
  return { v: 1, lists: lists.filter((e) => !expired(e, now, policy)) };
}

function expired(entry: BookEntry, now: number, policy: ForgetPolicy): boolean {
  // A submission in doubt is never dropped: forgetting it is how a list gets charged twice.
  if (entry.inDoubt) return false;
  if (entry.finishedAt && policy.keepFinishedMs !== undefined) {
    if (now - Date.parse(entry.finishedAt) > policy.keepFinishedMs) return true;
  }
  return now - Date.parse(entry.lastSeen) > LIST_WINDOW_MS;
}

/** The entry about this list, and what its memory says to send now. */
export function findList(
  book: ListBook,
  emails: SubmitListParams['emails'],
  now: number,
): { entry: BookEntry; next: NextSend } | undefined {
  for (const entry of book.lists) {
    const next = nextSend(emails, entry.memory, now);
    if (next.remembered) return { entry, next };
  }
  return undefined;
}

/** The book with `entry` first (newest), `replacing` gone, and at most MAX_LISTS lists. */
export function putList(book: ListBook, entry: BookEntry, replacing?: BookEntry): ListBook {
  const others = book.lists.filter((e) => e !== replacing && e !== entry);
  // Lists in doubt are kept over the limit's cut: they are the ones a rerun must settle.
  const kept = [entry, ...others];
  const doubt = kept.filter((e) => e.inDoubt);
  const rest = kept.filter((e) => !e.inDoubt && e !== entry);
  return {
    v: 1,
    lists: [entry, ...doubt.filter((e) => e !== entry), ...rest].slice(
      0,
      Math.max(MAX_LISTS, doubt.length + 1),
    ),
  };
}

/** Every job id the book knows, so a job of another list is never taken for this list's. */
export function knownJobIds(book: ListBook): Set<string> {
  return new Set(book.lists.flatMap((e) => e.memory.jobs.map((j) => j.job_id)));
}
