import { categorize, type Job, type ResultRow } from '@evf/client';
import type { Sandbox } from '@evf/sandbox';
import { client, eventually, readAll, start, waitTerminal } from './helpers';

function expectCountersAgree(job: Job, rows: ResultRow[]): void {
  expect(job.processed).toBe(rows.length);
  const verdictSum = Object.values(job.verdicts).reduce((a, b) => a + b, 0);
  const bucketSum = Object.values(job.buckets).reduce((a, b) => a + b, 0);
  expect(verdictSum).toBe(rows.length);
  expect(bucketSum).toBe(rows.length);
  const groups = { safe_to_send: 0, risky: 0, invalid: 0 };
  for (const r of rows) groups[categorize(r.details).group] += 1;
  expect(job.buckets).toEqual(groups);
  expect(job.verdicts.unknown).toBe(
    rows.filter((r) => ['unknown', 'not_verified'].includes(r.details.primary_label)).length,
  );
  expect(job.valid_count).toBe(rows.filter((r) => r.status === 'valid').length);
  expect(job.invalid_count).toBe(rows.filter((r) => r.status === 'invalid').length);
  expect(job.progress_percent).toBeCloseTo((rows.length / job.total_emails) * 100, 1);
}

describe('sandbox conformance: bulk submission rules, jobs and result pages', () => {
  let sb: Sandbox;
  let call: ReturnType<typeof client>;
  beforeAll(async () => {
    sb = await start({ rowsPerSecond: 500, resolver: async () => ['93.184.216.34'] });
    call = client(sb);
  });
  afterAll(() => sb.close());

  const BAD_BODIES: Array<[string, unknown, string, string]> = [
    ['no emails', {}, 'emails', 'required'],
    ['emails not a list', { emails: 'a@example.com' }, 'emails', 'required'],
    ['0 items', { emails: [] }, 'emails', 'min_items'],
    [
      '50,001 items',
      { emails: Array.from({ length: 50_001 }, (_, i) => `valid${i}@example.com`) },
      'emails',
      'max_items',
    ],
    [
      'name of 256 characters',
      { emails: ['valid@example.com'], name: 'n'.repeat(256) },
      'name',
      'max_length',
    ],
    [
      'webhook over http',
      { emails: ['valid@example.com'], webhook_url: 'http://hooks.example.com/x' },
      'webhook_url',
      'https',
    ],
    [
      'webhook on localhost',
      { emails: ['valid@example.com'], webhook_url: 'https://localhost/x' },
      'webhook_url',
      'public_host',
    ],
    [
      'webhook on 127.0.0.1',
      { emails: ['valid@example.com'], webhook_url: 'https://127.0.0.1/x' },
      'webhook_url',
      'public_host',
    ],
    [
      'webhook on 10.x',
      { emails: ['valid@example.com'], webhook_url: 'https://10.1.2.3/x' },
      'webhook_url',
      'public_host',
    ],
    [
      'webhook on 172.16.x',
      { emails: ['valid@example.com'], webhook_url: 'https://172.16.0.9/x' },
      'webhook_url',
      'public_host',
    ],
    [
      'webhook on 192.168.x',
      { emails: ['valid@example.com'], webhook_url: 'https://192.168.1.1/x' },
      'webhook_url',
      'public_host',
    ],
    [
      'webhook on 169.254.x',
      { emails: ['valid@example.com'], webhook_url: 'https://169.254.169.254/x' },
      'webhook_url',
      'public_host',
    ],
    [
      'webhook on [::1]',
      { emails: ['valid@example.com'], webhook_url: 'https://[::1]/x' },
      'webhook_url',
      'public_host',
    ],
    [
      'webhook on fc00::/7',
      { emails: ['valid@example.com'], webhook_url: 'https://[fd12::1]/x' },
      'webhook_url',
      'public_host',
    ],
    [
      'webhook on port 80',
      { emails: ['valid@example.com'], webhook_url: 'https://hooks.example.com:80/x' },
      'webhook_url',
      'port',
    ],
    [
      'webhook with user:pass',
      { emails: ['valid@example.com'], webhook_url: 'https://u:p@hooks.example.com/x' },
      'webhook_url',
      'credentials',
    ],
    [
      'webhook of 2,049 characters',
      { emails: ['valid@example.com'], webhook_url: `https://hooks.example.com/${'a'.repeat(2049 - 26)}` },
      'webhook_url',
      'length',
    ],
    ['unknown priority', { emails: ['valid@example.com'], priority: 'asap' }, 'priority', 'enum'],
    ['check_smtp not boolean', { emails: ['valid@example.com'], check_smtp: 'yes' }, 'check_smtp', 'type'],
  ];

  test.each(BAD_BODIES)(
    '422 for %s, naming the field and rule; nothing charged',
    async (_label, body, field, rule) => {
      const before = sb.ledger();
      const r = await call('POST', '/v1/verify/bulk', { body });
      expect(r.status).toBe(422);
      expect(r.body.error.field).toBe(field);
      expect(r.body.error.rule).toBe(rule);
      expect(sb.ledger()).toEqual(before);
    },
  );

  test('webhook ports 443 and >= 1024 are accepted', async () => {
    for (const url of ['https://hooks.example.com:443/x', 'https://hooks.example.com:8443/x']) {
      expect(
        (await call('POST', '/v1/verify/bulk', { body: { emails: ['valid@example.com'], webhook_url: url } }))
          .status,
      ).toBe(202);
    }
  });

  test('a host that resolves to a private address at submission is refused', async () => {
    const sb2 = await start({ resolver: async () => ['10.0.0.7'] });
    try {
      const r = await client(sb2)('POST', '/v1/verify/bulk', {
        body: { emails: ['valid@example.com'], webhook_url: 'https://hooks.example.com/x' },
      });
      expect(r.status).toBe(422);
      expect(r.body.error.rule).toBe('resolves_public');
      expect(sb2.ledger().charged).toBe(0);
    } finally {
      await sb2.close();
    }
  });

  test('a host that does not resolve at submission is refused (422 resolves_public), nothing charged', async () => {
    const sb2 = await start({
      resolver: async (host) => {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      },
    });
    try {
      const r = await client(sb2)('POST', '/v1/verify/bulk', {
        body: { emails: ['valid@example.com'], webhook_url: 'https://hooks.nowhere-at-all.example.com/x' },
      });
      expect(r.status).toBe(422);
      expect(r.body.error.field).toBe('webhook_url');
      expect(r.body.error.rule).toBe('resolves_public');
      expect(r.body.error.message).toContain('does not resolve');
      expect(sb2.ledger().charged).toBe(0);
      const empty = await start({ resolver: async () => [] });
      try {
        const r2 = await client(empty)('POST', '/v1/verify/bulk', {
          body: { emails: ['valid@example.com'], webhook_url: 'https://hooks.example.com/x' },
        });
        expect([r2.status, r2.body.error.rule, empty.ledger().charged]).toEqual([422, 'resolves_public', 0]);
      } finally {
        await empty.close();
      }
    } finally {
      await sb2.close();
    }
  });

  test('the scheme is case-insensitive (RFC 3986 3.1): HTTPS:// is accepted; text that is not an RFC 3986 URL is refused', async () => {
    const ok = await call('POST', '/v1/verify/bulk', {
      body: { emails: ['valid@example.com'], webhook_url: 'HTTPS://hooks.example.com/x' },
    });
    expect(ok.status).toBe(202);
    for (const url of [
      'https:hooks.example.com/x',
      ' https://hooks.example.com/x',
      'https://hooks.example.com/a b',
    ]) {
      const r = await call('POST', '/v1/verify/bulk', {
        body: { emails: ['valid@example.com'], webhook_url: url },
      });
      expect([url, r.status, r.body.error.rule]).toEqual([url, 422, 'syntax']);
    }
  });

  test('one malformed item fails the whole call: the 422 lists every offending item with index and reason, nothing charged', async () => {
    const before = sb.ledger();
    const emails = [
      'valid1@example.com',
      'bad address@example.com',
      'valid2@example.com',
      'no-at-sign',
      7,
      'x@y',
    ];
    const r = await call('POST', '/v1/verify/bulk', { body: { emails } });
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('invalid_emails');
    expect(r.body.error.invalid_emails.map((e: { index: number }) => e.index)).toEqual([1, 3, 4, 5]);
    for (const item of r.body.error.invalid_emails) {
      expect(typeof item.email).toBe('string');
      expect(item.reason.length).toBeGreaterThan(3);
    }
    expect(sb.ledger()).toEqual(before);
    expect(sb.ledger().charged).toBe(before.charged);
  });

  test('job goes queued -> processing -> completed; counters agree with the stored rows at every moment; rows page out while processing', async () => {
    // Real time and a slow rate (1.5 s queued, 2 s processing), so even a loaded machine sees the job
    // queued and then mid-way.
    const slowSb = await start({ timeScale: 1, rowsPerSecond: 300, queueDelayMs: 1500 });
    const call = client(slowSb);
    try {
      const emails = Array.from({ length: 600 }, (_, i) => `user${i}@example.com`);
      const sub = await call('POST', '/v1/verify/bulk', { body: { emails } });
      expect(sub.status).toBe(202);
      const id = sub.body.job_id;
      const first = await call<Job>('GET', `/v1/jobs/${id}`);
      expect(first.body.status).toBe('queued');
      expect(first.body.terminal).toBe(false);
      expect(first.body.processed).toBe(0);
      const seen = new Set<string>();
      let sawProcessing = false;
      for (;;) {
        const job = (await call<Job>('GET', `/v1/jobs/${id}`)).body;
        if (job.status === 'processing') {
          sawProcessing = true;
          // Page 1 while processing: already stored rows are readable.
          const page = await call('GET', `/v1/jobs/${id}/results`, { query: { per_page: 1000 } });
          expect(page.body.status === 'processing' || page.body.status === 'completed').toBe(true);
          expect(page.body.results.length).toBe(page.body.total);
          expect(page.body.results.length).toBeGreaterThanOrEqual(job.processed);
          if (page.body.status === 'processing') expect(page.body.has_more).toBe(false);
          const again = (await call<Job>('GET', `/v1/jobs/${id}`)).body;
          if (again.processed === page.body.results.length) expectCountersAgree(again, page.body.results);
          for (const r of page.body.results) seen.add(r.email);
        }
        if (job.terminal) break;
        await new Promise((r) => setTimeout(r, 15));
      }
      expect(sawProcessing).toBe(true);
      const done = (await call<Job>('GET', `/v1/jobs/${id}`)).body;
      expect(done.status).toBe('completed');
      expect(done.progress_percent).toBe(100);
      expect(done.error).toBeNull();
      expect(Date.parse(done.started_at!)).toBeGreaterThanOrEqual(Date.parse(done.created_at));
      expect(Date.parse(done.completed_at!)).toBeGreaterThanOrEqual(Date.parse(done.started_at!));
      const rows = await readAll(call, id, 70);
      expect(rows.map((r) => r.email)).toEqual(emails);
      expectCountersAgree(done, rows);
      expect(seen.size).toBeGreaterThan(0);
    } finally {
      await slowSb.close();
    }
  });

  test('result pages: default per_page 100, has_more until the last page, empty page past the end, per_page limits', async () => {
    const emails = Array.from({ length: 250 }, (_, i) => `page${i}@example.com`);
    const id = (await call('POST', '/v1/verify/bulk', { body: { emails } })).body.job_id;
    await waitTerminal(call, id);
    const p1 = await call('GET', `/v1/jobs/${id}/results`);
    expect(p1.body).toMatchObject({ page: 1, per_page: 100, total: 250, has_more: true });
    expect(p1.body.results).toHaveLength(100);
    const p3 = await call('GET', `/v1/jobs/${id}/results`, { query: { page: 3 } });
    expect(p3.body.results).toHaveLength(50);
    expect(p3.body.has_more).toBe(false);
    const p4 = await call('GET', `/v1/jobs/${id}/results`, { query: { page: 4 } });
    expect(p4.body.results).toHaveLength(0);
    expect(p4.body.has_more).toBe(false);
    const big = await call('GET', `/v1/jobs/${id}/results`, { query: { per_page: 1000 } });
    expect(big.body.results).toHaveLength(250);
    for (const [q, field] of [
      [{ per_page: 0 }, 'per_page'],
      [{ per_page: 1001 }, 'per_page'],
      [{ page: 0 }, 'page'],
      [{ page: 'x' }, 'page'],
    ] as const) {
      const r = await call('GET', `/v1/jobs/${id}/results`, { query: q });
      expect(r.status).toBe(422);
      expect(r.body.error.field).toBe(field);
    }
    expect((await call('GET', '/v1/jobs/job_doesnotexist/results')).status).toBe(404);
    expect((await call('GET', '/v1/jobs/job_doesnotexist')).status).toBe(404);
  });

  test('GET /v1/jobs: newest first, status filter, limit (default 20, max 100) and offset', async () => {
    const sb2 = await start();
    const c2 = client(sb2);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 25; i++)
        ids.push(
          (await c2('POST', '/v1/verify/bulk', { body: { emails: [`valid${i}@example.com`] } })).body.job_id,
        );
      const list = await c2('GET', '/v1/jobs');
      expect(list.body.limit).toBe(20);
      expect(list.body.offset).toBe(0);
      expect(list.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual(
        ids.slice().reverse().slice(0, 20),
      );
      const page2 = await c2('GET', '/v1/jobs', { query: { limit: 10, offset: 20 } });
      expect(page2.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual(
        ids.slice().reverse().slice(20),
      );
      await eventually(
        async () =>
          (await c2('GET', '/v1/jobs', { query: { status: 'completed', limit: 100 } })).body.jobs.length ===
          25,
      );
      expect((await c2('GET', '/v1/jobs', { query: { status: 'queued' } })).body.jobs).toEqual([]);
      for (const q of [{ limit: 101 }, { limit: 0 }, { offset: -1 }, { status: 'done' }] as Record<
        string,
        string | number
      >[]) {
        const r = await c2('GET', '/v1/jobs', { query: q });
        expect(r.status).toBe(422);
      }
    } finally {
      await sb2.close();
    }
  });
});
