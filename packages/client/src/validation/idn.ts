/**
 * A Unicode domain in its ASCII (xn--) form, so an address such as `user@bücher.de` can be sent: the
 * spec asks for "a syntactically valid address" and its service takes host names in ASCII. Written here
 * (RFC 3492's Punycode, each label lower-cased after NFC) because the client has no runtime dependency
 * and runs where Node's `url.domainToASCII` is not allowed (n8n's community-package rules). The local
 * part is never converted: it has no ASCII spelling.
 */

const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 128;

function adapt(delta: number, points: number, first: boolean): number {
  let d = first ? Math.floor(delta / DAMP) : delta >> 1;
  d += Math.floor(d / points);
  let k = 0;
  while (d > ((BASE - T_MIN) * T_MAX) >> 1) {
    d = Math.floor(d / (BASE - T_MIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - T_MIN + 1) * d) / (d + SKEW));
}

const digit = (d: number): string => String.fromCharCode(d < 26 ? 97 + d : 22 + d);

/** One label's Punycode (without the xn-- prefix), or undefined when it cannot be encoded. */
function punycode(label: string): string | undefined {
  const points = Array.from(label, (ch) => ch.codePointAt(0)!);
  let out = points
    .filter((c) => c < 128)
    .map((c) => String.fromCharCode(c))
    .join('');
  const basic = out.length;
  let handled = basic;
  if (basic > 0) out += '-';
  let n = INITIAL_N;
  let delta = 0;
  let bias = INITIAL_BIAS;
  while (handled < points.length) {
    const m = Math.min(...points.filter((c) => c >= n));
    delta += (m - n) * (handled + 1);
    if (!Number.isSafeInteger(delta)) return undefined;
    n = m;
    for (const c of points) {
      if (c < n) delta++;
      if (c !== n) continue;
      let q = delta;
      for (let k = BASE; ; k += BASE) {
        const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias;
        if (q < t) break;
        out += digit(t + ((q - t) % (BASE - t)));
        q = Math.floor((q - t) / (BASE - t));
      }
      out += digit(q);
      bias = adapt(delta, handled + 1, handled === basic);
      delta = 0;
      handled++;
    }
    delta++;
    n++;
  }
  return out;
}

/** The domain with each non-ASCII label as `xn--…`, or undefined when a label cannot be encoded. */
export function domainToAscii(domain: string): string | undefined {
  const labels = domain.normalize('NFC').toLowerCase().split('.');
  const ascii: string[] = [];
  for (const label of labels) {
    // eslint-disable-next-line no-control-regex
    if (/^[\x00-\x7f]*$/.test(label)) {
      ascii.push(label);
      continue;
    }
    const encoded = punycode(label);
    if (encoded === undefined) return undefined;
    ascii.push(`xn--${encoded}`);
  }
  return ascii.join('.');
}

/**
 * The address with its domain in ASCII form, when only the domain holds non-ASCII characters; else
 * undefined (already ASCII, a non-ASCII local part, or no single @).
 */
export function asciiDomainAddress(address: string): string | undefined {
  const at = address.lastIndexOf('@');
  if (at <= 0 || address.indexOf('@') !== at) return undefined;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  // eslint-disable-next-line no-control-regex
  if (!/^[\x00-\x7f]*$/.test(local) || /^[\x00-\x7f]*$/.test(domain)) return undefined;
  const ascii = domainToAscii(domain);
  return ascii === undefined ? undefined : `${local}@${ascii}`;
}
