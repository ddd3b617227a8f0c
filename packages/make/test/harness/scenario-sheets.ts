/**
 * A Google spreadsheet in memory, reached the way the example scenarios reach it: through Make's
 * Google Sheets "Make an API Call" module (`google-sheets:makeAPICall`, whose base URL already ends in
 * /v4) calling the Sheets API's values endpoints. Stricter than Google, never looser:
 *
 * - every request and every answer is at most 2 MB: Google recommends "a 2 MB maximum payload"
 *   (https://developers.google.com/workspace/sheets/api/limits, Quota limits); the model refuses more;
 * - a spreadsheet holds at most 10,000,000 cells
 *   (https://support.google.com/drive/answer/37603, "Files you can store in Google Drive");
 * - at most 60 write requests per minute per user (the same limits page); the model counts every
 *   write of one scenario run as falling in the same minute;
 * - values.get leaves out trailing empty rows and cells, values.append writes after the last row of
 *   the table it finds in the range
 *   (https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets.values/get and
 *   .../append).
 *
 * The list tab's lookup columns are the one formula the user pastes once (LOOKUP_FORMULA, also in
 * examples/README.md); the model computes what Google shows for it: VLOOKUP with is_sorted FALSE
 * returns the first exact match, compared without regard to case
 * (https://support.google.com/docs/answer/3093318, VLOOKUP).
 */

export const SHEETS_PAYLOAD_MAX_BYTES = 2 * 1024 * 1024;
export const SHEETS_CELLS_MAX = 10_000_000;
export const SHEETS_WRITES_PER_MINUTE = 60;

/** The tab of leads, the tab of results, and the cell where the scenarios note the job's state. */
export const LIST_TAB = 'Leads';
export const RESULTS_TAB = 'Verified';
export const STATE_CELL = 'J1';

/** Pasted once into Leads!B2; Google fills B:E for every row from it. */
export const LOOKUP_FORMULA =
  '=ARRAYFORMULA(IF(A2:A="",,IFERROR(VLOOKUP(TRIM(A2:A),Verified!A2:E,{2,3,4,5},FALSE),' +
  'IF(LEFT(Verified!J1,8)="running:","Waiting for "&Verified!J1,' +
  'IF(LEFT(Verified!J1,11)="submitting:","Waiting: part 1 was submitting these rows (see Verified!J1)",' +
  'IF(LEFT(Verified!J1,8)="writing:","Not written yet: part 2 stopped part way ("&Verified!J1&"). Run part 2 again",' +
  'IF(LEFT(Verified!J1,10)="completed:","Not submitted (never charged): not a valid address, or left for the next run of part 1"&IF(Verified!J2="",""," (after "&Verified!J2&")"),' +
  'IF(Verified!J1="",,"Not verified: the job "&Verified!J1&". Run part 1 again: it sends only these rows"))))))))';

export class SheetsApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'SheetsApiError';
  }
}

export interface SheetsRequest {
  method: string;
  url: string;
  qs: Record<string, string>;
  body?: string;
}

export interface SheetsAnswer {
  statusCode: number;
  body: unknown;
}

type Grid = string[][];

function columnIndex(letters: string): number {
  let n = 0;
  for (const c of letters.toUpperCase()) n = n * 26 + (c.charCodeAt(0) - 64);
  return n - 1;
}

interface A1 {
  tab: string;
  col0: number;
  row0: number;
  col1: number;
  /** Inclusive; Infinity for an open range such as A2:B. */
  row1: number;
}

function parseRange(range: string): A1 {
  const m = /^([^!]+)!([A-Z]+)([0-9]*)(?::([A-Z]+)([0-9]*))?$/.exec(range);
  if (!m) throw new SheetsApiError(400, `Unable to parse range: ${range}`);
  const [, tab, c0, r0, c1, r1] = m;
  return {
    tab: tab!,
    col0: columnIndex(c0!),
    row0: r0 ? Number(r0) - 1 : 0,
    col1: columnIndex(c1 ?? c0!),
    row1: c1 === undefined ? (r0 ? Number(r0) - 1 : Infinity) : r1 ? Number(r1) - 1 : Infinity,
  };
}

export class SheetModel {
  private readonly tabs = new Map<string, Grid>();
  /** Write requests in the current scenario run (SHEETS_WRITES_PER_MINUTE). */
  private writesThisRun = 0;
  /**
   * The list tab as shown (LOOKUP_FORMULA applied), kept until the next write: the 15 reads of one
   * part 1 run see the same sheet, and recomputing 150,000 lookups per read made the harness, not the
   * flow, the slow part.
   */
  private listView?: Grid;
  readonly log: { method: string; range: string; requestBytes: number; answerBytes: number }[] = [];
  /**
   * A test's fault: the write with this number (1 = the next) answers `failStatus` (503 by default, as
   * Google does when busy; 429 for its per-minute quota).
   */
  failWrite?: number;
  failStatus = 503;

  constructor(readonly spreadsheetId: string) {
    this.tabs.set(LIST_TAB, [['Email', 'Category', 'Group', 'Safe to send', 'Reason']]);
    this.tabs.set(RESULTS_TAB, [['Email', 'Category', 'Group', 'Safe to send', 'Reason']]);
  }

  /** The list as the user pasted it: one address (or anything else) per row under the header. */
  fillList(addresses: string[]): void {
    const grid = this.tabs.get(LIST_TAB)!;
    grid.length = 1;
    for (const a of addresses) grid.push([a]);
    this.listView = undefined;
  }

  startRun(): void {
    this.writesThisRun = 0;
  }

  /** Raw cells of a tab, header row included (for assertions). */
  cells(tab: string): Grid {
    if (tab !== LIST_TAB) return this.tabs.get(tab) ?? [];
    return (this.listView ??= this.listWithLookup());
  }

  /** What the list tab shows: column A as typed, B:E from LOOKUP_FORMULA. */
  private listWithLookup(): Grid {
    const list = this.tabs.get(LIST_TAB)!;
    const results = this.tabs.get(RESULTS_TAB)!;
    const byAddress = new Map<string, string[]>();
    for (const row of results.slice(1)) {
      const key = (row[0] ?? '').toLowerCase();
      if (key !== '' && !byAddress.has(key)) byAddress.set(key, row.slice(1, 5));
    }
    const state = results[0]?.[columnIndex('J')] ?? '';
    // Verified!J2: when part 1 left rows over today's allowance, the time they can go.
    const after = results[1]?.[columnIndex('J')] ?? '';
    return list.map((row, i) => {
      if (i === 0) return row;
      const address = (row[0] ?? '').trim();
      if (address === '') return [row[0] ?? ''];
      const hit = byAddress.get(address.toLowerCase());
      if (hit) return [row[0]!, ...hit];
      if (state.startsWith('running:')) return [row[0]!, `Waiting for ${state}`];
      if (state.startsWith('submitting:'))
        return [row[0]!, 'Waiting: part 1 was submitting these rows (see Verified!J1)'];
      if (state.startsWith('writing:'))
        return [row[0]!, `Not written yet: part 2 stopped part way (${state}). Run part 2 again`];
      if (state.startsWith('completed:'))
        return [
          row[0]!,
          'Not submitted (never charged): not a valid address, or left for the next run of part 1' +
            (after === '' ? '' : ` (after ${after})`),
        ];
      if (state === '') return [row[0]!];
      return [row[0]!, `Not verified: the job ${state}. Run part 1 again: it sends only these rows`];
    });
  }

  private cellCount(): number {
    let n = 0;
    for (const grid of this.tabs.values()) for (const row of grid) n += row.length;
    return n;
  }

  /** One call of Make's Google Sheets "Make an API Call" module. */
  handle(req: SheetsRequest): SheetsAnswer {
    const requestBytes = Buffer.byteLength(req.body ?? '');
    if (requestBytes > SHEETS_PAYLOAD_MAX_BYTES)
      throw new SheetsApiError(
        413,
        `request of ${requestBytes} bytes is past the 2 MB payload Google recommends`,
      );
    const m = /^\/spreadsheets\/([^/]+)\/values\/([^?]+?)(:append)?$/.exec(req.url);
    if (!m || m[1] !== this.spreadsheetId)
      throw new SheetsApiError(404, `No such spreadsheet endpoint: ${req.method} ${req.url}`);
    const range = decodeURIComponent(m[2]!);
    const a1 = parseRange(range);
    if (!this.tabs.has(a1.tab)) throw new SheetsApiError(400, `Unable to parse range: ${range}`);
    let body: unknown;
    if (req.method === 'GET' && !m[3]) body = this.get(a1, range);
    else if (req.method === 'PUT' && !m[3]) body = this.write(a1, range, req, false);
    else if (req.method === 'POST' && m[3]) body = this.write(a1, range, req, true);
    else throw new SheetsApiError(404, `No such spreadsheet endpoint: ${req.method} ${req.url}`);
    const answerBytes = Buffer.byteLength(JSON.stringify(body));
    if (answerBytes > SHEETS_PAYLOAD_MAX_BYTES)
      throw new SheetsApiError(
        413,
        `answer of ${answerBytes} bytes is past the 2 MB payload Google recommends`,
      );
    this.log.push({ method: req.method, range, requestBytes, answerBytes });
    return { statusCode: 200, body };
  }

  private get(a1: A1, range: string): { range: string; majorDimension: string; values?: Grid } {
    const grid = this.cells(a1.tab);
    const rows: Grid = [];
    for (let r = a1.row0; r <= Math.min(a1.row1, grid.length - 1); r++) {
      const row = (grid[r] ?? []).slice(a1.col0, a1.col1 + 1);
      while (row.length && (row[row.length - 1] ?? '') === '') row.pop();
      rows.push(row);
    }
    while (rows.length && rows[rows.length - 1]!.length === 0) rows.pop();
    return { range, majorDimension: 'ROWS', ...(rows.length ? { values: rows } : {}) };
  }

  private write(a1: A1, range: string, req: SheetsRequest, append: boolean): unknown {
    if (a1.tab === LIST_TAB && a1.col0 <= columnIndex('E') && a1.col1 >= columnIndex('B'))
      throw new SheetsApiError(400, 'Leads!B:E hold the lookup formula; write results to the Verified tab');
    if (this.failWrite !== undefined && --this.failWrite === 0) {
      this.failWrite = undefined;
      throw new SheetsApiError(
        this.failStatus,
        this.failStatus === 429
          ? 'Quota exceeded for write requests per minute per user'
          : 'The service is currently unavailable.',
      );
    }
    if (++this.writesThisRun > SHEETS_WRITES_PER_MINUTE)
      throw new SheetsApiError(429, 'Quota exceeded for write requests per minute per user');
    if (req.qs.valueInputOption !== 'RAW' && req.qs.valueInputOption !== 'USER_ENTERED')
      throw new SheetsApiError(400, "'valueInputOption' is required but not specified");
    let values: unknown;
    try {
      values = (JSON.parse(req.body ?? '') as { values?: unknown }).values;
    } catch {
      throw new SheetsApiError(400, 'Invalid JSON payload received');
    }
    if (!Array.isArray(values) || !values.every((r) => Array.isArray(r)))
      throw new SheetsApiError(400, 'Invalid values: expected an array of rows');
    const grid = this.tabs.get(a1.tab)!;
    this.listView = undefined;
    let start = a1.row0;
    if (append) {
      // The table is the run of rows with something in the range's columns; append writes after it.
      let last = -1;
      for (let r = 0; r < grid.length; r++)
        if ((grid[r] ?? []).slice(a1.col0, a1.col1 + 1).some((c) => (c ?? '') !== '')) last = r;
      start = last + 1;
    }
    (values as unknown[][]).forEach((row, i) => {
      if (!append && start + i > a1.row1) throw new SheetsApiError(400, `values go past the range ${range}`);
      const target = (grid[start + i] ??= []);
      row.forEach((v, j) => {
        for (let k = target.length; k < a1.col0 + j; k++) target[k] = '';
        target[a1.col0 + j] = v === null || v === undefined ? '' : String(v);
      });
    });
    for (let r = 0; r < grid.length; r++) grid[r] ??= [];
    if (this.cellCount() > SHEETS_CELLS_MAX)
      throw new SheetsApiError(400, 'This action would increase the number of cells past 10,000,000');
    const update = { spreadsheetId: this.spreadsheetId, updatedRange: range, updatedRows: values.length };
    return append ? { spreadsheetId: this.spreadsheetId, updates: update } : update;
  }
}
