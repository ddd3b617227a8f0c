import {
  verifyWebhook,
  signWebhook,
  buildWebhookDelivery,
  assertWebhookSecret,
  type WebhookBody,
} from '@evf/client';

describe('signWebhook / verifyWebhook round trip', () => {
  const body: WebhookBody = {
    event: 'job.completed',
    job_id: 'job_1',
    status: 'completed',
    total_emails: 2,
    processed_emails: 2,
    verdicts: { valid: 1, invalid: 1, catch_all: 0, risky: 0, role_based: 0, disposable: 0, unknown: 0 },
    created_at: '2026-01-15T10:00:00Z',
    completed_at: '2026-01-15T10:01:00Z',
    results_url: '/v1/jobs/job_1/results',
  };
  const secret = 'whsec_roundtrip_secret';
  const ts = 1_768_471_200;

  test('a built delivery verifies, headers in any case and with Zapier Http- prefixes', () => {
    const d = buildWebhookDelivery({ body, secret, timestamp: ts });
    expect(d.headers['X-Service-Signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    const zapierStyle = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [`Http-${k}`, v]));
    const got = verifyWebhook({
      rawBody: d.rawBody,
      headers: zapierStyle,
      secrets: secret,
      now: () => ts * 1000,
    });
    expect(got).toEqual({ event: 'job.completed', jobId: 'job_1', timestamp: ts, body });
    const lower = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(
      verifyWebhook({
        rawBody: Buffer.from(d.rawBody),
        headers: lower,
        secrets: [secret],
        now: () => ts * 1000,
      }).jobId,
    ).toBe('job_1');
  });

  test('the signature is HMAC-SHA256 over "<ts>.<raw body>"', () => {
    const { createHmac } = require('node:crypto');
    const expected = createHmac('sha256', secret).update(`${ts}.{"a":1}`).digest('hex');
    expect(signWebhook({ rawBody: '{"a":1}', secret, timestamp: ts })).toBe(`v1=${expected}`);
  });

  const failing: Array<
    [string, (d: { rawBody: string; headers: Record<string, string> }) => void, string, number?, string[]?]
  > = [
    [
      'tampered body',
      (d) => (d.rawBody = d.rawBody.replace('"total_emails":2', '"total_emails":3')),
      'signature_mismatch',
    ],
    ['tampered timestamp', (d) => (d.headers['X-Service-Timestamp'] = String(ts - 1)), 'signature_mismatch'],
    ['wrong secret', () => undefined, 'signature_mismatch', 0, ['whsec_other']],
    ['stale by 301 s', () => undefined, 'timestamp_too_old', 301],
    ['301 s in the future', () => undefined, 'timestamp_in_future', -301],
    ['missing signature', (d) => delete d.headers['X-Service-Signature'], 'missing_signature'],
    ['missing timestamp', (d) => delete d.headers['X-Service-Timestamp'], 'missing_timestamp'],
    ['malformed timestamp', (d) => (d.headers['X-Service-Timestamp'] = '12abc'), 'malformed_timestamp'],
    ['malformed header', (d) => (d.headers['X-Service-Signature'] = 'sha256=abc'), 'malformed_signature'],
    [
      'upper-case hex',
      (d) =>
        (d.headers['X-Service-Signature'] = d.headers['X-Service-Signature']!.toUpperCase().replace(
          'V1=',
          'v1=',
        )),
      'malformed_signature',
    ],
  ];
  test.each(failing)('%s is rejected', (_n, mutate, code, skew = 0, secrets = [secret]) => {
    const d = buildWebhookDelivery({ body, secret, timestamp: ts });
    mutate(d);
    expect(() =>
      verifyWebhook({ rawBody: d.rawBody, headers: d.headers, secrets, now: () => (ts + skew) * 1000 }),
    ).toThrow(expect.objectContaining({ code }));
  });

  test('exactly 300 s old is still accepted; tolerance is configurable', () => {
    const d = buildWebhookDelivery({ body, secret, timestamp: ts });
    expect(verifyWebhook({ ...d, secrets: secret, now: () => (ts + 300) * 1000 }).jobId).toBe('job_1');
    expect(() =>
      verifyWebhook({ ...d, secrets: secret, now: () => (ts + 100) * 1000, toleranceSeconds: 60 }),
    ).toThrow(/too old/);
  });

  test('rotation: either the new or the old secret is accepted', () => {
    const d = buildWebhookDelivery({ body, secret: 'whsec_old', timestamp: ts });
    expect(verifyWebhook({ ...d, secrets: ['whsec_new', 'whsec_old'], now: () => ts * 1000 }).jobId).toBe(
      'job_1',
    );
  });

  test('no secret configured is its own failure, and errors never contain the secret', () => {
    const d = buildWebhookDelivery({ body, secret, timestamp: ts });
    expect(() => verifyWebhook({ ...d, secrets: [], now: () => ts * 1000 })).toThrow(
      expect.objectContaining({ code: 'no_secret' }),
    );
    try {
      verifyWebhook({ ...d, secrets: ['whsec_wrong_one'], now: () => ts * 1000 });
    } catch (e) {
      expect(String((e as Error).message)).not.toContain('whsec_');
    }
  });
});

describe('assertWebhookSecret: the slips a paste makes, told apart before any message arrives', () => {
  it.each([
    ['the API key in its place', 'evf_live_abc123', 'api_key'],
    ['no prefix', 'abc123', 'prefix'],
    ['the prefix alone', 'whsec_', 'prefix'],
    ['a secret pasted twice', 'whsec_abc123whsec_abc123', 'pasted_twice'],
  ])('refuses %s', (_name, secret, reason) => {
    expect(() => assertWebhookSecret(secret)).toThrow(
      expect.objectContaining({ field: 'webhook_secret', rule: reason }),
    );
  });

  it("accepts a well-formed secret (whether it is the account's only a signed message can tell)", () => {
    expect(() => assertWebhookSecret('whsec_abc123')).not.toThrow();
  });
});
