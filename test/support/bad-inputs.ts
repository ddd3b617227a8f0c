/**
 * The shared bad-input table, one row per (operation, broken rule), in the service's wire names so every
 * platform suite can feed the same rows to its own operations: the client suite maps them to client
 * calls, a platform suite maps them to its fields. Each row must give a clear error naming `field`
 * before any request is sent, and leave the credit ledger as it was.
 *
 * Operations:
 * - verify_single: { email }
 * - submit_bulk:   one raw bulk call, { emails, name?, webhook_url? } (the list is sent as given)
 * - submit_list:   a list with pre-flight (dedupe, drop malformed, split), { emails, name?, webhook_url? }
 * - results:       reading a job's rows, { job_id, page?, per_page? }
 * - list_jobs:     { limit?, offset? }
 * - connection:    the credential, { api_key }
 */
export type BadInputOperation =
  | 'verify_single'
  | 'submit_bulk'
  | 'submit_list'
  | 'results'
  | 'list_jobs'
  | 'connection';

export interface BadInputRow {
  name: string;
  operation: BadInputOperation;
  input: Record<string, unknown>;
  /** The field the error must name (InputError.field in the client). */
  field: string;
  /** The client's rule id, when the row pins one; platforms may word theirs differently. */
  rule?: string;
}

const VALID = 'valid.lead@example.com';
const HOOK = 'https://hooks.example.com/evf/done';

export const MALFORMED_ADDRESSES: readonly string[] = [
  'plainaddress',
  'two@@example.com',
  'first@second@example.com',
  'space inside@example.com',
  '@example.com',
  'user@',
  'user@example',
  'user@.example.com',
  'user@example..com',
  'user..dots@example.com',
  '.leading@example.com',
  'trailing.@example.com',
  'user@-example.com',
  'user@exa_mple.com',
  `${'l'.repeat(65)}@example.com`,
  `user@${'d'.repeat(250)}.com`,
  'ünïcödé@example.com',
  'user@example.c',
  '',
];

/** Every webhook_url rule of the spec broken once; each URL is otherwise acceptable. */
export const BAD_WEBHOOK_URLS: ReadonlyArray<{ name: string; url: string; rule: string }> = [
  { name: 'http instead of https', url: 'http://hooks.example.com/evf/done', rule: 'https' },
  { name: 'localhost', url: 'https://localhost/evf/done', rule: 'public_host' },
  { name: 'a name under .localhost', url: 'https://hooks.localhost/evf/done', rule: 'public_host' },
  { name: '127.0.0.1', url: 'https://127.0.0.1/evf/done', rule: 'public_host' },
  { name: '10.x private', url: 'https://10.20.30.40/evf/done', rule: 'public_host' },
  { name: '172.16.x private', url: 'https://172.16.5.4/evf/done', rule: 'public_host' },
  {
    name: '172.31.x private (end of 172.16/12)',
    url: 'https://172.31.255.254/evf/done',
    rule: 'public_host',
  },
  { name: '192.168.x private', url: 'https://192.168.1.10/evf/done', rule: 'public_host' },
  {
    name: '169.254.x link-local (cloud metadata)',
    url: 'https://169.254.169.254/latest/meta-data',
    rule: 'public_host',
  },
  { name: '[::1] IPv6 loopback', url: 'https://[::1]/evf/done', rule: 'public_host' },
  { name: 'fc00::/7 unique local (fc00::)', url: 'https://[fc00::1]/evf/done', rule: 'public_host' },
  { name: 'fc00::/7 unique local (fd..)', url: 'https://[fd12:3456:789a::1]/evf/done', rule: 'public_host' },
  { name: 'IPv4-mapped IPv6 loopback', url: 'https://[::ffff:127.0.0.1]/evf/done', rule: 'public_host' },
  { name: 'port 80 (under 1024, not 443)', url: 'https://hooks.example.com:80/evf/done', rule: 'port' },
  { name: 'port 1023', url: 'https://hooks.example.com:1023/evf/done', rule: 'port' },
  { name: 'port 22', url: 'https://hooks.example.com:22/evf/done', rule: 'port' },
  { name: 'user:pass@', url: 'https://user:pass@hooks.example.com/evf/done', rule: 'credentials' },
  { name: 'user@ without password', url: 'https://user@hooks.example.com/evf/done', rule: 'credentials' },
  { name: '2,049 characters', url: `${HOOK}?q=${'a'.repeat(2049 - HOOK.length - 3)}`, rule: 'length' },
  { name: 'not a URL', url: 'hooks.example.com/evf/done', rule: 'syntax' },
];

function manyValid(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `valid.${i}@example.com`);
}

function rows(): BadInputRow[] {
  const out: BadInputRow[] = [];
  for (const email of MALFORMED_ADDRESSES) {
    out.push({
      name: `malformed address ${JSON.stringify(email.length > 40 ? email.slice(0, 30) + '…' : email)}`,
      operation: 'verify_single',
      input: { email },
      field: 'email',
    });
    out.push({
      name: `one malformed address ${JSON.stringify(email.length > 40 ? email.slice(0, 30) + '…' : email)} among valid ones`,
      operation: 'submit_bulk',
      input: { emails: [VALID, email, 'valid.other@example.com'] },
      field: 'emails',
      rule: 'syntax',
    });
  }
  out.push({
    name: 'every address malformed',
    operation: 'submit_list',
    input: { emails: ['plainaddress', 'user@', '@example.com'] },
    field: 'emails',
    rule: 'min_items',
  });
  out.push({ name: 'missing email', operation: 'verify_single', input: {}, field: 'email' });
  out.push({
    name: '0 items',
    operation: 'submit_bulk',
    input: { emails: [] },
    field: 'emails',
    rule: 'min_items',
  });
  out.push({
    name: '0 items',
    operation: 'submit_list',
    input: { emails: [] },
    field: 'emails',
    rule: 'min_items',
  });
  out.push({
    name: 'text with no address in it',
    operation: 'submit_list',
    input: { emails: ' \n ,; \n' },
    field: 'emails',
    rule: 'min_items',
  });
  out.push({
    name: '50,001 items in one call',
    operation: 'submit_bulk',
    input: { emails: manyValid(50_001) },
    field: 'emails',
    rule: 'max_items',
  });
  for (const operation of ['submit_bulk', 'submit_list'] as const) {
    out.push({
      name: 'name of 256 characters',
      operation,
      input: { emails: [VALID], name: 'n'.repeat(256) },
      field: 'name',
      rule: 'max_length',
    });
    out.push({
      name: 'priority not in the list',
      operation,
      input: { emails: [VALID], priority: 'asap' },
      field: 'priority',
      rule: 'enum',
    });
    for (const bad of BAD_WEBHOOK_URLS) {
      out.push({
        name: `webhook_url: ${bad.name}`,
        operation,
        input: { emails: [VALID], webhook_url: bad.url },
        field: 'webhook_url',
        rule: bad.rule,
      });
    }
  }
  out.push({
    name: 'per_page 0',
    operation: 'results',
    input: { job_id: 'job_any', per_page: 0 },
    field: 'per_page',
    rule: 'range',
  });
  out.push({
    name: 'per_page 1001',
    operation: 'results',
    input: { job_id: 'job_any', per_page: 1001 },
    field: 'per_page',
    rule: 'range',
  });
  out.push({
    name: 'per_page 2.5',
    operation: 'results',
    input: { job_id: 'job_any', per_page: 2.5 },
    field: 'per_page',
    rule: 'range',
  });
  out.push({
    name: 'page 0',
    operation: 'results',
    input: { job_id: 'job_any', page: 0 },
    field: 'page',
    rule: 'range',
  });
  out.push({
    name: 'missing job_id',
    operation: 'results',
    input: { job_id: '' },
    field: 'job_id',
    rule: 'required',
  });
  out.push({
    name: 'limit 101',
    operation: 'list_jobs',
    input: { limit: 101 },
    field: 'limit',
    rule: 'range',
  });
  out.push({ name: 'limit 0', operation: 'list_jobs', input: { limit: 0 }, field: 'limit', rule: 'range' });
  out.push({
    name: 'offset -1',
    operation: 'list_jobs',
    input: { offset: -1 },
    field: 'offset',
    rule: 'range',
  });
  out.push({
    name: 'missing key (empty)',
    operation: 'connection',
    input: { api_key: '' },
    field: 'api_key',
    rule: 'required',
  });
  out.push({
    name: 'missing key (blank)',
    operation: 'connection',
    input: { api_key: '   ' },
    field: 'api_key',
    rule: 'required',
  });
  out.push({
    name: 'missing key (not given at all)',
    operation: 'connection',
    input: {},
    field: 'api_key',
    rule: 'required',
  });
  out.push({
    name: 'key without the evf_ prefix',
    operation: 'connection',
    input: { api_key: 'sk_live_4f9a8b7c6d5e4f3a2b1c' },
    field: 'api_key',
    rule: 'prefix',
  });
  out.push({
    name: 'key with the prefix in upper case',
    operation: 'connection',
    input: { api_key: 'EVF_4f9a8b7c6d5e4f3a2b1c' },
    field: 'api_key',
    rule: 'prefix',
  });
  out.push({
    name: 'key pasted with a line break',
    operation: 'connection',
    input: { api_key: 'evf_4f9a8b7c6d5e\n4f3a2b1c' },
    field: 'api_key',
    rule: 'whitespace',
  });
  return out;
}

export const BAD_INPUTS: readonly BadInputRow[] = rows();

export function badInputsFor(operation: BadInputOperation): BadInputRow[] {
  return BAD_INPUTS.filter((r) => r.operation === operation);
}
