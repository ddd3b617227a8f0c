/**
 * Bad input for every Make operation gets a clear error naming the parameter before any request is
 * sent: Make checks parameters against their spec first. Asserted against a running sandbox: no
 * request arrives and the credit ledger does not move. The declarative patterns that do this are
 * compared with the client's own checks, which a Make app cannot import.
 */
import fc from 'fast-check';
import { checkWebhookUrl, isEmailSyntaxValid } from '@evf/client';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { components, readJsonc } from './harness/app-files';
import { ParamValidationError } from './harness/make-params';
import { runModule, testConnection, type MakeConnection } from './harness/make-runtime';

let sb: Sandbox;
let conn: MakeConnection;

beforeAll(async () => {
  // No DNS: a host that cannot be resolved passes the submission check and every delivery attempt is
  // refused before connecting, so the control's real-looking webhook URL never reaches the network.
  sb = await startSandbox({
    port: 0,
    timeScale: 0.01,
    resolver: async () => {
      throw new Error('no DNS in this test');
    },
  });
  conn = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
});
afterAll(async () => {
  await sb?.close();
});

function patternOf(moduleId: string, name: string, item = false): RegExp {
  const meta = components('module').find(([id]) => id === moduleId)![1];
  const params = readJsonc(meta.codeFiles.mappableParams!) as unknown as {
    name: string;
    spec?: { validate: { pattern: string } };
    validate?: { pattern: string };
  }[];
  // A field may sit in a select option's nested fields (Submit's Array and Text options).
  const all = params.flatMap((x) => [
    x,
    ...((x as { options?: { nested?: typeof params }[] }).options ?? []).flatMap((o) => o.nested ?? []),
  ]);
  const p = all.find((x) => x.name === name)!;
  return new RegExp(item ? p.spec!.validate.pattern : p.validate!.pattern);
}

const MALFORMED = [
  'plainaddress',
  '@no-local.com',
  'no-domain@',
  'two@@example.com',
  'a@b',
  'space in@example.com',
  'a..b@example.com',
  '.a@example.com',
  'a.@example.com',
  'a@-example.com',
  'a@example.c',
  'a@example.123',
  'ä@example.com',
  'a@exam_ple.com',
  'a@example.com,b@example.com',
  'x'.repeat(65) + '@example.com',
  'a@' + 'b'.repeat(64) + '.com',
  '',
];

const BAD_WEBHOOK_URLS: [string, string][] = [
  ['http', 'http://hooks.example.com/x'],
  ['localhost', 'https://localhost/x'],
  ['127.0.0.1', 'https://127.0.0.1/x'],
  ['10.x', 'https://10.1.2.3/x'],
  ['172.16.x', 'https://172.16.0.5/x'],
  ['192.168.x', 'https://192.168.1.1/x'],
  ['169.254.x', 'https://169.254.169.254/latest'],
  ['[::1]', 'https://[::1]/x'],
  ['fc00::/7', 'https://[fd12:3456::1]/x'],
  ['port 80', 'https://hooks.example.com:80/x'],
  ['port 1023', 'https://hooks.example.com:1023/x'],
  ['user:pass@', 'https://user:pass@hooks.example.com/x'],
  ['2,049 characters', 'https://hooks.example.com/' + 'a'.repeat(2049 - 'https://hooks.example.com/'.length)],
];

const GOOD_WEBHOOK_URLS = [
  'https://hook.eu1.make.com/abc123',
  'https://hooks.example.com:443/x',
  'https://hooks.example.com:8443/x?y=1',
  'https://a.b.example.org',
  'https://hooks.example.com:65535/',
];

interface Case {
  operation: string;
  moduleId: string | 'connection';
  input: Record<string, unknown>;
  parameter: string;
  connection?: Partial<MakeConnection>;
}

const cases: Case[] = [
  ...MALFORMED.filter((e) => e !== '').map(
    (email): Case => ({
      operation: `bulk: malformed "${email.slice(0, 30)}"`,
      moduleId: 'submitBulk',
      input: { input_as: 'array', emails: ['valid.ok@example.com', email] },
      parameter: 'Email addresses[2]',
    }),
  ),
  {
    operation: 'bulk: 0 items',
    moduleId: 'submitBulk',
    input: { input_as: 'array', emails: [] },
    parameter: 'Email addresses',
  },
  ...MALFORMED.filter((e) => e !== '' && !/[\s,;]/.test(e)).map(
    (email): Case => ({
      operation: `bulk text: malformed "${email.slice(0, 30)}" among valid ones`,
      moduleId: 'submitBulk',
      input: { input_as: 'text', emails_text: `valid.ok@example.com\n${email}, valid.two@example.com` },
      parameter: 'Address list',
    }),
  ),
  {
    operation: 'bulk text: empty',
    moduleId: 'submitBulk',
    input: { input_as: 'text', emails_text: '' },
    parameter: 'Address list',
  },
  {
    operation: 'bulk text: two addresses run together',
    moduleId: 'submitBulk',
    input: { input_as: 'text', emails_text: 'a@example.comb@example.com' },
    parameter: 'Address list',
  },
  {
    operation: 'bulk text: 50,001 addresses',
    moduleId: 'submitBulk',
    input: {
      input_as: 'text',
      emails_text: Array.from({ length: 50_001 }, (_, i) => `valid.${i}@example.com`).join('\n'),
    },
    parameter: 'Address list',
  },
  {
    operation: 'bulk: 50,001 items',
    moduleId: 'submitBulk',
    input: { input_as: 'array', emails: Array.from({ length: 50_001 }, (_, i) => `valid.${i}@example.com`) },
    parameter: 'Email addresses',
  },
  {
    operation: 'bulk: name of 256 characters',
    moduleId: 'submitBulk',
    input: { input_as: 'array', emails: ['valid.ok@example.com'], name: 'n'.repeat(256) },
    parameter: 'List name',
  },
  {
    operation: 'bulk: priority not offered',
    moduleId: 'submitBulk',
    input: { input_as: 'array', emails: ['valid.ok@example.com'], priority: 'asap' },
    parameter: 'Priority',
  },
  ...BAD_WEBHOOK_URLS.map(
    ([rule, url]): Case => ({
      operation: `bulk: webhook_url ${rule}`,
      moduleId: 'submitBulk',
      input: { input_as: 'array', emails: ['valid.ok@example.com'], webhook_url: url },
      parameter: 'Webhook URL',
    }),
  ),
  {
    operation: 'results: per_page 0',
    moduleId: 'listResults',
    input: { job_id: 'job_x', start_page: 1, per_page: 0 },
    parameter: 'Rows per page',
  },
  {
    operation: 'results: per_page 1001',
    moduleId: 'listResults',
    input: { job_id: 'job_x', start_page: 1, per_page: 1001 },
    parameter: 'Rows per page',
  },
  { operation: 'results: no job', moduleId: 'listResults', input: {}, parameter: 'Job ID' },
  {
    operation: 'jobs: limit 3,201 (past what Make paginates)',
    moduleId: 'listJobs',
    input: { limit: 3201 },
    parameter: 'Limit',
  },
  {
    operation: 'results: limit 3,201 (past what Make paginates)',
    moduleId: 'listResults',
    input: { job_id: 'job_x', start_page: 1, limit: 3201 },
    parameter: 'Limit',
  },
  {
    operation: 'results: start page -1',
    moduleId: 'listResults',
    input: { job_id: 'job_x', start_page: -1 },
    parameter: 'Start at page',
  },
  { operation: 'jobs: limit 0', moduleId: 'listJobs', input: { limit: 0 }, parameter: 'Limit' },
  { operation: 'get job: no job', moduleId: 'getJob', input: {}, parameter: 'Job ID' },
  { operation: 'wait: no job', moduleId: 'waitForJob', input: {}, parameter: 'Job ID' },
  { operation: 'revoke: no key id', moduleId: 'revokeKey', input: {}, parameter: 'Key ID' },
  {
    operation: 'revoke: the key itself instead of its id',
    moduleId: 'revokeKey',
    input: { key_id: 'evf_0123456789abcdef' },
    parameter: 'Key ID',
  },
  {
    operation: 'api call: another host',
    moduleId: 'makeApiCall',
    input: { url: 'https://elsewhere.example/v1/account', method: 'GET' },
    parameter: 'URL',
  },
  {
    operation: 'any module: missing key',
    moduleId: 'getCredits',
    input: {},
    parameter: 'API key',
    connection: { apiKey: '' },
  },
  {
    operation: 'any module: key without evf_',
    moduleId: 'getCredits',
    input: {},
    parameter: 'API key',
    connection: { apiKey: 'sk_live_123' },
  },
  {
    operation: 'connection: missing key',
    moduleId: 'connection',
    input: {},
    parameter: 'API key',
    connection: { apiKey: '' },
  },
  {
    operation: 'connection: key without evf_',
    moduleId: 'connection',
    input: {},
    parameter: 'API key',
    connection: { apiKey: 'abc' },
  },
];

describe('bad input is refused before any request, naming the parameter', () => {
  it.each(cases.map((c) => [c.operation, c] as const))('%s', async (_name, c) => {
    const requestsBefore = sb.requests.length;
    const ledgerBefore = sb.ledger();
    const connection = { ...conn, ...c.connection } as MakeConnection;
    const run =
      c.moduleId === 'connection' ? testConnection(connection) : runModule(c.moduleId, c.input, connection);
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ParamValidationError);
    expect((err as ParamValidationError).parameter).toBe(c.parameter);
    expect((err as Error).message).toContain(c.parameter);
    expect(sb.requests.length).toBe(requestsBefore);
    expect(sb.ledger()).toEqual(ledgerBefore);
  });

  it('the same inputs made valid do reach the service (the checks above are not refusing everything)', async () => {
    const before = sb.requests.length;
    await runModule('verifyEmail', { email: 'valid.ok@example.com' }, conn);
    await runModule('listJobs', { limit: 3200 }, conn);
    await runModule(
      'submitBulk',
      {
        input_as: 'array',
        emails: ['valid.ok@example.com'],
        name: 'n'.repeat(255),
        webhook_url: GOOD_WEBHOOK_URLS[0],
      },
      conn,
    ).catch(
      // Were the sandbox to refuse it (422), the request still arrived, which is what is counted.
      () => undefined,
    );
    expect(sb.requests.length).toBe(before + 3);
  });

  it('a text list is sent as the same addresses an array would carry', async () => {
    const before = sb.requests.length;
    const text =
      ' valid.t1@example.com\r\nvalid.t2@example.com, valid.t3@example.com;valid.t4@example.com\n\n';
    const r = await runModule('submitBulk', { input_as: 'text', emails_text: text }, conn);
    expect(sb.requests.length).toBe(before + 1);
    expect((r.requests[0]!.body as { emails: string[] }).emails).toEqual([
      'valid.t1@example.com',
      'valid.t2@example.com',
      'valid.t3@example.com',
      'valid.t4@example.com',
    ]);
  });
});

describe('Verify an email address: a malformed cell is a free verdict, not a failed run', () => {
  it.each(MALFORMED.map((e) => [e.slice(0, 30), e] as const))(
    '"%s": Invalid, nothing sent',
    async (_n, email) => {
      const before = sb.requests.filter((q) => q.method === 'POST').length;
      const r = await runModule('verifyEmail', { email }, conn);
      expect(r.bundles[0]).toMatchObject({
        category: 'Invalid',
        group: 'invalid',
        credits_used: 0,
        sent: false,
      });
      expect(sb.requests.filter((q) => q.method === 'POST').length).toBe(before);
    },
  );
});

describe('the Make parameter patterns agree with the client checks', () => {
  const bulkEmail = patternOf('submitBulk', 'emails', true);
  const email = bulkEmail;
  const url = patternOf('submitBulk', 'webhook_url');

  it("Verify's IML checks a cell with the same pattern as Submit's array", () => {
    const meta = components('module').find(([id]) => id === 'verifyEmail')![1];
    const iml = JSON.stringify(readJsonc(meta.codeFiles.communication!));
    // In the IML it is a /regex/ literal, its "/" escaped.
    expect(iml).toContain(JSON.stringify(bulkEmail.source.replace(/\//g, '\\/')).slice(1, -1));
  });

  const textList = patternOf('submitBulk', 'emails_text');
  it('the Address list pattern passes a text exactly when every address in it passes the array rule', () => {
    const piece = fc.oneof(
      fc.constantFrom(...MALFORMED.filter((e) => e !== '' && !/[\s,;]/.test(e))),
      fc.constantFrom('valid.ok@example.com', "O'Brien+tag@Example.CO.uk", 'a@xn--bcher-kva.example'),
      fc.stringMatching(/^[a-z0-9.]{1,8}@[a-z0-9-]{1,8}\.(com|io|c|1x)$/),
    );
    const sep = fc.constantFrom('\n', '\r\n', ', ', ',', ';', ' \n ', '\t');
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, sep), { minLength: 1, maxLength: 8 }), (parts) => {
        const text = parts.map(([a, s], i) => (i === parts.length - 1 ? a : a + s)).join('');
        return textList.test(text) === parts.every(([a]) => bulkEmail.test(a));
      }),
      { numRuns: 2000 },
    );
  });

  it('the email pattern gives the client verdict on every listed case', () => {
    for (const e of [
      ...MALFORMED,
      'valid.ok@example.com',
      "O'Brien+tag@Example.CO.uk",
      'a@xn--bcher-kva.example',
      'x@a-b.example.museum',
    ]) {
      expect({ e, pattern: email.test(e) }).toEqual({ e, pattern: isEmailSyntaxValid(e) });
    }
  });

  it('the email pattern gives the client verdict on 3,000 generated addresses', () => {
    const piece = fc.stringMatching(/^[a-zA-Z0-9._%+\-@ äÉ'()]{0,12}$/);
    const label = fc.stringMatching(/^[a-zA-Z0-9-]{0,12}$/);
    const address = fc.oneof(
      fc.tuple(piece, piece).map(([a, b]) => `${a}@${b}`),
      fc
        .tuple(piece, label, label, fc.constantFrom('com', 'io', 'c', '1x', 'xn--p1ai', 'museum'))
        .map(([l, a, b, t]) => `${l}@${a}.${b}.${t}`),
      fc.tuple(piece, label, fc.constantFrom('com', 'org', 'x1')).map(([l, a, t]) => `${l}@${a}.${t}`),
    );
    fc.assert(
      fc.property(address, (e) => email.test(e) === isEmailSyntaxValid(e)),
      { numRuns: 3000 },
    );
  });

  it('the webhook_url pattern refuses every URL the spec rules out, as the client does', () => {
    for (const [, u] of BAD_WEBHOOK_URLS) {
      expect({ u, pattern: url.test(u) && u.length <= 2048 }).toEqual({ u, pattern: false });
      expect(checkWebhookUrl(u).length).toBeGreaterThan(0);
    }
  });

  it('the webhook_url pattern accepts ordinary public https URLs, as the client does', () => {
    for (const u of GOOD_WEBHOOK_URLS) {
      expect({ u, pattern: url.test(u) }).toEqual({ u, pattern: true });
      expect(checkWebhookUrl(u)).toEqual([]);
    }
  });

  it('whatever the webhook_url pattern accepts, the client accepts too (never weaker)', () => {
    const host = fc.oneof(
      fc.constantFrom(
        'hooks.example.com',
        'localhost',
        'a.localhost',
        'intranet',
        'box.local',
        'x.internal',
        'h.home.arpa',
        'x.test',
        '10.0.0.1',
        '8.8.8.8',
        '0x7f.1',
        '2130706433',
        '[::1]',
        '[2001:db8::1]',
        'hook.eu1.make.com',
        'printer.lan',
      ),
      fc.stringMatching(/^[a-z0-9.-]{1,20}$/),
    );
    const port = fc.oneof(
      fc.constant(''),
      fc.integer({ min: 0, max: 70000 }).map((p) => `:${p}`),
    );
    const scheme = fc.constantFrom('https://', 'http://', 'https://user:pw@', 'ftp://');
    const path = fc.constantFrom('', '/', '/hook?x=1', '#f');
    fc.assert(
      fc.property(scheme, host, port, path, (s, h, p, pa) => {
        const u = s + h + p + pa;
        return !url.test(u) || checkWebhookUrl(u).length === 0;
      }),
      { numRuns: 3000 },
    );
  });
});
