import {
  isJobStopped,
  readPositionWindow,
  withCategory,
  type CategoryFields,
  type EmailVerificationClient,
  type Group,
  type Job,
  type ResultRow,
  type WindowEnd,
} from '@evf/client';

export type CategorizedRow = ResultRow & CategoryFields;

export interface CollectedRows {
  job: Job;
  rows: CategorizedRow[];
  /** Rows read from the service (before the group filter). */
  scanned: number;
  /** The first row read, 1-based as users count rows. */
  startRow: number;
  /** The row to put in Start at Row for the rest, 1-based; null when every row of a finished job was read. */
  nextStartRow: number | null;
  truncated: boolean;
  end: WindowEnd;
  /** The job had not stopped when its last page was read, however the window ended (cap, time, rows). */
  running: boolean;
  /** Why not every row is in `rows` and what to put next, in words for the Zap history; empty when complete. */
  note: string;
}

export interface CollectOptions {
  /** Rows one step may return. */
  maxRows: number;
  /** When reading must stop (see budget.ts), so a large or slow job cannot run into Zapier's 30 s stop. */
  deadline: number;
  group?: Group;
  /** 1-based row to start at (default 1). */
  startRow?: number;
  /** The job as just read, so it is not read again. */
  job?: Job;
}

/** What a window that ended early says: why, and the Start at Row that reads on. */
function noteFor(
  end: WindowEnd,
  job: Job,
  status: string,
  first: number,
  next: number,
  returned: number,
): string {
  switch (end) {
    case 'complete':
      return '';
    case 'max_rows':
      return `Rows ${first} to ${next - 1} were read and ${returned} returned, as many as one step carries within Zapier's limits on step output. To read on, run "Find Bulk Job Results" with Start at Row = ${next} (a Looping by Zapier step can count it up).`;
    case 'time':
      return `Reading stopped before row ${next} to finish within Zapier's 30-second step limit; ${returned} rows are returned. To read on, run "Find Bulk Job Results" with Start at Row = ${next}.`;
    case 'running':
      return `Job ${job.job_id} is still ${status} (${job.processed} of ${job.total_emails} addresses verified when read): these are the rows stored so far, not the whole job. Once the "Bulk Job Finished" trigger fires, read on with Start at Row = ${next}.`;
  }
}

/**
 * One window of a job's rows through the client (row position, row cap, deadline) with the category
 * fields added, and the words that tell a Zap where the next window starts.
 */
export async function collectRows(
  client: EmailVerificationClient,
  jobId: string,
  options: CollectOptions,
): Promise<CollectedRows> {
  const first = options.startRow ?? 1;
  const window = await client.resultsWindow(jobId, {
    startRow: first - 1,
    maxRows: options.maxRows,
    group: options.group,
    deadline: options.deadline,
    job: options.job,
  });
  const next = window.nextStartRow === null ? null : window.nextStartRow + 1;
  const rows = window.rows.map((row) => withCategory(row));
  return {
    job: window.job,
    rows,
    scanned: window.rowsRead,
    startRow: first,
    nextStartRow: next,
    truncated: window.truncated,
    end: window.end,
    running: !isJobStopped({ ...window.job, status: window.status }),
    note: noteFor(window.end, window.job, window.status, first, next ?? first, rows.length),
  };
}

/**
 * Find Bulk Job Results' window: rows Start at Row to Start at Row + size - 1 by position, whatever the
 * group filter keeps of them, so a Looping by Zapier step over fixed values (1, 5001, 10001, ...) reads
 * every row once with or without a group. Its pages and the job are read at once: on a service answering
 * in 9 s the whole window still fits one step.
 */
export async function collectWindow(
  client: EmailVerificationClient,
  jobId: string,
  options: { size: number; deadline: number; group?: Group; startRow: number },
): Promise<CollectedRows> {
  const first = options.startRow;
  const window = await readPositionWindow(
    client,
    jobId,
    { startRow: first - 1, size: options.size, group: options.group, deadline: options.deadline },
    Date.now,
  );
  const next = window.nextStartRow === null ? null : window.nextStartRow + 1;
  const rows = window.rows.map((row) => withCategory(row));
  const last = first + window.rowsRead - 1;
  const read = window.rowsRead > 0 ? `Rows ${first} to ${last} were read (${rows.length} returned).` : '';
  const notes: Record<WindowEnd, string> = {
    complete: '',
    max_rows: `${read} The rows from ${next} on follow: run this search with Start at Row = ${next} (a Looping by Zapier step over 1, ${(options.size + 1).toLocaleString('en-US')}, ${(2 * options.size + 1).toLocaleString('en-US')}, ... reads each row once).`,
    time: `${read} Reading stopped before row ${next} to finish within Zapier's 30-second step limit: run this search again with Start at Row = ${next} for the rest of this window.`,
    running: `Job ${window.job.job_id} is still ${window.status} (${window.job.processed} of ${window.job.total_emails} addresses verified when read): these are the rows stored so far, not the whole job. ${read} Rows from ${next} on are not stored yet: once the "Bulk Job Finished" trigger fires, read on with Start at Row = ${next}.`,
  };
  return {
    job: window.job,
    rows,
    scanned: window.rowsRead,
    startRow: first,
    nextStartRow: next,
    truncated: window.end !== 'complete',
    end: window.end,
    running: !isJobStopped({ ...window.job, status: window.status }),
    note: notes[window.end].replace(/\s{2,}/g, ' ').trim(),
  };
}
