/**
 * The bad-input table at the client level, against a real sandbox: each row must end in an InputError
 * naming the field, with nothing sent (the sandbox saw no request and the client made no attempt) and
 * the credit ledger untouched.
 */
import { EmailVerificationClient, InputError, type ResultsPageParams } from '@evf/client';
import { createClient, fetchTransport, nodeRuntime } from '@evf/client/node';
import type { Sandbox } from '@evf/sandbox';
import { BAD_INPUTS, BAD_WEBHOOK_URLS, MALFORMED_ADDRESSES, type BadInputRow } from '../support/bad-inputs';
import { clientFor, startFastSandbox } from '../support/sandbox';
import { assertNoSecrets, installSecretGuard } from '../support/secret-guard';

installSecretGuard();

let sb: Sandbox;
beforeAll(async () => {
  // Spec rules on the sandbox too: were anything to slip through the client, it would be refused, not charged.
  // No DNS: the submission check (the first look-up) finds a public address, as the spec asks of a
  // webhook host; every later look-up (a delivery's re-check) fails, so each attempt is refused before
  // connecting and the control's webhook URL neither waits on nor reaches the network.
  let lookups = 0;
  sb = await startFastSandbox({
    allowInsecureWebhooks: false,
    resolver: async () => {
      if (++lookups === 1) return ['93.184.216.34'];
      throw new Error('no DNS in this test');
    },
  });
});
afterAll(() => sb.close());

/** Runs one row through the client the way a caller would; resolves with what the client threw. */
async function run(row: BadInputRow, attempts: string[]): Promise<unknown> {
  const i = row.input as Record<string, any>;
  // A user's client with the real service's webhook_url rules: the client relaxes them for loopback
  // receivers when its base URL is on loopback (the local sandbox), so they are pinned back here.
  const make = (apiKey: unknown = sb.apiKey) =>
    new EmailVerificationClient({
      apiKey: apiKey as string,
      baseUrl: sb.baseUrl,
      transport: fetchTransport,
      runtime: nodeRuntime,
      webhookUrl: { allowLoopbackHttp: false },
      onRequest: ({ method, path }) => attempts.push(`${method} ${path}`),
    });
  try {
    switch (row.operation) {
      case 'verify_single':
        await make().verifySingle({ email: i.email });
        break;
      case 'submit_bulk':
        await make().submitBulk({
          emails: i.emails,
          name: i.name,
          webhook_url: i.webhook_url,
          priority: i.priority,
        });
        break;
      case 'submit_list':
        await make().submitList({
          emails: i.emails,
          name: i.name,
          webhook_url: i.webhook_url,
          priority: i.priority,
        });
        break;
      case 'results': {
        const params: ResultsPageParams = { page: i.page, per_page: i.per_page };
        await make().getResultsPage(i.job_id, params);
        break;
      }
      case 'list_jobs':
        await make().listJobs({ limit: i.limit, offset: i.offset });
        break;
      case 'connection':
        // Both ways a Node user makes a client; the first call is where a missing key would show.
        await createClient({
          apiKey: i.api_key,
          baseUrl: sb.baseUrl,
          onRequest: ({ method, path }) => attempts.push(`${method} ${path}`),
        }).getCredits();
        break;
    }
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the shared table is complete', () => {
  const count = (op: string, field: string) =>
    BAD_INPUTS.filter((r) => r.operation === op && r.field === field).length;
  test('has at least 15 malformed addresses, empty and oversized lists, a long name, every webhook_url class and the paging limits', () => {
    expect(MALFORMED_ADDRESSES.length).toBeGreaterThanOrEqual(15);
    expect(BAD_INPUTS.some((r) => r.name === '0 items' && r.operation === 'submit_bulk')).toBe(true);
    expect(BAD_INPUTS.some((r) => r.name === '50,001 items in one call')).toBe(true);
    expect(count('submit_bulk', 'name')).toBe(1);
    const urls = BAD_WEBHOOK_URLS.map((b) => b.url);
    for (const needle of [
      'http://',
      'localhost',
      '127.0.0.1',
      '://10.',
      '://172.16.',
      '://192.168.',
      '://169.254.',
      '[::1]',
      '[fc00::',
      'user:pass@',
      ':80/',
    ]) {
      expect(urls.some((u) => u.includes(needle))).toBe(true);
    }
    expect(BAD_WEBHOOK_URLS.find((b) => b.rule === 'length')!.url).toHaveLength(2049);
    expect(count('submit_bulk', 'webhook_url')).toBe(BAD_WEBHOOK_URLS.length);
    expect(BAD_INPUTS.filter((r) => r.field === 'per_page').map((r) => r.input.per_page)).toEqual(
      expect.arrayContaining([0, 1001]),
    );
    expect(BAD_INPUTS.some((r) => r.field === 'limit' && r.input.limit === 101)).toBe(true);
    expect(count('connection', 'api_key')).toBeGreaterThanOrEqual(3);
  });

  test('controls: the same operations with good input do reach the sandbox (so "nothing sent" means something)', async () => {
    const { client, attempts } = clientFor(sb);
    const from = sb.requests.length;
    await client.submitBulk({
      emails: ['valid.control@example.com'],
      name: 'n'.repeat(255),
      webhook_url: 'https://hooks.example.com:1024/evf/done',
    });
    await client.getResultsPage('job_none', { per_page: 1000 }).catch(() => undefined);
    await client.listJobs({ limit: 100 });
    expect(attempts).toHaveLength(3);
    expect(sb.requests.length - from).toBe(3);
  });
});

describe.each(['verify_single', 'submit_bulk', 'submit_list', 'results', 'list_jobs', 'connection'] as const)(
  '%s',
  (operation) => {
    const rows = BAD_INPUTS.filter((r) => r.operation === operation);
    test.each(rows.map((r) => [r.name, r] as const))(
      '%s: InputError naming the field, nothing sent, ledger unchanged',
      async (_name, row) => {
        const requestsBefore = sb.requests.length;
        const ledgerBefore = sb.ledger();
        const attempts: string[] = [];
        const error = await run(row, attempts);
        expect(error).toBeInstanceOf(InputError);
        const e = error as InputError;
        expect(e.field).toBe(row.field);
        if (row.rule) expect(e.rule).toBe(row.rule);
        expect(e.message.length).toBeGreaterThan(20);
        expect(e.message).not.toMatch(/undefined|\[object Object\]|NaN/);
        assertNoSecrets(e, 'the InputError');
        expect(attempts).toEqual([]);
        expect(sb.requests.length).toBe(requestsBefore);
        expect(sb.ledger()).toEqual(ledgerBefore);
      },
    );
  },
);

describe('the loopback exception for webhook receivers never reaches the real service', () => {
  const loopbackRows = BAD_INPUTS.filter(
    (r) =>
      r.operation === 'submit_bulk' &&
      r.field === 'webhook_url' &&
      /localhost|127\.0\.0\.1|\[::1\]|::ffff:127/.test(String(r.input.webhook_url)),
  );
  test.each(loopbackRows.map((r) => [r.name, r] as const))(
    '%s: refused by default when the base URL is not on loopback',
    async (_name, row) => {
      const sent: string[] = [];
      const client = new EmailVerificationClient({
        apiKey: 'evf_reliability_offline_key_0001',
        baseUrl: 'https://api.evf.invalid/api',
        // Never called when the rule holds; fails loudly instead of touching the network if it is.
        transport: async (req) => {
          sent.push(req.url);
          throw new Error('no request may be sent');
        },
        runtime: nodeRuntime,
      });
      const error = await client
        .submitBulk({ emails: ['valid@example.com'], webhook_url: row.input.webhook_url as string })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).field).toBe('webhook_url');
      expect(sent).toEqual([]);
    },
  );
  test('and plain http to loopback too', async () => {
    const client = new EmailVerificationClient({
      apiKey: 'evf_reliability_offline_key_0001',
      baseUrl: 'https://api.evf.invalid/api',
      transport: async () => ({ status: 500, headers: {}, body: '' }),
      runtime: nodeRuntime,
    });
    await expect(
      client.submitBulk({ emails: ['valid@example.com'], webhook_url: 'http://127.0.0.1:8080/hook' }),
    ).rejects.toMatchObject({ field: 'webhook_url' });
  });
});
