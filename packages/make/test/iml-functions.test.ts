/**
 * The custom IML functions: their own *.test.js files run as Make's runner runs them, Make's limits
 * (size, what JavaScript they may use), and agreement with the client, which they re-implement
 * because a Make function cannot import it.
 */
import { randomBytes } from 'node:crypto';
import { categorize, withCategory, verifyWebhook, signWebhook, WebhookVerificationError } from '@evf/client';
import { components, readText } from './support/app-files';
import { loadImlFunctions, runFunctionTests } from './support/iml-functions';

const fns = loadImlFunctions();

describe('custom IML functions, as Make runs them', () => {
  const names = components('function').map(([name]) => name);

  it.each(names)('%s passes its own Make test file', (name) => {
    const outcomes = runFunctionTests(name);
    expect(outcomes.length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => !o.passed)).toEqual([]);
  });

  it.each(names)('%s fits Make limits and uses only built-ins and Buffer', (name) => {
    const meta = components('function').find(([n]) => n === name)![1];
    const code = readText(meta.codeFiles.code!);
    // Make's limit on a custom function's code.
    expect(code.length).toBeLessThanOrEqual(5000);
    expect(code.trim().startsWith(`function ${name}(`)).toBe(true);
    const withoutComments = code.replace(/\/\/.*$/gm, '');
    expect(withoutComments).not.toMatch(/\brequire\s*\(|\bimport\b|\bprocess\.|\bglobalThis\b|\bsetTimeout\b|\bcrypto\./);
  });

  it('a failing assertion in a Make test file is reported, not swallowed', () => {
    const outcomes = runFunctionTests(
      'evfCategorize',
      "it('wrong on purpose', function () { assert.strictEqual(evfCategorize({ primary_label: 'valid' }).group, 'risky'); });",
    );
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.passed).toBe(false);
    expect(outcomes[0]!.error).toMatch(/safe_to_send/);
  });
});

const LABELS: unknown[] = ['valid', 'invalid', 'catch_all', 'inbox_full', 'disabled', 'unknown', 'not_verified', 'brand_new', '', undefined, null, 7, 'constructor', 'VALID'];
const TAGS = ['spam_trap', 'disposable', 'role', 'other'];

/** Every ordered selection of tags, so both the set and the order are covered. */
function tagLists(): string[][] {
  const out: string[][] = [[]];
  const grow = (prefix: string[]) => {
    for (const t of TAGS) {
      if (prefix.includes(t)) continue;
      const next = [...prefix, t];
      out.push(next);
      grow(next);
    }
  };
  grow([]);
  return out;
}

describe('evfCategorize and evfWithCategory agree with the client', () => {
  const lists = tagLists();

  it(`agree on every primary_label x tag combination (${LABELS.length} labels x ${lists.length} ordered tag lists)`, () => {
    let compared = 0;
    for (const label of LABELS) {
      for (const list of lists) {
        const details = { primary_label: label, tags: list.map((l, i) => ({ label: l, confidence: 0.5 + i / 10 })) };
        const theirs = categorize(details as never);
        const ours = (fns.evfCategorize as (d: unknown) => Record<string, unknown>)(details);
        expect({ ...ours }).toEqual({ category: theirs.category, group: theirs.group, safe_to_send: theirs.safeToSend });
        compared++;
      }
    }
    expect(compared).toBe(LABELS.length * lists.length);
  });

  it('agree on odd details: missing, null, tags that are not a list, null tags', () => {
    const odd: unknown[] = [undefined, null, {}, { tags: null }, { tags: 'role' }, { tags: [null, { label: 'role' }] }, { primary_label: 'valid', tags: [{}] }];
    for (const details of odd) {
      const theirs = categorize(details as never);
      const ours = (fns.evfCategorize as (d: unknown) => Record<string, unknown>)(details);
      expect({ ...ours }).toEqual({ category: theirs.category, group: theirs.group, safe_to_send: theirs.safeToSend });
    }
  });

  it('evfWithCategory returns the same row as withCategory', () => {
    for (const label of LABELS) {
      const row = { email: 'a@example.com', status: 'valid', valid: true, score: 0.9, reason: 'r', details: { primary_label: label, tags: [{ label: 'role', confidence: 1 }] } };
      const ours = JSON.parse(JSON.stringify((fns.evfWithCategory as (r: unknown) => unknown)(row)));
      expect(ours).toEqual(JSON.parse(JSON.stringify(withCategory(row as never))));
    }
  });
});

describe('evfVerifyWebhook agrees with the client verifier on deliveries with compact JSON bodies', () => {
  const secret = 'whsec_' + randomBytes(12).toString('hex');
  const body = {
    event: 'job.completed', job_id: 'job_' + randomBytes(4).toString('hex'), status: 'completed', total_emails: 2, processed_emails: 2,
    verdicts: { valid: 1, invalid: 1, catch_all: 0, risky: 0, role_based: 0, disposable: 0, unknown: 0 },
    created_at: '2026-01-01T00:00:00Z', completed_at: '2026-01-01T00:01:00Z', results_url: '/v1/jobs/x/results',
  };
  const nowMs = 1_767_225_660_000;
  const ts = Math.floor(nowMs / 1000);
  const raw = JSON.stringify(body);
  const sig = signWebhook({ rawBody: raw, secret, timestamp: ts });
  const cases: { name: string; headers: Record<string, string>; raw: string; secrets: string[]; now: number }[] = [
    { name: 'genuine', headers: { 'X-Service-Signature': sig, 'X-Service-Timestamp': String(ts) }, raw, secrets: [secret], now: nowMs },
    { name: 'rotated: old and new secret', headers: { 'x-service-signature': sig, 'x-service-timestamp': String(ts) }, raw, secrets: ['whsec_new', secret], now: nowMs },
    { name: 'wrong secret', headers: { 'x-service-signature': sig, 'x-service-timestamp': String(ts) }, raw, secrets: ['whsec_wrong'], now: nowMs },
    { name: 'tampered body', headers: { 'x-service-signature': sig, 'x-service-timestamp': String(ts) }, raw: raw.replace('"total_emails":2', '"total_emails":3'), secrets: [secret], now: nowMs },
    { name: 'tampered timestamp', headers: { 'x-service-signature': sig, 'x-service-timestamp': String(ts + 1) }, raw, secrets: [secret], now: nowMs },
    { name: 'stale', headers: { 'x-service-signature': sig, 'x-service-timestamp': String(ts) }, raw, secrets: [secret], now: nowMs + 301_000 },
    { name: 'future', headers: { 'x-service-signature': sig, 'x-service-timestamp': String(ts) }, raw, secrets: [secret], now: nowMs - 301_000 },
    { name: 'upper case', headers: { 'x-service-signature': 'v1=' + sig.slice(3).toUpperCase(), 'x-service-timestamp': String(ts) }, raw, secrets: [secret], now: nowMs },
    { name: 'several signatures', headers: { 'x-service-signature': `v1=${'0'.repeat(64)},${sig}`, 'x-service-timestamp': String(ts) }, raw, secrets: [secret], now: nowMs },
    { name: 'missing signature', headers: { 'x-service-timestamp': String(ts) }, raw, secrets: [secret], now: nowMs },
    { name: 'malformed signature', headers: { 'x-service-signature': 'sha256=abc', 'x-service-timestamp': String(ts) }, raw, secrets: [secret], now: nowMs },
    { name: 'missing timestamp', headers: { 'x-service-signature': sig }, raw, secrets: [secret], now: nowMs },
    { name: 'no secret', headers: { 'x-service-signature': sig, 'x-service-timestamp': String(ts) }, raw, secrets: [], now: nowMs },
  ];

  it.each(cases)('$name', (c) => {
    let expected = 'ok';
    try {
      verifyWebhook({ rawBody: c.raw, headers: c.headers, secrets: c.secrets, now: () => c.now });
    } catch (err) {
      expect(err).toBeInstanceOf(WebhookVerificationError);
      expected = (err as WebhookVerificationError).code;
    }
    // Make sees the parsed body; the function rebuilds the signed text from it.
    const ours = (fns.evfVerifyWebhook as (...a: unknown[]) => unknown)(c.headers, JSON.parse(c.raw), c.secrets.join(','), new Date(c.now));
    expect(ours).toBe(expected);
  });

  it('computes HMAC-SHA256 like node:crypto for keys and bodies of every block-boundary length', () => {
    for (const len of [0, 1, 40, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000]) {
      for (const key of ['k', 'k'.repeat(64), 'k'.repeat(65), 'ключ-🔑']) {
        const b = { event: 'job.failed', job_id: 'j' + 'é'.repeat(len), error: 'x' };
        const rawBody = JSON.stringify(b);
        const s = signWebhook({ rawBody, secret: key, timestamp: ts });
        const r = (fns.evfVerifyWebhook as (...a: unknown[]) => unknown)({ 'x-service-signature': s, 'x-service-timestamp': String(ts) }, b, key, nowMs);
        // Keys with spaces or commas are split as a rotation list; none of these have any.
        expect(r).toBe('ok');
      }
    }
  });
});
