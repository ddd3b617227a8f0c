import { InputError } from '../errors';
import { LIMITS } from '../limits';
import type { Runtime } from '../core/runtime';
import { bareHost, classifyAddress, isIpLiteral, isLoopbackHost, type AddressClass } from './ip';

export interface WebhookUrlViolation {
  rule: 'length' | 'syntax' | 'https' | 'credentials' | 'port' | 'public_host' | 'resolves_public';
  message: string;
}

export interface WebhookUrlOptions {
  /**
   * Lets http:// receivers on loopback through, for local development against the sandbox only.
   * The real service never accepts them.
   */
  allowLoopbackHttp?: boolean;
}

/** scheme "://" then printable ASCII only. */
const RFC3986_SHAPE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[\x21-\x7e]+$/;

/** Names that never resolve to a public address, whatever DNS says. */
const NON_PUBLIC_SUFFIXES = [
  'localhost',
  'local',
  'internal',
  'intranet',
  'lan',
  'home.arpa',
  'test',
  'invalid',
  'example',
  'onion',
];

function isNonPublicName(host: string): boolean {
  const h = host.replace(/\.$/, '').toLowerCase();
  if (!h.includes('.')) return true; // single-label names resolve only on private networks
  return NON_PUBLIC_SUFFIXES.some((s) => h === s || h.endsWith('.' + s));
}

/**
 * Every rule of the spec for webhook_url, checked without the network. Returns all violations, so a user
 * fixes the URL once. Host names are checked again against DNS by checkResolvedAddresses when a resolver is at hand.
 */
export function checkWebhookUrl(url: unknown, options: WebhookUrlOptions = {}): WebhookUrlViolation[] {
  if (typeof url !== 'string' || url.trim() === '') {
    return [
      {
        rule: 'syntax',
        message: 'webhook_url must be a full URL such as https://hooks.example.com/verify-done',
      },
    ];
  }
  const out: WebhookUrlViolation[] = [];
  if (url.length > LIMITS.maxWebhookUrlLength) {
    out.push({
      rule: 'length',
      message: `webhook_url is ${url.length} characters long; the limit is ${LIMITS.maxWebhookUrlLength}`,
    });
  }
  let parsed: URL;
  try {
    // The WHATWG parser forgives what is not a URL (https:host, backslashes, spaces, line breaks, Unicode
    // hosts, a lone %); the service, like the contract's `format: uri`, takes RFC 3986 text only.
    if (!RFC3986_SHAPE.test(url) || /%(?![0-9A-Fa-f]{2})/.test(url))
      throw new TypeError('not an RFC 3986 URL');
    parsed = new URL(url);
  } catch {
    out.push({
      rule: 'syntax',
      message: 'webhook_url is not a valid URL; it must look like https://hooks.example.com/verify-done',
    });
    return out;
  }
  const host = parsed.hostname;
  const bare = bareHost(host);
  const loopbackDev = options.allowLoopbackHttp === true && isLoopbackHost(bare);
  if (parsed.protocol !== 'https:' && !(loopbackDev && parsed.protocol === 'http:')) {
    out.push({
      rule: 'https',
      message: `webhook_url must use https:// (it uses ${parsed.protocol.replace(':', '')})`,
    });
  }
  if (parsed.username || parsed.password) {
    out.push({
      rule: 'credentials',
      message:
        'webhook_url must not contain a user name or password; authenticate the receiver with the signature instead',
    });
  }
  // URL drops the port when it is the scheme's default, so an empty port means 443 for https, 80 for http.
  if (!loopbackDev) {
    const port = parsed.port !== '' ? Number(parsed.port) : parsed.protocol === 'http:' ? 80 : 443;
    if (port !== 443 && port < 1024) {
      out.push({
        rule: 'port',
        message: `webhook_url uses port ${port}; use 443 or a port of 1024 or above`,
      });
    }
  }
  if (!loopbackDev) {
    if (isIpLiteral(bare)) {
      const cls = classifyAddress(bare);
      if (cls !== 'public')
        out.push({
          rule: 'public_host',
          message: `webhook_url points at a ${describe(cls)} address (${host}); it must be reachable from the internet`,
        });
    } else if (isNonPublicName(bare)) {
      out.push({
        rule: 'public_host',
        message: `webhook_url host "${host}" is not a public internet name; it must be reachable from the internet`,
      });
    }
  }
  return out;
}

/** Throws an InputError naming every broken rule; nothing is sent. */
export function assertWebhookUrl(url: unknown, options: WebhookUrlOptions = {}): void {
  const violations = checkWebhookUrl(url, options);
  if (violations.length) {
    throw new InputError('webhook_url', violations[0]!.rule, violations.map((v) => v.message).join('; '));
  }
}

export interface WebhookUrlPolicy extends WebhookUrlOptions {
  /** Also resolve the host (runtime.lookup) and refuse non-public addresses before submitting. */
  resolveHost?: boolean;
}

/**
 * The client's whole webhook_url policy before a submission: every rule of the spec, then, when asked
 * and a resolver is at hand, the DNS half (the host must resolve, and only to public addresses).
 */
export async function assertWebhookUrlPolicy(
  url: unknown,
  policy: WebhookUrlPolicy,
  lookup: Runtime['lookup'],
): Promise<void> {
  assertWebhookUrl(url, policy);
  if (!policy.resolveHost || !lookup) return;
  const host = bareHost(new URL(url as string).hostname);
  if (isIpLiteral(host)) return;
  let addresses: string[];
  try {
    addresses = await lookup(host);
  } catch {
    addresses = [];
  }
  const violations = policy.allowLoopbackHttp ? [] : checkResolvedAddresses(host, addresses);
  if (violations.length)
    throw new InputError('webhook_url', violations[0]!.rule, violations.map((v) => v.message).join('; '));
}

/** The DNS half of the public-address rule: every address a host resolves to must be public. */
export function checkResolvedAddresses(host: string, addresses: readonly string[]): WebhookUrlViolation[] {
  if (addresses.length === 0)
    return [{ rule: 'resolves_public', message: `webhook_url host "${host}" does not resolve` }];
  const bad = addresses.map((a) => [a, classifyAddress(a)] as const).filter(([, cls]) => cls !== 'public');
  return bad.map(([a, cls]) => ({
    rule: 'resolves_public' as const,
    message: `webhook_url host "${host}" resolves to a ${describe(cls)} address (${a}); it must resolve to a public address`,
  }));
}

function describe(cls: AddressClass): string {
  return cls.replace('_', '-');
}
