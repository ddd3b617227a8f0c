import { isOpenRow, preflightEmails, rowVerdicts, RESULT_COLUMNS, type ResultRow } from '../src/index';

const row = (email: string, label: string): ResultRow => ({
  email,
  status: 'valid',
  valid: label === 'valid',
  score: 0.9,
  reason: `because ${label}`,
  details: { primary_label: label as ResultRow['details']['primary_label'], tags: [], label_reasons: [] },
});

describe('rowVerdicts: the write-back rule for a platform’s own rows', () => {
  it('gives each row the five cells writeBackTable writes, and the unsent rows "Not sent yet" with the time', () => {
    const cells = ['ada@x.com', 'ADA@x.com', 'bad@', '', 'Bob <bob@x.com>', 'cy@x.com', 'CY@x.com'];
    const preflight = preflightEmails(cells);
    const verdicts = rowVerdicts(preflight, [row('ada@x.com', 'valid'), row('BOB@x.com', 'catch_all')], 7, {
      notSent: { emails: ['cy@x.com'], after: '2026-01-16T09:30:01.000Z' },
      rowName: (i) => i + 2,
    });
    const out = cells.map((_, i) => verdicts.cellsOf(i));
    expect(out.every((c) => c.length === RESULT_COLUMNS.length)).toBe(true);
    expect(out.map((c) => c[4])).toEqual([
      'verified',
      'duplicate',
      'skipped',
      'skipped',
      'verified',
      'not_verified',
      'not_verified',
    ]);
    expect(out[0]!.slice(0, 3)).toEqual(['Valid', 'safe_to_send', 'TRUE']);
    expect(out[1]!.slice(0, 3)).toEqual(['Valid', 'safe_to_send', 'TRUE']);
    expect(out[4]!.slice(0, 3)).toEqual(['Catch-All', 'risky', 'FALSE']);
    expect(out[2]![3]).toMatch(/^Not sent \(not charged\): malformed address/);
    expect(out[5]![3]).toBe(
      'Not sent yet: the list stopped part way (the API allowance or paused new jobs); runs again after 2026-01-16T09:30:01.000Z',
    );
    // A copy of an unsent row stays open with it, so the next run answers both.
    expect(out[6]![3]).toBe('Same address as row 7, which was not sent yet');
    expect(verdicts.counts).toEqual({
      rows: 7,
      verified: 2,
      duplicates: 2,
      skipped: 2,
      notVerified: 1,
      blank: 1,
    });
  });

  it('keepCopiesOpen: a copy of a row without an answer stays open with it; writeBackTable keeps it a duplicate', () => {
    const preflight = preflightEmails(['ada@x.com', 'ADA@x.com']);
    const open = rowVerdicts(preflight, [], 2, { keepCopiesOpen: true, notVerifiedReason: 'job failed' });
    expect(open.cellsOf(1)).toEqual([
      '',
      '',
      '',
      'Same address as row 1, which was not verified: job failed',
      'not_verified',
    ]);
    expect(rowVerdicts(preflight, [], 2).cellsOf(1)[4]).toBe('duplicate');
  });

  it('isOpenRow: new and not_verified rows are open; verified, duplicate and skipped rows are settled', () => {
    expect([undefined, null, '', ' ', 'not_verified'].map(isOpenRow)).toEqual([true, true, true, true, true]);
    expect(['verified', 'duplicate', 'skipped'].map(isOpenRow)).toEqual([false, false, false]);
  });
});
