/**
 * A whole sheet in one step: a CSV, TSV or XLSX file in, the same rows back in a results file with
 * Category, Group, Safe to Send, Reason and Verification beside them. One task however many rows, where
 * a step per row costs a task per row. Results leave the step as a file (z.stashFile), not as line
 * items, so 50,000 rows stay far inside Zapier's output limits.
 *
 * Running the step again (a replay, or a rerun after a job failed part way) never submits an address
 * twice: the jobs made for a list are remembered per connection (z.cache, keyed by the list and its
 * name), their rows are read back, and only the addresses still without an answer are submitted.
 */
import {
  assertSomethingToSend,
  checkCompletionMessage,
  countByGroup,
  InputError,
  isJobStopped,
  listFingerprint,
  PartialSubmissionError,
  preflightEmails,
  SubmissionUncertainError,
  type Job,
  type JobsRows as RowsRead,
} from '@evf/client';
import { readTable, writeDelimited, type TableList } from '@evf/tables';
import { createHash } from 'node:crypto';
import { defineCreate, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor, webhookSecrets } from '../client';
import { stepDeadline } from '../budget';
import { REQUEST_TIMEOUT_MS } from '../config';
import { mapErrors } from '../errors';
import { optionalString } from '../fields/coerce';
import { listInputFields } from '../fields/inputs';
import { jobOptionsFromInput, type ListInputData } from '../fields/list-input';
import { field, groupCountOutputFields } from '../fields/outputs';
import { verifyFileSample } from '../samples';
import { readableTime, readableTimeAfter } from '../shapes';
import {
  downloadTableFile,
  HEADER_ROW_FIELD,
  readTableFile,
  writeResultsFile,
  type TableFile,
} from '../table-file';

type FileInput = Omit<ListInputData, 'emails' | 'emails_text'> & {
  reverify_after_days?: unknown;
  file?: unknown;
  column?: unknown;
  sheet?: unknown;
  header_row?: unknown;
};

/** What the connection remembers about a list (z.cache, scope "auth": per connection). */
interface RememberedList {
  job_ids: string[];
  /** Addresses sent in each job (same order as job_ids), so a rerun reads a job and its rows at once. */
  job_sizes?: number[];
  /** Set while a submission is on the wire: if the step dies there, a job may exist that is not listed. */
  submitting_since?: string;
  /**
   * The jobs hold exactly the first this many unique addresses of the list, in the order `order` names:
   * a rerun then sends the rest without reading the earlier rows (only the jobs, to see they ended).
   */
  sent_through?: number;
  order?: string;
}

/** What perform hands to performResume (Zapier keeps it as bundle.outputData while the Zap waits). */
interface Waiting {
  job_ids: string[];
  job_sizes?: number[];
  list_key: string;
  waiting_for_callback: true;
  /** Why rows were left for a later run, in words for their rows (no addresses: outputData stays small). */
  not_sent_reason?: string;
  /** How many unique addresses were left for a later run: counted here in case the file cannot be read again. */
  not_sent_count?: number;
}

/**
 * The words for rows this run left for a later one: over today's allowance (with the time the service
 * gave), or past the one job a run of this step sends.
 */
function notSentReason(unsentAfter: string | undefined, overOneJob: boolean, paused = false): string {
  if (unsentAfter && paused)
    return `not sent yet: the service paused new jobs for a while, runs again after ${readableTimeAfter(unsentAfter)}; run this step again then (rows already verified are not sent again)`;
  if (unsentAfter)
    return `not sent yet: over today's allowance, runs again after ${readableTimeAfter(unsentAfter)}; run this step again then (rows already verified are not sent again)`;
  if (overOneJob)
    return 'not sent yet: one run of this step sends one job; run this step again to send the rest (rows already verified are not sent again)';
  return "not sent yet: over today's allowance; run this step again later (rows already verified are not sent again)";
}

const DAY_MS = 24 * 3600 * 1000;

/** "0.4 s", "9.1 s": a measured time in the step's words. */
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * Verify Again After (Days): answers older than this are not reused; empty reuses them for as long as
 * they are remembered. At least 1 day, so a replay of the same run (Zapier replays minutes or hours
 * later) still reuses what it paid for and never charges the list twice.
 */
function reverifyAfterDays(value: unknown): number | undefined {
  const text = optionalString(value);
  if (text === undefined) return undefined;
  const n = Number(text.trim());
  if (Number.isSafeInteger(n) && n >= 1 && n <= 30) return n;
  throw new InputError(
    'reverify_after_days',
    'range',
    'Verify Again After (Days) must be a whole number from 1 to 30, or empty to reuse answers this step already paid for. Nothing was sent or charged.',
  );
}

/** When the answers of the remembered jobs were made: the latest job end (else start), or undefined. */
function answeredAt(jobs: Job[]): string | undefined {
  const times = jobs
    .map((job) => Date.parse(job.completed_at ?? job.created_at ?? ''))
    .filter((t) => Number.isFinite(t));
  return times.length ? new Date(Math.max(...times)).toISOString() : undefined;
}

/** Zapier's callback URL stays valid for 30 days; the list's jobs are remembered as long. */
const REMEMBER_SECONDS = 30 * 24 * 3600;
/** Time kept back from the step's budget to write and stash the results file. */
const STASH_RESERVE_MS = 4_000;

interface ZCache {
  get(key: string, scope?: string[]): Promise<unknown>;
  set(key: string, value: unknown, ttl?: number, scope?: string[]): Promise<unknown>;
}
/** core 19's z object has z.cache (src/tools/create-cache.js); its type definitions do not list it. */
const cacheOf = (z: ZObject): ZCache => (z as ZObject & { cache: ZCache }).cache;
const SCOPE = ['auth'];

function remembered(value: unknown): RememberedList {
  const v = (value ?? {}) as Partial<RememberedList>;
  const jobIds = Array.isArray(v.job_ids) ? v.job_ids.map(String) : [];
  return {
    job_ids: jobIds,
    job_sizes: sizesFor(jobIds, v.job_sizes),
    submitting_since: v.submitting_since,
    ...(Number.isSafeInteger(v.sent_through) && typeof v.order === 'string'
      ? { sent_through: v.sent_through, order: v.order }
      : {}),
  };
}

/** The list as z.cache keeps it (it refuses undefined values, so an unknown size is left out). */
function record(
  jobIds: string[],
  sizes: number[] | undefined,
  sent?: { through: number | undefined; order: string },
): RememberedList {
  return {
    job_ids: jobIds,
    ...(sizes ? { job_sizes: sizes } : {}),
    ...(sent?.through === undefined ? {} : { sent_through: sent.through, order: sent.order }),
  };
}

/** The unique addresses in file order, as a short hash: a re-sorted file has the same key, not this. */
function orderOf(unique: readonly string[]): string {
  const hash = createHash('sha256');
  for (const email of unique) hash.update(`${email.toLowerCase()}\n`);
  return hash.digest('hex').slice(0, 32);
}

/** Sizes that match the jobs one for one, or none (a list remembered before sizes were kept). */
function sizesFor(jobIds: string[], sizes: unknown): number[] | undefined {
  if (jobIds.length === 0) return [];
  return Array.isArray(sizes) &&
    sizes.length === jobIds.length &&
    sizes.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)
    ? (sizes as number[])
    : undefined;
}

/**
 * The table's pre-flight report, and the list's key: the same scan at submission and when writing back.
 * The key is the rows' addresses alone, not the List Name (often mapped from the file's title): the
 * same rows uploaded again under another name are the same list, and are not charged again.
 */
function preflightOf(table: TableList) {
  const preflight = preflightEmails(table.emails);
  return { preflight, key: `evf-list:${listFingerprint(preflight.unique)}` };
}

/** The list's jobs and all their rows (the client's reader), keeping time to write the results file. */
function readList(
  z: ZObject,
  bundle: Bundle,
  jobIds: string[],
  sizes: number[] | undefined,
  deadline: number,
): Promise<RowsRead> {
  return clientFor(z, bundle).jobsRows(jobIds, {
    sizes,
    deadline,
    rowsDeadline: deadline - STASH_RESERVE_MS,
  });
}

/** Each job as it stands now, read at once (one answer's time however many jobs). */
function readJobs(z: ZObject, bundle: Bundle, jobIds: string[], deadline: number): Promise<Job[]> {
  const client = clientFor(z, bundle);
  return Promise.all(jobIds.map((id) => client.getJob(id, { deadline })));
}

/** The file as the step was given it, or nothing (with a note) when it can no longer be read. */
async function readSheetAgain(z: ZObject, bundle: Bundle<FileInput>, notes: string[]) {
  try {
    const file = await downloadTableFile(z, bundle.inputData.file);
    const { column, sheet, header_row } = bundle.inputData;
    return { file, table: readTableFile(file, column, sheet, header_row) };
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    notes.push(
      `The file could not be read again (${error.message.split('. ')[0]}), so the results file lists the verified addresses only.`,
    );
    return undefined;
  }
}

/** The results file and the step's output, from the jobs made for this list so far. */
async function finish(
  z: ZObject,
  bundle: Bundle<FileInput>,
  reading: RowsRead | Promise<RowsRead>,
  notes: string[],
  opts: {
    listKey?: string;
    notSent?: string;
    notSentCount?: number;
    sheet?: { file: TableFile; table: TableList };
  } = {},
) {
  const { listKey, notSent } = opts;
  // The file is fetched again (on a resume) while the rows are read: one answer's time, not two.
  const [sheet, { rows, readAll, jobs }] = await Promise.all([
    opts.sheet ?? readSheetAgain(z, bundle, notes),
    reading,
  ]);
  const jobIds = jobs.map((j) => j.job_id);
  const file = sheet?.file;
  let table = sheet?.table;
  table ??= readTable(writeDelimited([['Email'], ...(rows.length ? rows.map((r) => [r.email]) : [['']])]), {
    column: 'Email',
  });
  const { preflight, key } = preflightOf(table);
  // The file was edited while the job ran: rows added since were never sent, and a rerun is a new list.
  const changed = file !== undefined && listKey !== undefined && key !== listKey;
  if (changed)
    notes.push(
      'The file changed after it was submitted: its addresses now differ from the ones sent, and rows added since were not verified. Running the step again submits the file as a new list (every address in it).',
    );
  const failed = jobs.filter((j) => isJobStopped(j) && j.status !== 'completed');
  const notVerifiedReason =
    notSent && readAll && !changed && failed.length === 0
      ? notSent
      : !readAll
        ? "its answer was not read within this step's time limit; run this step again to read the rest (nothing is submitted again)"
        : changed
          ? 'the address was added to the file after it was submitted'
          : failed.length
            ? `the job stopped before this address (${failed.map((j) => j.error ?? j.status).join('; ')}); run this step again to verify only the rows left (rows already verified are not sent again)`
            : 'the service returned no answer for it';
  const written = writeResultsFile(table, preflight, rows, {
    notVerifiedReason,
    answeredAt: answeredAt(jobs),
    sourceName: file?.fileName,
  });
  notes.push(...written.notes);
  const c = written.counts;
  // Without the file the results list only what was verified: rows left for a later run are not in it,
  // so the file is not complete, however many of its own rows have answers.
  const missing = sheet === undefined && notSent ? (opts.notSentCount ?? 1) : 0;
  if (missing)
    notes.push(
      `${opts.notSentCount ?? 'Some'} address(es) of the file were left for a later run (${notSent}) and are not in this results file: run this step again to get every row of the file.`,
    );
  const name = written.fileName;
  // The bytes, in the file's own format: a workbook as a workbook, text in the encoding it came in.
  const url = await z.stashFile(Buffer.from(written.bytes), written.bytes.byteLength, name, written.mimeType);
  if (c.notVerified) notes.push(`${c.notVerified} row(s) have no answer yet: ${notVerifiedReason}.`);
  const last = jobs[jobs.length - 1];
  return {
    job_id: last?.job_id ?? '',
    job_ids: jobIds,
    job_status: last?.status ?? '',
    job_failed: failed.length > 0,
    complete: c.notVerified === 0 && missing === 0,
    results_file: url,
    results_file_name: name,
    column_used: table.column.name || table.column.letter,
    results_file_encoding: written.encodingNote,
    encoding_guessed: written.encodingGuessed,
    rows: c.rows,
    rows_verified: c.verified,
    rows_duplicate: c.duplicates,
    rows_skipped: c.skipped,
    rows_not_verified: c.notVerified + missing,
    unique_count: preflight.unique.length,
    malformed_removed: preflight.malformed.length,
    counts: countByGroup(rows),
    // When the answers were made (the latest job's end): a rerun that reuses them shows their age.
    answered_at: answeredAt(jobs) ?? null,
    note: notes.filter(Boolean).join(' '),
  };
}

/**
 * The client names the list `emails`; here the list is the file, so a refusal of the list (no valid
 * address, a list the allowance can never take) names the Table File field the user can change.
 */
function asFileError(error: unknown): unknown {
  return error instanceof InputError && error.field === 'emails'
    ? new InputError('file', error.rule, error.message)
    : error;
}

const perform = mapErrors(async (z: ZObject, bundle: Bundle<FileInput>) => {
  try {
    return await performOnFile(z, bundle);
  } catch (error) {
    throw asFileError(error);
  }
});

/** Where reused answers come from, and the way to fresh ones. */
function reusedWords(at: string | undefined): string {
  return at
    ? `These answers are from ${readableTime(at)}; set Verify Again After (Days) to verify answers older than that many days again.`
    : '';
}

const performOnFile = async (z: ZObject, bundle: Bundle<FileInput>) => {
  // Zapier stops the step at 30 s: every request below, retries and waits included, fits before this.
  const deadline = stepDeadline();
  if (bundle.meta?.isLoadingSample) {
    // Testing the step in the editor must not submit (and charge) a list whose answer it cannot wait for.
    return {
      ...verifyFileSample,
      note: 'Test run: nothing was submitted or charged. A live Zap waits here for the real results.',
    };
  }
  const input = bundle.inputData;
  const reverifyDays = reverifyAfterDays(input.reverify_after_days);
  const started = Date.now();
  const file = await downloadTableFile(z, input.file);
  const table = readTableFile(file, input.column, input.sheet, input.header_row);
  const sheet = { file, table };
  const options = jobOptionsFromInput(input);
  const { preflight, key } = preflightOf(table);
  // No valid address: said before any request, the account read included.
  assertSomethingToSend(preflight);
  const cache = cacheOf(z);
  let earlier = remembered(await cache.get(key, SCOPE));
  if (earlier.submitting_since) {
    const since = Date.parse(earlier.submitting_since);
    // Verify Again After (Days) is the way to send the list anyway, once the lost submission is that old.
    if (reverifyDays === undefined || !(since < Date.now() - reverifyDays * DAY_MS))
      throw new z.errors.HaltedError(
        `An earlier run of this step was submitting this same list at ${earlier.submitting_since} and its answer was lost, so a job may exist and be charged. Look for it in "Find Bulk Job" or the dashboard before running again; to submit the list anyway, set Verify Again After (Days) to 1 and run the step after ${readableTimeAfter(new Date(since + DAY_MS).toISOString())}.`,
      );
    earlier = { job_ids: [], job_sizes: [] };
  }
  const client = clientFor(z, bundle);
  const done = new Set<string>();
  const fileMs = Date.now() - started;
  // The earlier jobs (their rows too, unless the memory says which addresses they hold) and the account
  // (read once, for the plan below) are read at once: on a slow service that is one answer's time, and a
  // whole attempt to send still fits the step after it.
  const order = orderOf(preflight.unique);
  const quick = earlier.order === order && earlier.sent_through !== undefined;
  const readEarlier = (): Promise<RowsRead> =>
    readList(z, bundle, earlier.job_ids, earlier.job_sizes, deadline);
  const [readBefore, account] = await Promise.all([
    earlier.job_ids.length === 0
      ? Promise.resolve(undefined)
      : quick
        ? readJobs(z, bundle, earlier.job_ids, deadline).then((jobs) => ({ rows: [], jobs, readAll: true }))
        : readEarlier(),
    client.getAccount({ deadline }).catch(() => null),
  ]);
  let earlierRead: RowsRead | undefined = readBefore;
  // Which addresses the jobs hold, without their rows: only while every job ended whole (a job that
  // stopped short leaves addresses to send again, which only its rows tell).
  let sentThrough: number | undefined = earlier.job_ids.length === 0 ? 0 : undefined;
  if (quick && readBefore) {
    if (readBefore.jobs.some((j) => isJobStopped(j) && j.status !== 'completed'))
      earlierRead = await readEarlier();
    else sentThrough = earlier.sent_through;
  }
  const readsMs = Date.now() - started - fileMs;
  let reused: string | undefined;
  if (earlierRead) {
    const running = earlierRead.jobs.find((job) => !isJobStopped(job));
    if (running) {
      throw new z.errors.HaltedError(
        `This list was already submitted by an earlier run (job ${running.job_id}, ${running.status}, ${running.processed} of ${running.total_emails} verified). Nothing was submitted again; run this step once that job has finished to get its results file.`,
      );
    }
    const at = answeredAt(earlierRead.jobs);
    if (
      reverifyDays !== undefined &&
      at !== undefined &&
      Date.parse(at) < Date.now() - reverifyDays * DAY_MS
    ) {
      // The user chose fresh answers past this age: the list is verified (and charged) again, and the
      // new jobs replace the old ones in the memory.
      earlier = { job_ids: [], job_sizes: [] };
      earlierRead = undefined;
      sentThrough = 0;
    } else {
      reused = at;
    }
  }
  if (earlierRead) {
    for (const row of earlierRead.rows) done.add(row.email.toLowerCase());
    if (!earlierRead.readAll) {
      return finish(
        z,
        bundle,
        earlierRead,
        ['This list was submitted by an earlier run; nothing was submitted again.', reusedWords(reused)],
        { sheet },
      );
    }
  }
  const rest =
    sentThrough === undefined
      ? preflight.unique.filter((e) => !done.has(e.toLowerCase()))
      : preflight.unique.slice(sentThrough);
  // The results file needs the earlier rows: read now where the jobs alone were read.
  const withRows = async (read: RowsRead): Promise<RowsRead> =>
    sentThrough !== undefined && read.jobs.length ? readEarlier() : read;
  if (rest.length === 0 && earlierRead) {
    earlierRead = await withRows(earlierRead);
    return finish(
      z,
      bundle,
      earlierRead,
      [
        'Every address was verified by an earlier run of this step; nothing was submitted again.',
        reusedWords(reused),
      ],
      { sheet },
    );
  }
  // Zapier gives one callback URL per step, which resumes once: one job per run. The client sizes jobs
  // to the account's allowance and sends only what fits today; the rest is written back as not sent
  // yet, and the next run sends only that (its rows have no answer among the remembered jobs).
  // A file with no valid address is planned whole, so planList refuses it naming a malformed one, before any charge.
  // The callback URL is asked for only once a job will go: asking makes Zapier wait for a callback.
  const fields = { ...options };
  let restPlan = await client.planList(
    { emails: rest.length ? rest : table.emails, ...fields },
    { deadline, sendWhatFits: true, account },
  );
  const overOneJob = restPlan.chunks.length > 1;
  // Jobs cut smaller than the service's 50,000 are cut by the daily allowance: the rest waits for it.
  const allowanceBound = overOneJob && restPlan.jobSize < restPlan.maxPerJob ? restPlan.fitsNow : undefined;
  // One job a run (one callback URL): the plan's first job goes, cut to what fits today; the rest waits.
  if (overOneJob) restPlan = { ...restPlan, maxJobs: 1 };
  if (restPlan.fitsNow && restPlan.fitsNow.left <= 0) {
    // Today's allowance is used up by the account's own figures: nothing is sent, the file is written
    // now with every open row marked, and the time counted from now is never earlier than the true one.
    const after = new Date(Date.now() + restPlan.fitsNow.freeAfterMs + 1000).toISOString();
    return finish(
      z,
      bundle,
      earlierRead ? await withRows(earlierRead) : { rows: [], jobs: [], readAll: true },
      ['Nothing was sent in this run.'],
      { sheet, notSent: notSentReason(after, false) },
    );
  }
  restPlan = await client.withJobFields(restPlan, { webhook_url: z.generateCallbackUrl() });
  await cache.set(
    key,
    { ...record(earlier.job_ids, earlier.job_sizes), submitting_since: new Date().toISOString() },
    REMEMBER_SECONDS,
    SCOPE,
  );
  let jobIds: string[];
  // A size only sizes the windows a rerun reads (the last reads on to the job's end), so an estimate is safe.
  let jobSizes: number[] | undefined;
  let notSent: string | undefined;
  let notSentCount = 0;
  let submissionAfter: string | undefined;
  let stoppedBy: string | undefined;
  try {
    const submission = await client.submitPlan(restPlan, { deadline, sendWhatFits: true });
    jobIds = [...earlier.job_ids, ...submission.jobs.map((j) => j.job_id)];
    jobSizes = earlier.job_sizes && [...earlier.job_sizes, ...submission.jobs.map((j) => j.total_emails)];
    submissionAfter = submission.unsentAfter;
    stoppedBy = submission.stoppedBy;
    // What was posted is the head of `rest`; what was not is its tail, in order.
    if (sentThrough !== undefined) sentThrough += rest.length - submission.unsent.length;
    if (submission.unsent.length || overOneJob) {
      const last = Date.parse(submission.jobs[submission.jobs.length - 1]?.created_at ?? '');
      const after =
        submission.unsentAfter ??
        (allowanceBound
          ? new Date(
              (Number.isNaN(last) ? Date.now() : last) + allowanceBound.freeAfterMs + 1000,
            ).toISOString()
          : undefined);
      notSent = notSentReason(after, overOneJob && !after, stoppedBy === 'paused');
      notSentCount = rest.length - submission.jobs.reduce((sum, j) => sum + j.total_emails, 0);
    }
  } catch (error) {
    // Jobs the service accepted before it stopped are remembered, so a rerun reads them instead of
    // paying for them again; an answer lost on the way keeps the "submitting" mark (a job may exist);
    // a refusal before anything was charged leaves the list as it was, for the next run to submit.
    const accepted = error instanceof PartialSubmissionError ? error.submittedJobIds : [];
    const inDoubt =
      error instanceof SubmissionUncertainError ||
      (error instanceof PartialSubmissionError && error.uncertain !== undefined);
    const kept = record(
      [...earlier.job_ids, ...accepted],
      earlier.job_sizes && [...earlier.job_sizes, ...accepted.map((_, i) => restPlan.chunks[i]?.length ?? 0)],
    );
    if (inDoubt) kept.submitting_since = new Date().toISOString();
    await cache.set(key, kept, REMEMBER_SECONDS, SCOPE);
    throw error;
  }
  if (jobIds.length === earlier.job_ids.length) {
    // The account's figures said it fitted, the service said not (a 429 to the first job): no job was
    // made, yet the step asked for a callback, so it fails with words instead of waiting for nothing.
    await cache.set(key, record(jobIds, jobSizes, { through: sentThrough, order }), REMEMBER_SECONDS, SCOPE);
    const when = submissionAfter ? ` after ${readableTimeAfter(submissionAfter)}` : ' later';
    if (stoppedBy === 'time_budget')
      throw new z.errors.Error(
        `Nothing was sent or charged: too little of Zapier's 30 seconds for a step was left to send the job (a job is sent only while a whole ${REQUEST_TIMEOUT_MS / 1000}-second attempt fits). Reading the file took ${seconds(fileMs)}, the service's answers to the reads before sending ${seconds(readsMs)}. Run this step again: it sends only the rows still without an answer${fileMs > readsMs ? '; a smaller file, or the file split in two, leaves more of the time for sending' : '; the service is answering slowly'}.`,
        'time_budget',
        408,
      );
    const paused = stoppedBy === 'paused';
    const why = paused
      ? 'the service has paused new jobs for a while (it said when they are taken again)'
      : 'the service takes no more addresses from this account today (its daily allowance, shared by all its keys)';
    throw new z.errors.Error(
      `Nothing was sent or charged: ${why}. Run this step again${when}: it sends only the rows still without an answer.`,
      paused ? 'new_jobs_paused' : 'allowance_used',
      paused ? 503 : 429,
    );
  }
  await cache.set(key, record(jobIds, jobSizes, { through: sentThrough, order }), REMEMBER_SECONDS, SCOPE);
  const waiting: Waiting = {
    job_ids: jobIds,
    ...(jobSizes ? { job_sizes: jobSizes } : {}),
    list_key: key,
    waiting_for_callback: true,
    ...(notSent ? { not_sent_reason: notSent, not_sent_count: notSentCount } : {}),
  };
  return waiting;
};

/**
 * Runs when the completion message reaches the callback URL. The message only says "look now": its
 * signature is checked when a secret is set, and in every case the jobs are read with the key, so a
 * message that cannot be verified (a rotated secret, a late delivery) still gets the paid rows back.
 */
const performResume = mapErrors(async (z: ZObject, bundle: Bundle<FileInput>) => {
  const deadline = stepDeadline();
  const waiting = bundle.outputData as Waiting;
  const notes: string[] = [];
  // The client's one rule for a completion message (shared with Verify List and Wait): checked when the
  // connection has a secret, never trusted for the result; the jobs are read with the key below.
  const message = checkCompletionMessage({
    jobId: waiting.job_ids[waiting.job_ids.length - 1]!,
    rawBody: bundle.rawRequest?.content ?? '',
    headers: bundle.rawRequest?.headers ?? {},
    secrets: webhookSecrets(bundle),
  });
  if (message.result === 'failed')
    notes.push(
      `The completion message could not be verified (${message.reason}); the jobs were read with the API key instead.`,
    );
  const reading = readList(
    z,
    bundle,
    waiting.job_ids,
    sizesFor(waiting.job_ids, waiting.job_sizes),
    deadline,
  ).then((read) => {
    const running = read.jobs.find((job) => !isJobStopped(job));
    if (running) {
      throw new z.errors.Error(
        `A completion message arrived, but job ${running.job_id} is still ${running.status}, so it did not come from the service. Run this step again once the job has finished: nothing will be submitted again.`,
        'webhook_job_not_finished',
        409,
      );
    }
    return read;
  });
  return finish(z, bundle, reading, notes, {
    listKey: waiting.list_key,
    notSent: waiting.not_sent_reason,
    notSentCount: waiting.not_sent_count,
  });
});

export default defineCreate({
  key: 'verify_file_and_wait',
  noun: 'Verified File',
  display: {
    label: 'Verify File and Wait for Results File',
    description:
      "Verifies every address in a CSV, TSV or XLSX file and returns the same file, in its own format, with each row's verdict beside it.",
  },
  operation: {
    inputFields: [
      {
        key: 'file',
        label: 'Table File',
        type: 'file',
        required: true,
        helpText:
          'A CSV, TSV or XLSX file with a header row, e.g. from Google Drive, Dropbox or an email attachment. Files up to 100 MB. Malformed, empty and duplicate rows are reported in the results file and never charged.',
      },
      {
        key: 'column',
        label: 'Address Column',
        type: 'string',
        required: false,
        helpText:
          'The header of the column holding the addresses (e.g. `Email`), or its letter (e.g. `C`). Leave empty to use the column headed "Email", or else the one holding addresses.',
      },
      {
        key: 'sheet',
        label: 'Sheet',
        type: 'string',
        required: false,
        helpText:
          'XLSX files only: the sheet to read, by its tab name (e.g. `Leads`) or its position (1 is the first tab, hidden ones counted). Leave empty to read the first visible sheet.',
      },
      HEADER_ROW_FIELD,
      ...listInputFields.filter((f) => f.key !== 'emails' && f.key !== 'emails_text'),
      {
        key: 'reverify_after_days',
        label: 'Verify Again After (Days)',
        type: 'integer',
        required: false,
        helpText:
          'Running this step again on the same list (same addresses and List Name) within 30 days reuses the answers it already paid for, and the note says when they were made. Set a number of days (1 to 30) to verify again, and pay again, for answers older than that; a replay of the same run hours later still reuses them.',
      },
    ],
    perform,
    performResume,
    sample: verifyFileSample,
    outputFields: [
      field('results_file', 'Results File', 'file'),
      field('results_file_name', 'Results File Name', 'string'),
      field('complete', 'Every Row Answered', 'boolean'),
      field('job_failed', 'Job Failed', 'boolean'),
      field('job_id', 'Job ID', 'string'),
      field('job_ids', 'Job IDs', 'string', { list: true }),
      field('job_status', 'Job Status', 'string'),
      field('column_used', 'Address Column Used', 'string'),
      field('results_file_encoding', 'Results File Encoding', 'string'),
      field('encoding_guessed', 'Encoding Guessed', 'boolean'),
      field('rows', 'Rows in the File', 'integer'),
      field('rows_verified', 'Rows Verified', 'integer'),
      field('rows_duplicate', 'Duplicate Rows (Verdict Copied, Charged Once)', 'integer'),
      field('rows_skipped', 'Rows Skipped (Not Charged)', 'integer'),
      field('rows_not_verified', 'Rows Without an Answer Yet', 'integer'),
      field('unique_count', 'Unique Addresses', 'integer'),
      field('malformed_removed', 'Malformed Addresses (Not Charged)', 'integer'),
      ...groupCountOutputFields('counts__', 'Whole Job'),
      field('answered_at', 'Answers Made At (Latest Job End)', 'datetime'),
      field('note', 'Note', 'string'),
    ],
  },
});
