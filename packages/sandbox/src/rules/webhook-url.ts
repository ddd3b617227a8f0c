import { judgeIp } from './ip';
import { LIMITS } from './limits';

/**
 * The spec's webhook_url rules (Events, "webhook_url rules"): https; resolves to a public address,
 * checked at submission and before every delivery; port 443 or 1024 and above; no user name or
 * password; at most 2,048 characters. A URL that breaks one is refused with 422 and the reason.
 *
 * The URL is read by the WHATWG URL parser, as Node's HTTP client will read it when delivering: it
 * lower-cases the scheme (RFC 3986 3.1: schemes are case-insensitive, so HTTPS:// is https) and turns
 * every IPv4 spelling (decimal, octal, hex, short forms) into dotted form, so the address judged is the
 * address a delivery would connect to.
 */

export type WebhookRule =
  | 'length'
  | 'syntax'
  | 'https'
  | 'credentials'
  | 'port'
  | 'public_host'
  | 'resolves_public';

export interface WebhookUrlViolation {
  rule: WebhookRule;
  message: string;
}

export interface WebhookUrlPolicy {
  /** Local development only (the sandbox's allowInsecureWebhooks): http:// and any port on loopback. */
  allowLoopbackHttp?: boolean;
}

/**
 * Names that never reach a public host whatever DNS says: the special-use names of RFC 6761
 * (localhost, test, invalid, example), RFC 6762 (local), RFC 7686 (onion), RFC 8375 (home.arpa), and
 * internal (reserved by ICANN for private use, 2024), lan and intranet (RFC 6762 appendix G).
 */
const SPECIAL_USE = [
  'localhost',
  'test',
  'invalid',
  'example',
  'local',
  'onion',
  'home.arpa',
  'internal',
  'lan',
  'intranet',
];

/** RFC 3986 3: scheme "://" authority, then only the characters a URI may hold (2.2, 2.3, 2.1). */
const RFC3986_URI = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;

/** Host without brackets and without the root's trailing dot, lower case. */
export function hostOf(url: URL): string {
  const h = url.hostname.toLowerCase();
  return h.startsWith('[') ? h.slice(1, -1) : h.replace(/\.$/, '');
}

export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const verdict = judgeIp(host);
  return verdict.kind === 'not_public' && verdict.block === 'loopback';
}

function nameProblem(host: string): string | undefined {
  if (!host.includes('.'))
    return `host "${host}" is a single-label name, which only resolves on a private network`;
  const special = SPECIAL_USE.find((s) => host === s || host.endsWith(`.${s}`));
  return special
    ? `host "${host}" is under .${special}, a name reserved for private or special use`
    : undefined;
}

/** Every rule the URL's text breaks (all of them, so it is fixed in one go). DNS is judged apart. */
export function webhookUrlViolations(url: unknown, policy: WebhookUrlPolicy = {}): WebhookUrlViolation[] {
  const example = 'a full URL such as https://hooks.example.com/verify-done';
  if (typeof url !== 'string' || url.trim() === '')
    return [{ rule: 'syntax', message: `webhook_url must be ${example}` }];
  const found: WebhookUrlViolation[] = [];
  if (url.length > LIMITS.maxWebhookUrlLength) {
    found.push({
      rule: 'length',
      message: `webhook_url is ${url.length} characters long; the limit is ${LIMITS.maxWebhookUrlLength}`,
    });
  }
  // The WHATWG parser forgives what RFC 3986 does not (https:host, backslashes, spaces, tabs and line
  // breaks dropped, Unicode hosts): the text must already be a URI, "scheme://authority...", in ASCII.
  if (!RFC3986_URI.test(url) || /%(?![0-9A-Fa-f]{2})/.test(url)) {
    return [
      ...found,
      {
        rule: 'syntax',
        message: `webhook_url is not written as a URL (RFC 3986): it must be ${example}, in plain ASCII (an international domain in its xn-- form, other characters percent-encoded)`,
      },
    ];
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [...found, { rule: 'syntax', message: `webhook_url is not a valid URL; it must be ${example}` }];
  }
  const host = hostOf(parsed);
  const devLoopback = policy.allowLoopbackHttp === true && isLoopbackHost(host);
  const scheme = parsed.protocol.slice(0, -1);
  if (scheme !== 'https' && !(devLoopback && scheme === 'http')) {
    found.push({ rule: 'https', message: `webhook_url must use https:// (it uses ${scheme}://)` });
  }
  if (parsed.username !== '' || parsed.password !== '') {
    found.push({
      rule: 'credentials',
      message: 'webhook_url must not carry a user name or password; the signature authenticates each message',
    });
  }
  if (devLoopback) return found;
  // The parser leaves the port empty when it is the scheme's default.
  const port = parsed.port === '' ? (scheme === 'http' ? 80 : 443) : Number(parsed.port);
  if (port !== 443 && port < 1024) {
    found.push({
      rule: 'port',
      message: `webhook_url uses port ${port}; use 443 or a port of 1024 or above`,
    });
  }
  const ip = judgeIp(host);
  if (ip.kind === 'not_public') {
    found.push({
      rule: 'public_host',
      message: `webhook_url points at ${host}, a ${ip.block} address; it must be public`,
    });
  } else if (ip.kind === 'not_ip') {
    const problem = nameProblem(host);
    if (problem)
      found.push({ rule: 'public_host', message: `webhook_url ${problem}; it must be a public name` });
  }
  return found;
}

/**
 * The DNS half of "resolves to a public address": a host that resolves to nothing, or to any address
 * that is not public, is refused (one private answer is enough to reach an internal service).
 */
export function resolvedAddressViolations(host: string, addresses: readonly string[]): WebhookUrlViolation[] {
  if (addresses.length === 0) {
    return [
      { rule: 'resolves_public', message: `webhook_url host "${host}" does not resolve to any address` },
    ];
  }
  const found: WebhookUrlViolation[] = [];
  for (const address of addresses) {
    const verdict = judgeIp(address);
    if (verdict.kind === 'public') continue;
    const what =
      verdict.kind === 'not_public' ? `a ${verdict.block} address` : 'something that is not an IP address';
    found.push({
      rule: 'resolves_public',
      message: `webhook_url host "${host}" resolves to ${address}, ${what}`,
    });
  }
  return found;
}
