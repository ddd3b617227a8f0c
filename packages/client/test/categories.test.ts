import { categorize, withCategory, countByGroup, CATEGORIES } from '@evf/client';

const tag = (label: string) => ({ label, confidence: 0.9 });

describe('categorize: the dashboard mapping, tags first, then primary_label', () => {
  test.each([
    // [primary_label, tags, category, group]
    ['valid', ['spam_trap'], 'Spam Trap', 'invalid'],
    ['invalid', ['spam_trap'], 'Spam Trap', 'invalid'],
    ['valid', ['disposable'], 'Disposable', 'invalid'],
    ['valid', ['role'], 'Role', 'risky'],
    ['valid', ['role', 'disposable'], 'Disposable', 'invalid'],
    ['valid', ['disposable', 'spam_trap'], 'Spam Trap', 'invalid'],
    ['valid', [], 'Valid', 'safe_to_send'],
    ['catch_all', [], 'Catch-All', 'risky'],
    ['inbox_full', [], 'Inbox Full', 'risky'],
    ['invalid', [], 'Invalid / Disabled / No Mail Server', 'invalid'],
    ['disabled', [], 'Invalid / Disabled / No Mail Server', 'invalid'],
    ['unknown', [], 'Unknown / Not Verified (refunded)', 'risky'],
    ['not_verified', [], 'Unknown / Not Verified (refunded)', 'risky'],
    ['something_new', [], 'Unknown / Not Verified (refunded)', 'risky'],
    ['catch_all', ['future_tag'], 'Catch-All', 'risky'],
  ])('%s with tags %j -> %s / %s', (primary_label, tags, category, group) => {
    const got = categorize({ primary_label, tags: tags.map(tag) });
    expect(got).toEqual({ category, group, safeToSend: group === 'safe_to_send' });
  });

  test('only Valid without a disqualifying tag is safe to send', () => {
    for (const label of [
      'valid',
      'catch_all',
      'inbox_full',
      'invalid',
      'disabled',
      'unknown',
      'not_verified',
    ]) {
      for (const t of [[], ['role'], ['disposable'], ['spam_trap']]) {
        const { safeToSend } = categorize({ primary_label: label, tags: t.map(tag) });
        expect(safeToSend).toBe(label === 'valid' && t.length === 0);
      }
    }
  });

  test('the row status is never used: a catch-all row with status invalid stays Catch-All', () => {
    const row = {
      email: 'catchall1@acme.com',
      status: 'invalid',
      valid: false,
      details: { primary_label: 'catch_all', tags: [] },
    };
    expect(withCategory(row)).toMatchObject({
      category: 'Catch-All',
      group: 'risky',
      safe_to_send: false,
      status: 'invalid',
    });
  });

  test('missing or broken details are held back as unknown, never sent', () => {
    expect(categorize(undefined).group).toBe('risky');
    expect(categorize({ primary_label: undefined as never, tags: null as never }).safeToSend).toBe(false);
  });

  test('countByGroup counts every group', () => {
    const rows = [
      { details: { primary_label: 'valid', tags: [] } },
      { details: { primary_label: 'valid', tags: [tag('role')] } },
      { details: { primary_label: 'disabled', tags: [] } },
    ];
    expect(countByGroup(rows)).toEqual({ safe_to_send: 1, risky: 1, invalid: 1 });
    expect(CATEGORIES).toHaveLength(10);
  });

  test('"refunded" only where the service refunds: a job\'s unknown row, never a charged single check', () => {
    const unknown = { primary_label: 'unknown', tags: [] };
    expect(categorize(unknown).category).toBe('Unknown / Not Verified (refunded)');
    expect(categorize(unknown, { source: 'single' })).toEqual({
      category: 'Unknown / Not Verified (charged)',
      group: 'risky',
      safeToSend: false,
    });
    expect(categorize({ primary_label: 'valid', tags: [] }, { source: 'single' }).category).toBe('Valid');
    // A single check's result carries credits_used; a job's row does not.
    expect(withCategory({ details: unknown, credits_used: 1 }).category).toBe(
      'Unknown / Not Verified (charged)',
    );
    expect(withCategory({ details: { primary_label: 'not_verified', tags: [] } }).category).toBe(
      'Unknown / Not Verified (refunded)',
    );
  });
});
