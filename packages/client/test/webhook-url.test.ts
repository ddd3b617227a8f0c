import { checkWebhookUrl, classifyAddress, checkResolvedAddresses, InputError } from '@evf/client';
import { assertWebhookUrl } from '../src/validation/webhook-url';

const rules = (url: string, opts = {}) => checkWebhookUrl(url, opts).map((v) => v.rule);

describe('webhook_url rules (each rule of the spec)', () => {
  test.each([
    'https://hooks.example.com/done',
    'https://hooks.example.com:443/done',
    'https://hooks.example.com:8443/done',
    'https://hooks.example.com:1024/done',
    'https://8.8.8.8/hook',
    'https://[2606:4700:4700::1111]/hook',
  ])('accepts %s', (url) => expect(rules(url)).toEqual([]));

  test.each([
    ['http://hooks.example.com/done', 'https'],
    ['ftp://hooks.example.com/done', 'https'],
    ['https://localhost/hook', 'public_host'],
    ['https://api.localhost/hook', 'public_host'],
    ['https://127.0.0.1/hook', 'public_host'],
    ['https://127.1.2.3:8443/hook', 'public_host'],
    ['https://2130706433/hook', 'public_host'],
    ['https://0x7f000001/hook', 'public_host'],
    ['https://10.0.0.5/hook', 'public_host'],
    ['https://172.16.0.1/hook', 'public_host'],
    ['https://172.31.255.255/hook', 'public_host'],
    ['https://192.168.1.1/hook', 'public_host'],
    ['https://169.254.169.254/latest', 'public_host'],
    ['https://100.64.0.1/hook', 'public_host'],
    ['https://0.0.0.0/hook', 'public_host'],
    ['https://[::1]/hook', 'public_host'],
    ['https://[::]/hook', 'public_host'],
    ['https://[fc00::1]/hook', 'public_host'],
    ['https://[fd12:3456::1]/hook', 'public_host'],
    ['https://[fe80::1]/hook', 'public_host'],
    ['https://[::ffff:10.0.0.1]/hook', 'public_host'],
    ['https://[::ffff:127.0.0.1]/hook', 'public_host'],
    ['https://intranet/hook', 'public_host'],
    ['https://printer.local/hook', 'public_host'],
    ['https://hooks.example.com:80/done', 'port'],
    ['https://hooks.example.com:1023/done', 'port'],
    ['https://hooks.example.com:22/done', 'port'],
    ['https://user:pass@hooks.example.com/done', 'credentials'],
    ['https://user@hooks.example.com/done', 'credentials'],
    [`https://hooks.example.com/${'a'.repeat(2049 - 'https://hooks.example.com/'.length)}`, 'length'],
    ['not a url', 'syntax'],
    ['', 'syntax'],
  ])('refuses %s (%s)', (url, rule) => {
    expect(rules(url)).toContain(rule);
  });

  test('exactly 2,048 characters is allowed', () => {
    const url = `https://hooks.example.com/${'a'.repeat(2048 - 'https://hooks.example.com/'.length)}`;
    expect(url).toHaveLength(2048);
    expect(rules(url)).toEqual([]);
  });

  test('reports every broken rule at once', () => {
    expect(rules('http://u:p@10.0.0.1:80/x')).toEqual(['https', 'credentials', 'port', 'public_host']);
  });

  test('loopback http only with the explicit sandbox option', () => {
    expect(rules('http://127.0.0.1:5678/webhook/x')).toEqual(['https', 'public_host']);
    expect(rules('http://127.0.0.1:5678/webhook/x', { allowLoopbackHttp: true })).toEqual([]);
    expect(rules('http://localhost:80/x', { allowLoopbackHttp: true })).toEqual([]);
    expect(rules('http://10.0.0.1:5678/x', { allowLoopbackHttp: true })).toContain('https');
  });

  test('assertWebhookUrl throws an InputError naming the field', () => {
    expect(() => assertWebhookUrl('http://localhost/x')).toThrow(InputError);
    try {
      assertWebhookUrl('http://localhost/x');
    } catch (e) {
      expect((e as InputError).field).toBe('webhook_url');
      expect((e as Error).message).toMatch(/https/);
    }
  });

  test('DNS answers are checked too', () => {
    expect(checkResolvedAddresses('hooks.example.com', ['93.184.216.34'])).toEqual([]);
    expect(checkResolvedAddresses('evil.example.com', ['93.184.216.34', '10.1.2.3'])[0]!.rule).toBe(
      'resolves_public',
    );
    expect(checkResolvedAddresses('nx.example.com', [])[0]!.message).toMatch(/does not resolve/);
  });

  test.each([
    ['8.8.8.8', 'public'],
    ['198.18.0.1', 'benchmarking'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['2001:db8::1', 'documentation'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:0a00:0001::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['not-an-ip', 'invalid'],
  ])('classifyAddress(%s) = %s', (ip, cls) => expect(classifyAddress(ip)).toBe(cls));
});

describe('found by the differential test against the sandbox (packages/sandbox/test/differential.test.ts)', () => {
  test.each([
    'https://[2001::1]/h',
    'https://[2001:1ff::1]/h',
    'https://[3fff::1]/h',
    'https://[::8.8.8.8]/h',
  ])('%s is not a public address', (url) => {
    expect(rules(url)).toContain('public_host');
  });
  test('2001:200::/23 onwards and IPv4-mapped public addresses stay public', () => {
    expect(rules('https://[2001:200::1]/h')).toEqual([]);
    expect(rules('https://[::ffff:8.8.8.8]/h')).toEqual([]);
  });
  test.each([
    'https:hooks.example.com/h',
    'https:\\\\hooks.example.com/h',
    ' https://hooks.example.com/h',
    'https://hooks.example.com/a b',
    'https://hööks.example.com/h',
    'https://hooks.example.com/%zz',
  ])('%j is not an RFC 3986 URL', (url) => {
    expect(rules(url)).toEqual(['syntax']);
  });
});
