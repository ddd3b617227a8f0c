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
  | { kind: 'not_public'; block: string; cidr: string }
  | { kind: 'not_ip' };

interface Block {
  bytes: readonly number[];
  prefix: number;
  cidr: string;
  name: string;
}

function block(cidr: string, name: string): Block {
  const [base, bits] = cidr.split('/') as [string, string];
  return { bytes: base.includes(':') ? v6Bytes(base) : v4Bytes(base), prefix: Number(bits), cidr, name };
}

const V4_BLOCKS: readonly Block[] = [
  block('0.0.0.0/8', 'this-network'), // RFC 791
  block('10.0.0.0/8', 'private'), // RFC 1918
  block('100.64.0.0/10', 'carrier-grade NAT'), // RFC 6598
  block('127.0.0.0/8', 'loopback'), // RFC 1122
  block('169.254.0.0/16', 'link-local'), // RFC 3927 (cloud metadata services live here)
  block('172.16.0.0/12', 'private'), // RFC 1918
  block('192.0.0.0/24', 'IETF protocol assignments'), // RFC 6890
  block('192.0.2.0/24', 'documentation'), // RFC 5737
  block('192.88.99.0/24', '6to4 relay anycast'), // RFC 7526
  block('192.168.0.0/16', 'private'), // RFC 1918
  block('198.18.0.0/15', 'benchmarking'), // RFC 2544
  block('198.51.100.0/24', 'documentation'), // RFC 5737
  block('203.0.113.0/24', 'documentation'), // RFC 5737
  block('224.0.0.0/4', 'multicast'), // RFC 5771
  block('240.0.0.0/4', 'reserved'), // RFC 1112 (includes 255.255.255.255, broadcast)
];

const V6_BLOCKS: readonly Block[] = [
  block('::/128', 'unspecified'), // RFC 4291
  block('::1/128', 'loopback'), // RFC 4291
  block('::/96', 'deprecated IPv4-compatible'), // RFC 4291 2.5.5.1: not routed, ::/8 is reserved
  block('64:ff9b:1::/48', 'local-use NAT64'), // RFC 8215
  block('100::/64', 'discard-only'), // RFC 6666
  block('2001::/23', 'IETF protocol assignments'), // RFC 2928 (Teredo, benchmarking, ORCHID)
  block('2001:db8::/32', 'documentation'), // RFC 3849
  block('3fff::/20', 'documentation'), // RFC 9637
  block('5f00::/16', 'segment routing'), // RFC 9602
  block('fc00::/7', 'unique-local'), // RFC 4193
  block('fe80::/10', 'link-local'), // RFC 4291
  block('fec0::/10', 'site-local'), // RFC 3879
  block('ff00::/8', 'multicast'), // RFC 4291
];

/** Prefixes whose last 32 bits are an IPv4 address that a connection reaches. */
const EMBEDS_V4_LAST: readonly Block[] = [
  block('::ffff:0:0/96', 'IPv4-mapped'), // RFC 4291 2.5.5.2
  block('64:ff9b::/96', 'NAT64'), // RFC 6052
];
const SIX_TO_FOUR = block('2002::/16', '6to4'); // RFC 3056: bits 16-47 are the IPv4 address
const GLOBAL_UNICAST = block('2000::/3', 'global unicast');

function inBlock(bytes: readonly number[], { bytes: base, prefix }: Block): boolean {
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
  const groups = (part: string | undefined): number[] =>
    part ? part.split(':').map((g) => parseInt(g, 16)) : [];
  const h = groups(head);
  const r = groups(rest);
  const all = rest === undefined ? h : [...h, ...new Array<number>(8 - h.length - r.length).fill(0), ...r];
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

function judgeV4(bytes: readonly number[]): IpVerdict {
  const hit = V4_BLOCKS.find((b) => inBlock(bytes, b));
  return hit ? { kind: 'not_public', block: hit.name, cidr: hit.cidr } : { kind: 'public' };
}

function judgeV6(bytes: readonly number[]): IpVerdict {
  for (const via of EMBEDS_V4_LAST) if (inBlock(bytes, via)) return judgeV4(bytes.slice(12));
  if (inBlock(bytes, SIX_TO_FOUR)) return judgeV4(bytes.slice(2, 6));
  const hit = V6_BLOCKS.find((b) => inBlock(bytes, b));
  if (hit) return { kind: 'not_public', block: hit.name, cidr: hit.cidr };
  // RFC 4291 2.4: only 2000::/3 is global unicast.
  if (!inBlock(bytes, GLOBAL_UNICAST))
    return { kind: 'not_public', block: 'reserved', cidr: 'outside 2000::/3' };
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
