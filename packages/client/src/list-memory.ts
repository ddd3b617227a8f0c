/**
 * What a step remembers about one list between runs, so a replay, a rerun the same day or the next run
 * a day later sends only what was never sent: a list stopped part way (the allowance, paused new jobs,
 * a step's time budget) is continued, never charged twice. Pure and JSON-safe: each platform keeps the
 * memory its own way (Zapier's cache, a workflow's static data, a data store), keyed by its list.
 */
import type { StoppedBy } from './errors';
import { listFingerprint } from './list-key';
import { parseEmailList } from './validation/email';
import type { ListSubmission, SubmitListParams } from './bulk';

export interface ListMemory {
  /**
   * Fingerprints (unique addresses, ignoring case and order) of the lists this memory is about: the list
   * the first run was given, then each run's unsent addresses, so a run given any of them is this list.
   */
  lists: string[];
  /** Every job made for the list so far, oldest first: their rows are the list's results. */
  jobs: { job_id: string; total_emails?: number; created_at?: string }[];
  /** Addresses not sent yet, in list order. */
  unsent: string[];
  /** When `unsent` can go (ISO 8601), as the last stop said. */
  unsentAfter?: string;
  stoppedBy?: StoppedBy;
}

export interface NextSend {
  /** Addresses to send now (to submitList with `sendWhatFits`); empty when there is nothing to send now. */
  send: string[];
  /** Nothing is sent before this time (ISO 8601): the last run's stop said when the rest can go. */
  notBefore?: string;
  /** The list's jobs made by earlier runs. */
  jobs: ListMemory['jobs'];
  /** Addresses earlier runs sent (and were charged for): never sent again. */
  alreadySent: number;
  /** Every address of the list has been sent. */
  done: boolean;
  /** The memory is about this list; false for a list it has not seen (then all of it is sent). */
  remembered: boolean;
}

/**
 * The list's key: its entries as given (split as pasted text is), ignoring case, order and repeats. No
 * syntax scan: the same list always gives the same key, and the client's unsent addresses are clean.
 */
function keyOf(emails: SubmitListParams['emails']): { key: string; given: Set<string> } {
  const given = new Set(parseEmailList(emails).map((e) => e.toLowerCase()));
  return { key: listFingerprint([...given]), given };
}

/**
 * What to send now for `emails`, given the memory a previous run left (or none). A list the memory is
 * not about is sent whole; a remembered one sends only its unsent addresses, and none before the time
 * its last stop named (`now` is the caller's clock, epoch ms).
 */
export function nextSend(
  emails: SubmitListParams['emails'],
  memory: ListMemory | undefined,
  now: number,
): NextSend {
  const { key, given } = keyOf(emails);
  if (!memory || !memory.lists.includes(key)) {
    const send = parseEmailList(emails);
    return { send, jobs: [], alreadySent: 0, done: send.length === 0, remembered: false };
  }
  const alreadySent = memory.jobs.reduce((n, j) => n + (j.total_emails ?? 0), 0);
  const base = { jobs: memory.jobs, alreadySent, remembered: true };
  if (memory.unsent.length === 0) return { ...base, send: [], done: true };
  const after = memory.unsentAfter ? Date.parse(memory.unsentAfter) : Number.NaN;
  if (!Number.isNaN(after) && now < after)
    return { ...base, send: [], notBefore: memory.unsentAfter, done: false };
  // The first list holds every unsent address; an older run's unsent list also holds addresses sent
  // since, so only those still unsent go.
  const send =
    key === memory.lists[0] ? memory.unsent : memory.unsent.filter((e) => given.has(e.toLowerCase()));
  return { ...base, send, done: false };
}

/**
 * The memory after a run: the jobs it made added, its unsent addresses and their time kept. `emails` is
 * what the run was given (the whole list, or the last run's unsent addresses).
 */
export function rememberRun(
  memory: ListMemory | undefined,
  emails: SubmitListParams['emails'],
  run: Pick<ListSubmission, 'jobs' | 'unsent' | 'unsentAfter' | 'stoppedBy'>,
): ListMemory {
  const { key } = keyOf(emails);
  const known = memory?.lists.includes(key) ? memory : undefined;
  const jobs = [
    ...(known ? known.jobs : []),
    ...run.jobs.map(({ job_id, total_emails, created_at }) => ({ job_id, total_emails, created_at })),
  ];
  const rest = keyOf(run.unsent).key;
  const lists = known ? known.lists : [key];
  return {
    lists: lists.includes(rest) ? lists : [...lists, rest],
    jobs,
    unsent: [...run.unsent],
    ...(run.unsentAfter ? { unsentAfter: run.unsentAfter } : {}),
    ...(run.stoppedBy ? { stoppedBy: run.stoppedBy } : {}),
  };
}
