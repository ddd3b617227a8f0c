import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from '@evf/contract';

import type { WebhookVector as Vector } from '@evf/contract/test-vectors';

const DIR = join(__dirname, '../../shared/test-vectors');
const FILE = join(DIR, 'webhook-vectors.json');
const REASONS = [
  'missing_signature',
  'malformed_signature',
  'missing_timestamp',
  'malformed_timestamp',
  'timestamp_too_old',
  'timestamp_in_future',
  'signature_mismatch',
  'malformed_body',
];

// Read from the file itself (not the typed export): this suite checks the file as generated.
const vectors: Vector[] = JSON.parse(readFileSync(FILE, 'utf8'));
const header = (v: Vector, name: string) =>
  Object.entries(v.headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
// Cross-checks openssl's signatures with Node's HMAC: which held secret, if any, signed this delivery.
const signedByHeldSecret = (v: Vector) => {
  const ts = header(v, 'X-Service-Timestamp');
  const entries = (header(v, 'X-Service-Signature') ?? '').split(',').map((e) => e.trim());
  return (
    ts !== undefined &&
    v.secrets.some((s) =>
      entries.includes(`v1=${createHmac('sha256', s).update(`${ts}.${v.rawBody}`).digest('hex')}`),
    )
  );
};

describe('webhook test vectors', () => {
  it('are well-formed', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(30);
    expect(new Set(vectors.map((v) => v.name)).size).toBe(vectors.length);
    for (const v of vectors) {
      expect(Object.keys(v).sort()).toEqual(
        [
          'description',
          'expect',
          'headers',
          'name',
          'now',
          'rawBody',
          'secrets',
          ...(v.reason ? ['reason'] : []),
        ].sort(),
      );
      expect(v.secrets.length).toBeGreaterThan(0);
      for (const s of v.secrets) expect(s).toMatch(/^whsec_vectors_/);
      expect(Number.isInteger(v.now)).toBe(true);
      if (v.expect === 'reject') expect(REASONS).toContain(v.reason);
      else expect(v.expect).toBe('accept');
    }
  });

  it('cover every reject reason and the required scenarios', () => {
    expect(new Set(vectors.map((v) => v.reason).filter(Boolean))).toEqual(new Set(REASONS));
    for (const name of [
      'valid_completed',
      'valid_failed',
      'rotation_signed_with_new_secret',
      'rotation_signed_with_old_secret',
      'tampered_body_one_byte',
      'tampered_timestamp',
      'wrong_secret',
      'stale_301s',
      'stale_3600s',
      'future_301s',
      'edge_exactly_300s_old',
      'missing_signature_header',
      'missing_timestamp_header',
      'signature_upper_case_hex',
      'multiple_signatures_bad_then_good',
      'body_reserialized_whitespace',
      'non_json_body_signed',
    ]) {
      expect(vectors.map((v) => v.name)).toContain(name);
    }
  });

  it('accepted deliveries are signed by a held secret (checked with Node HMAC), inside 300 s, with a contract body', () => {
    for (const v of vectors.filter((x) => x.expect === 'accept')) {
      expect([v.name, signedByHeldSecret(v)]).toEqual([v.name, true]);
      expect(Math.abs(v.now - Number(header(v, 'X-Service-Timestamp')))).toBeLessThanOrEqual(300);
      const body = JSON.parse(v.rawBody);
      expect([v.name, validate('WebhookBody', body).errors]).toEqual([v.name, []]);
      expect(header(v, 'X-Service-Event')).toBe(body.event);
      expect(header(v, 'X-Service-Job')).toBe(body.job_id);
      expect(header(v, 'User-Agent')).toBe('Service-Webhook/1');
    }
  });

  it('each reject is wrong in one way only', () => {
    for (const v of vectors.filter((x) => x.expect === 'reject')) {
      const ts = header(v, 'X-Service-Timestamp');
      const skew = ts === undefined ? 0 : v.now - Number(ts);
      switch (v.reason) {
        case 'signature_mismatch':
          expect([v.name, signedByHeldSecret(v), Math.abs(skew) <= 300]).toEqual([v.name, false, true]);
          break;
        case 'timestamp_too_old':
          expect([v.name, signedByHeldSecret(v), skew > 300]).toEqual([v.name, true, true]);
          break;
        case 'timestamp_in_future':
          expect([v.name, signedByHeldSecret(v), skew < -300]).toEqual([v.name, true, true]);
          break;
        case 'malformed_body':
          expect([v.name, signedByHeldSecret(v), Math.abs(skew) <= 300]).toEqual([v.name, true, true]);
          expect(() => {
            const parsed = JSON.parse(v.rawBody);
            if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
              throw new Error('not an object');
          }).toThrow();
          break;
        case 'malformed_timestamp':
          expect([v.name, signedByHeldSecret(v), /^\d+$/.test(ts ?? '')]).toEqual([v.name, true, false]);
          break;
        case 'missing_timestamp':
          expect(ts).toBeUndefined();
          break;
        case 'missing_signature':
          expect(header(v, 'X-Service-Signature')).toBeUndefined();
          break;
        case 'malformed_signature': {
          const entries = (header(v, 'X-Service-Signature') ?? 'absent').split(',').map((e) => e.trim());
          const v1 = entries.filter((e) => e.startsWith('v1='));
          expect([v.name, v1.length === 0 || v1.some((e) => !/^v1=[0-9a-f]{64}$/.test(e))]).toEqual([
            v.name,
            true,
          ]);
          break;
        }
        default:
          throw new Error(`unexpected reason ${v.reason}`);
      }
    }
  });
});
