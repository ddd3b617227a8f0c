import { readPositionWindow, type Group, type Job, type ResultRow, type ResultsPage } from '@evf/client';
import { TimeBudgetSpentError } from '../src/errors';

const LABELS = ['valid', 'invalid', 'catch_all'] as const;
const GROUP_OF: Record<(typeof LABELS)[number], Group> = {
  valid: 'safe_to_send',
  invalid: 'invalid',
  catch_all: 'risky',
};

/** A job of `stored` rows (of `total`), labels cycling, pages of 1,000 as the service serves them. */
function fakeJob(stored: number, total = stored, slowPages: number[] = []) {
  const status = stored < total ? 'processing' : 'completed';
  const job = {
    job_id: 'job_1',
    status,
    terminal: stored >= total,
    total_emails: total,
    processed: stored,
  } as Job;
  const rows: ResultRow[] = Array.from({ length: stored }, (_, i) => ({
    email: `r${i}@acme-corp.com`,
    details: { primary_label: LABELS[i % 3]! },
  })) as unknown as ResultRow[];
  return {
    rows,
    reader: {
      getJob: async () => job,
      getResultsPage: async (_id: string, params: { page?: number; per_page?: number } = {}) => {
        const page = params.page ?? 1;
        if (slowPages.includes(page)) throw new TimeBudgetSpentError('GET', '/v1/jobs/job_1/results');
        const perPage = params.per_page ?? 100;
        const results = rows.slice((page - 1) * perPage, page * perPage);
        return {
          job_id: 'job_1',
          status,
          total,
          page,
          per_page: perPage,
          has_more: page * perPage < stored,
          results,
        } satisfies ResultsPage;
      },
    },
  };
}

const now = () => 0;

describe('readPositionWindow', () => {
  test.each([undefined, 'safe_to_send', 'risky'] as const)(
    'fixed starts 1, 5001, ... read every row exactly once (group %s)',
    async (group) => {
      const { reader, rows } = fakeJob(12_345);
      const seen: string[] = [];
      let start = 0;
      let windows = 0;
      for (;;) {
        const w = await readPositionWindow(reader, 'job_1', { startRow: start, size: 5_000, group }, now);
        seen.push(...w.rows.map((r) => r.email));
        windows++;
        if (w.nextStartRow === null) break;
        expect(w.nextStartRow).toBe(start + 5_000);
        start += 5_000;
      }
      expect(windows).toBe(3);
      const expected = rows
        .filter((_, i) => group === undefined || GROUP_OF[LABELS[i % 3]!] === group)
        .map((r) => r.email);
      expect(seen).toEqual(expected);
    },
  );

  test('a window ending on the last row of a finished job says nothing follows', async () => {
    const { reader } = fakeJob(10_000);
    const w = await readPositionWindow(reader, 'job_1', { startRow: 5_000, size: 5_000 }, now);
    expect(w).toMatchObject({ end: 'complete', nextStartRow: null, rowsRead: 5_000 });
  });

  test('a running job: the window ends where the stored rows end, and says so', async () => {
    const { reader } = fakeJob(6_500, 20_000);
    const w = await readPositionWindow(reader, 'job_1', { startRow: 5_000, size: 5_000 }, now);
    expect(w).toMatchObject({ end: 'running', nextStartRow: 6_500, rowsRead: 1_500 });
  });

  test('a page cut by the deadline: only the rows before it, and where to read on', async () => {
    const { reader } = fakeJob(12_000, 12_000, [3]);
    const w = await readPositionWindow(reader, 'job_1', { startRow: 0, size: 5_000, deadline: 1 }, now);
    expect(w).toMatchObject({ end: 'time', nextStartRow: 2_000, rowsRead: 2_000 });
    expect(w.rows).toHaveLength(2_000);
  });
});
