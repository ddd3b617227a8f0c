/**
 * A row sharer changes memory, never values: every row comes out equal to what went in, equal nested
 * parts are one frozen object, and the row itself stays writable.
 */
import fc from 'fast-check';
import { createRowSharer, type ResultRow } from '@evf/client';

function row(
  email: string,
  domain: string,
  labelReasons = ['Mail server accepted the recipient'],
): ResultRow {
  return {
    email,
    status: 'valid',
    valid: true,
    score: 0.93,
    reason: 'Mailbox exists and accepts mail',
    details: { primary_label: 'valid', tags: [], label_reasons: labelReasons, domain, smtp_checked: true },
  } as ResultRow;
}

describe('createRowSharer', () => {
  it('gives equal parts of different rows as one object, and keeps every value', () => {
    const share = createRowSharer();
    const a = share(row('a@example.com', 'example.com'));
    const b = share(row('b@example.com', 'example.com'));
    const c = share(row('c@other.example', 'other.example'));
    expect(a).toEqual(row('a@example.com', 'example.com'));
    expect(b.details).toBe(a.details);
    expect(c.details).not.toBe(a.details);
    expect(c.details!.label_reasons).toBe(a.details!.label_reasons);
    expect(c.details!.tags).toBe(a.details!.tags);
  });

  it('freezes shared parts, so changing one row in place fails instead of changing them all', () => {
    const share = createRowSharer();
    const a = share(row('a@example.com', 'example.com'));
    const b = share(row('b@example.com', 'example.com'));
    expect(() => {
      (a.details!.label_reasons as string[]).push('changed');
    }).toThrow(TypeError);
    expect(() => {
      (a.details as unknown as { domain: string }).domain = 'changed.example';
    }).toThrow(TypeError);
    expect(b.details!.domain).toBe('example.com');
    // The row itself is the caller's: fields can be added and replaced.
    (a as ResultRow & { note?: string }).note = 'kept';
    a.details = { ...a.details!, domain: 'mine.example' };
    expect(b.details!.domain).toBe('example.com');
  });

  it('stops remembering new parts past its limit, still giving them whole', () => {
    const share = createRowSharer({ maxRemembered: 3 }); // tags, label_reasons and the first domain's details
    const first = [share(row('a@d1.example', 'd1.example')), share(row('b@d1.example', 'd1.example'))];
    expect(first[1]!.details).toBe(first[0]!.details);
    const later = [share(row('a@d9.example', 'd9.example')), share(row('b@d9.example', 'd9.example'))];
    expect(later[0]).toEqual(row('a@d9.example', 'd9.example'));
    expect(later[1]!.details).not.toBe(later[0]!.details);
    expect(later[1]!.details).toEqual(later[0]!.details);
  });

  it('returns rows equal to any JSON that came in (300 random rows)', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.double({ noNaN: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.string(), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    const share = createRowSharer({ maxRemembered: 50 });
    fc.assert(
      fc.property(fc.dictionary(fc.string(), json, { maxKeys: 6 }), (input) => {
        const expected = structuredClone(input);
        expect(share(structuredClone(input))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
