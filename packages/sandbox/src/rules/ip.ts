import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses the sandbox treats as public for webhook delivery. The spec says "a public address
 * (no localhost, private networks or similar)"; the sandbox reads "similar" as every block the IANA
 * special-purpose registries (RFC 6890 and its updates) mark as not globally reachable, plus IPv6
 * outside global unicast 2000::/3 (RFC 4291 2.4). An address that embeds an IPv4 address and reaches
 * it (v4-mapped, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged by that IPv4 address.
 *
 * Parsing uses node:net for validity and a byte-level expansion of its own; the ranges are CIDR tables.
 */

export type IpVerdict =
  | { kind: 'public' }
  | { kind: 'not_public'; block: string }
  | { kind: 'not_ip' };

type Cidr = readonly [bytes: readonly number[], prefix: number, name: string];

const V4_BLOCKS: readonly Cidr[] = [
  [[0, 0, 0, 0], 8, 'this-network'], // RFC 791
  [[10, 0, 0, 0], 8, 'private'], // RFC 1918
  [[100, 64, 0, 0], 10, 'carrier-grade NAT'], // RFC 6598
  [[127, 0, 0, 0], 8, 'loopback'], // RFC 1122
  [[169, 254, 0, 0], 16, 'link-local'], // RFC 3927 (cloud metadata services live here)
  [[172, 16, 0, 0], 12, 'private'], // RFC 1918
  [[192, 0, 0, 0], 24, 'IETF protocol assignments'], // RFC 6890
  [[192, 0, 2, 0], 24, 'documentation'], // RFC 5737
  [[192, 88, 99, 0], 24, '6to4 relay anycast'], // RFC 7526
  [[192, 168, 0, 0], 16, 'private'], // RFC 1918
  [[198, 18, 0, 0], 15, 'benchmarking'], // RFC 2544
  [[198, 51, 100, 0], 24, 'documentation'], // RFC 5737
  [[203, 0, 113, 0], 24, 'documentation'], // RFC 5737
  [[224, 0, 0, 0], 4, 'multicast'], // RFC 5771
  [[240, 0, 0, 0], 4, 'reserved'], // RFC 1112 (includes 255.255.255.255, broadcast)
];

const V6_BLOCKS: readonly Cidr[] = [
  [hex6('::'), 128, 'unspecified'], // RFC 4291
  [hex6('::1'), 128, 'loopback'], // RFC 4291
  [hex6('64:ff9b:1::'), 48, 'local-use NAT64'], // RFC 8215
  [hex6('100::'), 64, 'discard-only'], // RFC 6666
  [hex6('2001::'), 23, 'IETF protocol assignments'], // RFC 2928 (Teredo, benchmarking, ORCHID)
  [hex6('2001:db8::'), 32, 'documentation'], // RFC 3849
  [hex6('3fff::'), 20, 'documentation'], // RFC 9637
  [hex6('5f00::'), 16, 'segment routing'], // RFC 9602
  [hex6('fc00::'), 7, 'unique-local'], // RFC 4193
  [hex6('fe80::'), 10, 'link-local'], // RFC 4291
  [hex6('fec0::'), 10, 'site-local'], // RFC 3879
  [hex6('ff00::'), 8, 'multicast'], // RFC 4291
];

/** Prefixes whose last 32 bits are an IPv4 address that a connection reaches. */
const EMBEDS_V4_LAST: readonly Cidr[] = [
  [hex6('::ffff:0:0'), 96, 'IPv4-mapped'], // RFC 4291 2.5.5.2
  [hex6('64:ff9b::'), 96, 'NAT64'], // RFC 6052
];
const SIX_TO_FOUR: Cidr = [hex6('2002::'), 16, '6to4']; // RFC 3056: bits 16-47 are the IPv4 address

function inBlock(bytes: readonly number[], [base, prefix]: Cidr): boolean {
  for (let bit = 0; bit < prefix; bit += 8) {
    const take = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (base[bit / 8]! & mask)) return false;
  }
  return true;
}

function v4Bytes(text: string): number[] {
  return text.split('.').map(Number);
}

/** 16 bytes of an IPv6 address node:net accepts (with an optional dotted IPv4 tail). */
function v6Bytes(text: string): number[] {
  let s = text;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    tail = v4Bytes(s.slice(lastColon + 1));
    s = s.slice(0, lastColon + 1) + (tail.length ? '0:0' : '');
  }
  const [head, rest] = s.includes('::') ? s.split('::') : [s, undefined];
  const groups = (part: string | undefined): number[] => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const h = groups(head);
  const r = groups(rest);
  const all = rest === undefined ? h : [...h, ...new Array<number>(8 - h.length - r.length).fill(0), ...r];
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

function hex6(text: string): number[] {
  return v6Bytes(text);
}

function judgeV4(bytes: readonly number[]): IpVerdict {
  const hit = V4_BLOCKS.find((b) => inBlock(bytes, b));
  return hit ? { kind: 'not_public', block: hit[2] } : { kind: 'public' };
}

function judgeV6(bytes: readonly number[]): IpVerdict {
  for (const via of EMBEDS_V4_LAST) if (inBlock(bytes, via)) return judgeV4(bytes.slice(12));
  if (inBlock(bytes, SIX_TO_FOUR)) return judgeV4(bytes.slice(2, 6));
  const hit = V6_BLOCKS.find((b) => inBlock(bytes, b));
  if (hit) return { kind: 'not_public', block: hit[2] };
  // Only 2000::/3 is global unicast; the deprecated IPv4-compatible ::a.b.c.d falls here too.
  if ((bytes[0]! & 0xe0) !== 0x20) return { kind: 'not_public', block: 'reserved' };
  return { kind: 'public' };
}

/** Judges an IP address text (IPv6 with or without brackets or a zone); `not_ip` for a host name. */
export function judgeIp(text: string): IpVerdict {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIPv4(s)) return judgeV4(v4Bytes(s));
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (isIPv6(s)) return judgeV6(v6Bytes(s));
  return { kind: 'not_ip' };
}

export function isIp(text: string): boolean {
  return judgeIp(text).kind !== 'not_ip';
}
