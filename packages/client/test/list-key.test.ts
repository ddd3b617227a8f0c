import { listFingerprint } from '../src/index';

describe('listFingerprint', () => {
  it('names a list by its addresses (any order, any case) and its name, so a rerun finds the jobs it made', () => {
    const a = listFingerprint(['a@x.com', 'B@y.com'], 'May');
    expect(listFingerprint(['b@y.com', 'A@X.COM'], 'May')).toBe(a);
    expect(listFingerprint(['a@x.com', 'B@y.com'], 'June')).not.toBe(a);
    expect(listFingerprint(['a@x.com'], 'May')).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{32}$/);
  });
});
