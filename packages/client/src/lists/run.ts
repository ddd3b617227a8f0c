/**
 * One list run, the same on every platform: given a list, the memory (a ListBook) and the clock, it
 * decides what to send, records the submission in doubt before any charge, sends, settles the memory and
 * returns the outcome with the new memory. A platform adapter keeps only where the book is stored (the
 * `store` callback, called before the charge and after it) and its own words for the outcome.
 */
import type {
  PostOptions,
  ListSubmission,
  SubmissionPlan,
  SubmitListOptions,
  SubmitListParams,
} from '../bulk';
import { EvfError, PartialSubmissionError, SubmissionUncertainError, type StoppedBy } from '../errors';
import { rememberRun, type ListMemory, type NextSend } from '../list-memory';
import type { BulkSubmission, JobListItem } from '../types';
import {
  findList,
  knownJobIds,
  LIST_WINDOW_MS,
  openBook,
  putList,
  type BookEntry,
  type ForgetPolicy,
  type InDoubt,
  type ListBook,
} from './book';
import { earlierJobsOfSize, SETTLE_AFTER_MS, settleInDoubt, type JobReader } from './settle';

/** What the run needs of the client (EmailVerificationClient has it all). */
export interface ListRunClient extends JobReader {
  planList(params: SubmitListParams, options?: SubmitListOptions): Promise<SubmissionPlan>;
  submitPlan(plan: SubmissionPlan, opts?: PostOptions): Promise<ListSubmission>;
}

export interface ListRunInput extends ForgetPolicy {
  /** The list and the fields every job carries. */
  list: SubmitListParams;
  /** Planning options (job size, allowance, maxJobs, allowNothingToSend); the run always sends what fits. */
  options?: Omit<SubmitListOptions, 'sendWhatFits'>;
  /** The book as the platform stored it (anything; undefined the first time). */
  book?: unknown;
  /**
   * Reads the store again. Given where runs can share a store at once (one process, one store), the run
   * reads it once more just before it writes its doubt, and leaves the list to a run that got there first.
   */
  load?: () => unknown;
  /** The caller's clock, epoch ms. */
  now: number;
  /**
   * Stores the book. Called with the submission in doubt before the first request that can charge, and
   * with the settled book after it (also when the run then throws): a run that dies part way leaves a
   * book that the next run settles by reading the service.
   */
  store(book: ListBook): void | Promise<void>;
  /**
   * False where the platform will not keep the book (an n8n manual execution): before charging, the run
   * looks for a job of this list's size created within the window, and sends only with `sendAgain`.
   */
  memoryKept?: boolean;
  /**
   * Ask the service before charging a list the book does not know (default: where the memory is not
   * kept). Also for a book that may be older than the run it repeats (an n8n execution retried with its
   * original workflow reads the static data as it was when the failed execution started).
   */
  checkService?: boolean;
  /**
   * The list's addresses were answered and are due to be verified again (Unknown answers whose time has
   * come): a finished entry for this list whose run finished before this time (ISO 8601) is forgotten,
   * so the list is sent again. Once: a replay after that run finds the newer entry and sends nothing.
   */
  againSince?: string;
  /** Send even though the service shows a job of the same size within the window (with checkService). */
  sendAgain?: boolean;
  /**
   * Throw the allowance's 429 or a pause's 503 (PartialSubmissionError once a job was made) instead of
   * returning the unsent part: for a user who chose to fail. The book is stored first either way.
   */
  failOnStop?: boolean;
  /**
   * Last changes to the plan before it is sent (e.g. a webhook_url that depends on the job count, or
   * fewer addresses when the balance covers only part of the list). Addresses it takes out of the plan
   * stay unsent in the memory, for a later run. It may throw: nothing has been charged or written yet.
   */
  beforeSend?: (plan: SubmissionPlan) => Promise<SubmissionPlan>;
}

/** Why a run sent nothing. */
export type HeldReason =
  /** Every address of the list was sent by earlier runs. */
  | 'finished'
  /** The rest can go only after `notBefore` (the allowance's reset, the end of a pause). */
  | 'not_yet'
  /** An earlier submission's answer was lost, and the service does not show it yet: wait until `notBefore`. */
  | 'in_doubt'
  /** No memory here, and the service shows a job of this list's size within the window. */
  | 'earlier_on_service'
  /** Another run sharing the store is sending this list now. */
  | 'busy';

export type ListRunOutcome =
  | {
      kind: 'sent';
      submission: ListSubmission;
      /** The plan as sent (for its pre-flight report). */
      plan: SubmissionPlan;
    }
  | { kind: 'held'; reason: HeldReason; notBefore?: string; matchingJobs?: JobListItem[] }
  /** Pre-flight left nothing to send (allowNothingToSend): nothing sent or charged. */
  | { kind: 'nothing_to_send'; plan: SubmissionPlan };

export interface ListRunResult {
  outcome: ListRunOutcome;
  book: ListBook;
  /** This list's memory after the run (undefined for a list that was never sent). */
  memory: ListMemory | undefined;
  /** Jobs earlier runs made for this list, oldest first. */
  earlierJobs: ListMemory['jobs'];
  /** Addresses earlier runs sent (and were charged for). */
  alreadySent: number;
  /** Jobs found on the service for a submission whose answer was lost, now taken as this list's. */
  recovered: ListMemory['jobs'];
  /** Addresses still not sent, and when they can go. */
  unsent: string[];
  unsentAfter?: string;
  stoppedBy?: StoppedBy;
  /** The run could not keep its memory: what it charged is not remembered after it. */
  memoryKept: boolean;
  /** What happened, in words for the user. */
  note: string;
}

function jobOf(job: {
  job_id: string;
  total_emails?: number;
  created_at?: string;
}): ListMemory['jobs'][number] {
  return { job_id: job.job_id, total_emails: job.total_emails, created_at: job.created_at };
}

/** The entry with the jobs the service showed for its doubt added, and the addresses never charged back in `unsent`. */
function settledEntry(entry: BookEntry, jobs: JobListItem[], unsentAgain: string[]): BookEntry {
  const { inDoubt: _settled, ...rest } = entry;
  const memory: ListMemory = {
    ...entry.memory,
    jobs: [...entry.memory.jobs, ...jobs.map(jobOf)],
    // The addresses in doubt went first; what was never sent after them stays in order.
    unsent: [...unsentAgain, ...entry.memory.unsent],
  };
  return withFinish({ ...rest, memory }, entry.lastSeen);
}

function withFinish(entry: BookEntry, at: string): BookEntry {
  const finished = !entry.inDoubt && entry.memory.unsent.length === 0;
  if (!finished) {
    const { finishedAt: _no, ...open } = entry;
    return open;
  }
  return { ...entry, finishedAt: entry.finishedAt ?? at };
}

function sentCount(memory: ListMemory | undefined): number {
  return (memory?.jobs ?? []).reduce((n, j) => n + (j.total_emails ?? 0), 0);
}

/**
 * Runs a list once. Throws only what a user must act on (an input error, a key refused, no credits, a
 * stop that is neither the allowance nor a pause), after storing the book with whatever was charged.
 */
export async function runList(client: ListRunClient, input: ListRunInput): Promise<ListRunResult> {
  const { now } = input;
  const iso = new Date(now).toISOString();
  const memoryKept = input.memoryKept !== false;
  const opts = { signal: input.options?.signal, deadline: input.options?.deadline };
  const againSince = input.againSince ? Date.parse(input.againSince) : Number.NaN;
  /** The book as stored, without a finished entry of this list that is due again (againSince). */
  const open = (stored: unknown): ListBook => {
    const opened = openBook(stored, now, input);
    if (Number.isNaN(againSince)) return opened;
    const there = findList(opened, input.list.emails, now)?.entry;
    const due = there && !there.inDoubt && there.finishedAt && Date.parse(there.finishedAt) < againSince;
    return due ? { v: 1, lists: opened.lists.filter((e) => e !== there) } : opened;
  };
  let book = open(input.load ? input.load() : input.book);
  let found = findList(book, input.list.emails, now);
  const recovered: ListMemory['jobs'] = [];

  const same = (a: BookEntry | undefined, b: BookEntry | undefined) =>
    JSON.stringify([a?.memory ?? null, a?.inDoubt ?? null]) ===
    JSON.stringify([b?.memory ?? null, b?.inDoubt ?? null]);
  /**
   * Puts `to` in place of `from` and stores the book. With a shared store it reads the store first and
   * refuses (false) when another run changed this list since `from` was read: the read, the check and the
   * store call run with no await between them, so two runs of one process cannot both pass.
   */
  const claim = async (from: BookEntry | undefined, to: BookEntry): Promise<boolean> => {
    if (input.load) {
      book = open(input.load());
      const there = findList(book, input.list.emails, now)?.entry;
      if (!same(there, from)) return false;
      from = there;
    }
    book = putList(book, to, from);
    await input.store(book);
    return true;
  };
  const busy = (next: NextSend | undefined): ListRunResult => {
    const until = new Date(now + SETTLE_AFTER_MS).toISOString();
    const there = findList(book, input.list.emails, now)?.entry;
    return {
      ...base(book, there, next, memoryKept, recovered),
      unsentAfter: until,
      outcome: { kind: 'held', reason: 'busy', notBefore: until },
      note: `Nothing sent or charged: another run is sending this list now; run again after ${until}.`,
    };
  };

  // 1. A submission in doubt is settled by reading the service before anything else is sent.
  if (found?.entry.inDoubt) {
    const doubt = found.entry.inDoubt;
    const settlement = await settleInDoubt(client, doubt, knownJobIds(book), now, opts);
    if (settlement.state === 'in_doubt') {
      const entry = { ...found.entry, lastSeen: iso };
      if (!(await claim(found.entry, entry))) return busy(found.next);
      return held(book, entry, found.next, 'in_doubt', settlement.until, memoryKept, recovered, input);
    }
    const entry = settledEntry(found.entry, settlement.jobs, settlement.unsentEmails);
    if (!(await claim(found.entry, entry))) return busy(found.next);
    recovered.push(...settlement.jobs.map(jobOf));
    found = findList(book, input.list.emails, now);
  }

  const previous = found?.entry;
  const next: NextSend | undefined = found?.next;
  if (previous && next) {
    const entry = { ...previous, lastSeen: iso };
    book = putList(book, entry, previous);
    if (next.send.length === 0) {
      await input.store(book);
      return held(
        book,
        entry,
        next,
        next.done ? 'finished' : 'not_yet',
        next.notBefore,
        memoryKept,
        recovered,
        input,
      );
    }
  }

  // 2. Plan what goes now (only the unsent part of a remembered list).
  const sending = next ? next.send : input.list.emails;
  let plan = await client.planList(
    { ...input.list, emails: sending },
    { ...input.options, sendWhatFits: !input.failOnStop },
  );
  if (plan.chunks.length === 0) {
    await input.store(book);
    return {
      ...base(book, undefined, next, memoryKept, recovered),
      outcome: { kind: 'nothing_to_send', plan },
      note: 'Nothing sent or charged: no valid address to send.',
    };
  }

  // 3. Where nothing will be remembered, the service is asked first: a job of this size within the window
  //    may be this very list, sent by an earlier run that kept no memory either.
  if ((input.checkService ?? !memoryKept) && !previous && !input.sendAgain) {
    const size = plan.chunks[0]!.length;
    const matching = await earlierJobsOfSize(client, size, now, LIST_WINDOW_MS, opts);
    if (matching.length) {
      await input.store(book);
      return {
        ...base(book, undefined, next, memoryKept, recovered),
        // Not known to be sent: held until the user says to send it again.
        unsent: plan.chunks.flat(),
        outcome: { kind: 'held', reason: 'earlier_on_service', matchingJobs: matching },
        note: `Nothing sent or charged: ${memoryKept ? 'this run cannot be sure its memory is current' : 'this run keeps no memory'}, and the service shows ${matching.length === 1 ? 'a job' : `${matching.length} jobs`} of the same size (${size} addresses) made within the last ${LIST_WINDOW_MS / 86_400_000} days (${matching.map((j) => `${j.job_id} at ${j.created_at}`).join(', ')}), which may be this list. Choose to send it again to verify it anyway.`,
      };
    }
  }
  let heldBack: string[] = [];
  if (input.beforeSend) {
    const planned = plan.chunks.flat();
    plan = await input.beforeSend(plan);
    const kept = new Set(plan.chunks.flat());
    heldBack = planned.filter((email) => !kept.has(email));
    if (plan.chunks.length === 0) {
      await input.store(book);
      return {
        ...base(book, undefined, next, memoryKept, recovered),
        unsent: planned,
        outcome: { kind: 'nothing_to_send', plan },
        note: 'Nothing sent or charged: the step before sending took every address out.',
      };
    }
  }

  // 4. The doubt is written before the first request that can charge; from the read below to the write
  //    nothing awaits, so two runs sharing a store cannot both pass it.
  const doubt: InDoubt = { sentAt: iso, emails: plan.chunks.flat(), sizes: plan.chunks.map((c) => c.length) };
  const start = previous?.memory ?? rememberRun(undefined, input.list.emails, { jobs: [], unsent: [] });
  const pending: BookEntry = {
    // The addresses in doubt are held in the doubt alone, so settling it puts each back once at most.
    memory: { lists: start.lists.slice(0, previous ? undefined : 1), jobs: start.jobs, unsent: [] },
    inDoubt: doubt,
    lastSeen: iso,
  };
  if (!(await claim(previous, pending))) return busy(next);

  // 5. Send, then settle the memory with what the service answered.
  const settle = async (
    run: Pick<ListSubmission, 'jobs' | 'unsent' | 'unsentAfter' | 'stoppedBy'>,
    stillInDoubt?: InDoubt,
  ): Promise<BookEntry> => {
    const memory = rememberRun(previous?.memory, input.list.emails, run);
    let entry: BookEntry = withFinish(
      { memory, lastSeen: iso, ...(stillInDoubt ? { inDoubt: stillInDoubt } : {}) },
      iso,
    );
    book = putList(book, entry, pending);
    await input.store(book);
    if (stillInDoubt) {
      // Read the service at once: a lost answer is usually a job already.
      const settlement = await settleInDoubt(client, stillInDoubt, knownJobIds(book), now, opts).catch(
        () => undefined,
      );
      if (settlement?.state === 'settled') {
        recovered.push(...settlement.jobs.map(jobOf));
        const after = settledEntry(entry, settlement.jobs, settlement.unsentEmails);
        book = putList(book, after, entry);
        entry = after;
        await input.store(book);
      }
    }
    return entry;
  };

  let submission: ListSubmission;
  try {
    submission = await client.submitPlan(plan, { ...opts, sendWhatFits: !input.failOnStop });
  } catch (error) {
    if (error instanceof PartialSubmissionError) {
      const uncertain = error.uncertain
        ? {
            sentAt: error.uncertain.error.sentAt,
            emails: error.uncertain.emails,
            sizes: [error.uncertain.error.addressCount],
          }
        : undefined;
      const entry = await settle(
        {
          jobs: error.accepted as BulkSubmission[],
          unsent: [...error.unsent, ...heldBack],
          unsentAfter: error.retryAt,
          stoppedBy: error.stoppedBy,
        },
        uncertain,
      );
      if (uncertain)
        return afterDoubt(
          book,
          entry,
          previous,
          next,
          plan,
          memoryKept,
          recovered,
          error.accepted as BulkSubmission[],
        );
      throw error;
    }
    if (error instanceof SubmissionUncertainError) {
      const uncertain = {
        sentAt: error.sentAt,
        emails: plan.chunks.flat(),
        sizes: plan.chunks.map((c) => c.length),
      };
      const entry = await settle({ jobs: [], unsent: heldBack }, uncertain);
      return afterDoubt(book, entry, previous, next, plan, memoryKept, recovered, []);
    }
    // Any other answer from the service is a clear refusal: nothing of this plan was charged.
    if (error instanceof EvfError) {
      if (previous) book = putList(book, { ...previous, lastSeen: iso }, pending);
      else book = { v: 1, lists: book.lists.filter((e) => e !== pending) };
      await input.store(book);
    }
    // Anything else (a bug, the platform stopping the run) leaves the doubt for the next run to settle.
    throw error;
  }
  if (heldBack.length) submission = { ...submission, unsent: [...submission.unsent, ...heldBack] };
  const entry = await settle(submission);
  const result = base(book, entry, next, memoryKept, recovered);
  const charged = submission.jobs.reduce((n, j) => n + (j.total_emails ?? 0), 0);
  const lines = [
    submission.note ?? `Sent ${charged} addresses in ${submission.jobs.length} job(s).`,
    next?.remembered ? `Earlier runs had sent ${next.alreadySent} of this list.` : '',
    memoryKept
      ? ''
      : `This run keeps no memory: running it again could charge these ${charged} addresses again, unless the service shows this job then.`,
  ];
  return { ...result, outcome: { kind: 'sent', submission, plan }, note: lines.filter(Boolean).join(' ') };
}

function base(
  book: ListBook,
  entry: BookEntry | undefined,
  next: NextSend | undefined,
  memoryKept: boolean,
  recovered: ListMemory['jobs'],
): Omit<ListRunResult, 'outcome' | 'note'> {
  const memory = entry?.memory;
  return {
    book,
    memory,
    earlierJobs: next?.jobs ?? [],
    alreadySent: next?.alreadySent ?? 0,
    recovered,
    unsent: memory ? [...memory.unsent, ...(entry?.inDoubt?.emails ?? [])] : [],
    ...(memory?.unsentAfter ? { unsentAfter: memory.unsentAfter } : {}),
    ...(memory?.stoppedBy ? { stoppedBy: memory.stoppedBy } : {}),
    memoryKept,
  };
}

function held(
  book: ListBook,
  entry: BookEntry,
  next: NextSend,
  reason: HeldReason,
  notBefore: string | undefined,
  memoryKept: boolean,
  recovered: ListMemory['jobs'],
  policy: ForgetPolicy,
): ListRunResult {
  const jobs = entry.memory.jobs.map((j) => j.job_id).join(', ') || 'none yet';
  const sent = sentCount(entry.memory);
  // How long the finished list stays remembered, said where it decides what a run does.
  const until =
    policy.keepFinishedMs !== undefined && entry.finishedAt
      ? ` It is forgotten after ${new Date(Date.parse(entry.finishedAt) + policy.keepFinishedMs).toISOString()} (the period set), then sent again.`
      : ` It stays remembered while this list keeps being given, and is forgotten ${LIST_WINDOW_MS / 86_400_000} days after the last run given it.`;
  const note =
    reason === 'finished'
      ? `Nothing sent or charged: earlier runs sent every address of this list (${sent}, jobs ${jobs}).${until}`
      : reason === 'in_doubt'
        ? `Nothing sent or charged: an earlier submission of ${entry.inDoubt?.emails.length ?? 0} addresses (sent ${entry.inDoubt?.sentAt}) got no clear answer and the service does not show it yet; run again after ${notBefore} to settle it.`
        : `Nothing sent or charged: earlier runs sent ${sent} addresses of this list (jobs ${jobs}); the other ${entry.memory.unsent.length} can be sent after ${notBefore}.`;
  const result = base(book, entry, next, memoryKept, recovered);
  return {
    ...result,
    ...(reason === 'in_doubt' && notBefore ? { unsentAfter: notBefore } : {}),
    outcome: { kind: 'held', reason, ...(notBefore ? { notBefore } : {}) },
    note,
  };
}

/** A run whose (last) submission got no clear answer: the jobs the service showed count as sent. */
function afterDoubt(
  book: ListBook,
  entry: BookEntry,
  previous: BookEntry | undefined,
  next: NextSend | undefined,
  plan: SubmissionPlan,
  memoryKept: boolean,
  recovered: ListMemory['jobs'],
  accepted: BulkSubmission[],
): ListRunResult {
  const result = base(book, entry, next, memoryKept, recovered);
  const jobs = [...accepted.map(jobOf), ...recovered];
  const sent = sentCount({ lists: [], unsent: [], jobs });
  const submission: ListSubmission = {
    jobs: jobs.map(
      (j) => ({ ...j, total_emails: j.total_emails ?? 0, status: 'queued' }) as unknown as BulkSubmission,
    ),
    preflight: plan.preflight,
    rejectedByService: [],
    creditsUsed: sent,
    creditsRemaining: undefined,
    unsent: result.unsent,
    ...(entry.memory.unsentAfter ? { unsentAfter: entry.memory.unsentAfter } : {}),
    ...(entry.memory.stoppedBy ? { stoppedBy: entry.memory.stoppedBy } : {}),
  };
  const doubt = entry.inDoubt;
  const note = doubt
    ? `An answer was lost on the way back: ${doubt.emails.length} addresses sent at ${doubt.sentAt} may be a job already, and the service does not show one yet. They are not sent again before ${new Date(Date.parse(doubt.sentAt) + SETTLE_AFTER_MS).toISOString()}; run again then to settle them.${sent ? ` Sent and charged: ${sent} addresses.` : ''}`
    : `An answer was lost on the way back; the service shows the job${recovered.length === 1 ? '' : 's'} (${recovered.map((j) => j.job_id).join(', ')}), taken as sent: nothing is sent twice.`;
  void previous;
  return {
    ...result,
    ...(doubt ? { unsentAfter: new Date(Date.parse(doubt.sentAt) + SETTLE_AFTER_MS).toISOString() } : {}),
    outcome: { kind: 'sent', submission: { ...submission, note }, plan },
    note,
  };
}
