/**
 * Which addresses count as public for webhook delivery. The service refuses localhost, private
 * networks "or similar"; we refuse every range that is not globally routable unicast.
 */

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link_local'
  | 'unique_local'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved'
  | 'invalid';

const V4_RANGES: ReadonlyArray<readonly [number, number, AddressClass]> = [
  [0x00000000, 8, 'unspecified'], // 0.0.0.0/8 "this network"
  [0x0a000000, 8, 'private'], // 10/8
  [0x64400000, 10, 'shared'], // 100.64/10 carrier-grade NAT
  [0x7f000000, 8, 'loopback'], // 127/8
  [0xa9fe0000, 16, 'link_local'], // 169.254/16 (cloud metadata lives here)
  [0xac100000, 12, 'private'], // 172.16/12
  [0xc0000000, 24, 'reserved'], // 192.0.0/24 IETF protocol assignments
  [0xc0000200, 24, 'documentation'], // 192.0.2/24
  [0xc0586300, 24, 'reserved'], // 192.88.99/24 6to4 relay (deprecated)
  [0xc0a80000, 16, 'private'], // 192.168/16
  [0xc6120000, 15, 'benchmarking'], // 198.18/15
  [0xc6336400, 24, 'documentation'], // 198.51.100/24
  [0xcb007100, 24, 'documentation'], // 203.0.113/24
  [0xe0000000, 4, 'multicast'], // 224/4
  [0xf0000000, 4, 'reserved'], // 240/4
];

export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    value = value * 256 + n;
  }
  return value;
}

function classifyIPv4Number(v: number): AddressClass {
  if (v === 0xffffffff) return 'broadcast';
  for (const [base, bits, cls] of V4_RANGES) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((v & mask) >>> 0 === base) return cls;
  }
  return 'public';
}

/** Parses IPv6 text (with optional brackets, zone id, or embedded IPv4) into 8 16-bit groups. */
export function parseIPv6(text: string): number[] | undefined {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return undefined;
  const lastColon = s.lastIndexOf(':');
  const maybeV4 = s.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    // Rewrite a trailing dotted IPv4 as two hex groups, then parse as plain IPv6.
    const v4 = parseIPv4(maybeV4);
    if (v4 === undefined) return undefined;
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const parse = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    for (const g of h.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const given = head.length + rest.length;
  if (halves.length === 1) {
    if (given !== 8) return undefined;
    return head;
  }
  if (given > 7) return undefined;
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest];
}

function classifyIPv6Groups(g: number[]): AddressClass {
  const allZeroUpTo = (n: number): boolean => g.slice(0, n).every((x) => x === 0);
  if (g.every((x) => x === 0)) return 'unspecified';
  if (allZeroUpTo(7) && g[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d): judge the IPv4 inside.
  if (allZeroUpTo(5) && g[5] === 0xffff) return classifyIPv4Number(((g[6]! << 16) | g[7]!) >>> 0);
  // IPv4-compatible (::a.b.c.d, deprecated by RFC 4291) lies in ::/8, which is reserved.
  if (allZeroUpTo(6)) return 'reserved';
  // NAT64 (64:ff9b::/96) reaches the IPv4 inside.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return classifyIPv4Number(((g[6]! << 16) | g[7]!) >>> 0);
  }
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return 'unique_local'; // fc00::/7
  if ((first & 0xffc0) === 0xfe80) return 'link_local'; // fe80::/10
  if ((first & 0xffc0) === 0xfec0) return 'private'; // fec0::/10 site-local (deprecated)
  if ((first & 0xff00) === 0xff00) return 'multicast'; // ff00::/8
  if (first === 0x2001 && g[1] === 0x0db8) return 'documentation'; // 2001:db8::/32
  if ((first & 0xfff0) === 0x3ff0) return 'documentation'; // 3fff::/20 (RFC 9637)
  // 2001::/23, IETF protocol assignments (Teredo, benchmarking, ORCHID): not globally reachable (RFC 2928).
  if (first === 0x2001 && g[1]! < 0x0200) return 'reserved';
  if (first === 0x0100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return 'reserved'; // 100::/64 discard
  if (first === 0x2002) {
    // 6to4 embeds an IPv4 in groups 1-2.
    return classifyIPv4Number(((g[1]! << 16) | g[2]!) >>> 0);
  }
  if ((first & 0xe000) !== 0x2000) return 'reserved'; // only 2000::/3 is global unicast
  return 'public';
}

/** Classifies an IP literal; 'invalid' when the text is not an IP address. */
export function classifyAddress(ip: string): AddressClass {
  const v4 = parseIPv4(ip);
  if (v4 !== undefined) return classifyIPv4Number(v4);
  const v6 = parseIPv6(ip);
  if (v6) return classifyIPv6Groups(v6);
  return 'invalid';
}

export function isIpLiteral(host: string): boolean {
  return parseIPv4(host) !== undefined || parseIPv6(host) !== undefined;
}

/** A URL's host as an address or name: IPv6 brackets off ("[::1]" -> "::1"), lower case. */
export function bareHost(hostname: string): string {
  return (
    hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
  ).toLowerCase();
}

/** localhost, a *.localhost name, or a loopback address (bare, see bareHost). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || classifyAddress(host) === 'loopback';
}

/** True when a URL's host is localhost or a loopback address: the local sandbox, never the real service. */
export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(bareHost(new URL(url).hostname));
  } catch {
    return false;
  }
}
