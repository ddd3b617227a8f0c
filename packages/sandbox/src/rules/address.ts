/**
 * What the sandbox, as the service, calls "a syntactically valid address" (POST /v1/verify/bulk: any
 * other item fails the whole call with 422; POST /v1/verify/single: 422, nothing charged).
 *
 * The spec names the rule but not its details, so the sandbox takes the narrowest reading of the RFCs
 * that every mail system accepts: a model of the service must refuse at least what the service may
 * refuse, never less. In plain terms (the README's "Address syntax" lists the same):
 * - RFC 5321 4.5.3.1: at most 64 characters before the @, 254 in all (a 256-octet path less < and >);
 * - RFC 5322 3.4.1 / 3.2.3: the local part is a dot-atom (atext runs joined by single dots); quoted
 *   local parts ("a b"@x.com) are refused;
 * - RFC 5321 4.1.2 Domain, RFC 1035 2.3.4 / RFC 1123 2.1: the domain is host-name labels of letters,
 *   digits and inner hyphens, 1 to 63 characters each, 253 in all, at least two labels, no trailing dot;
 *   address literals (user@[192.0.2.1]) are refused;
 * - RFC 3696 2: the top-level label is not all digits; the sandbox asks for letters (two or more) or an
 *   IDN A-label (xn--...);
 * - plain ASCII only: internationalised addresses need SMTPUTF8 (RFC 6531), an extension the spec
 *   does not promise. A Unicode domain is sent in its xn-- form.
 */

const MAX_ADDRESS = 254;
const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;

/** RFC 5322 atext: letters, digits and !#$%&'*+-/=?^_`{|}~ */
const DOT_ATOM = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+(?:\.[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+)*$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
const TOP_LABEL = /^(?:[A-Za-z]{2,63}|[Xx][Nn]--[A-Za-z0-9-]*[A-Za-z0-9])$/;

/** Why the service refuses this item, in words for the 422 body; undefined when it is valid. */
export function addressProblem(item: unknown): string | undefined {
  if (typeof item !== 'string') return 'is not text';
  if (item === '') return 'is empty';
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(item)) return 'has non-ASCII characters (write a Unicode domain in its xn-- form)';
  if (/[\s,;]/.test(item)) return 'contains a space, comma or semicolon: one address per item';
  if (item.length > MAX_ADDRESS) return `is longer than ${MAX_ADDRESS} characters`;
  const at = item.lastIndexOf('@');
  if (at < 0) return 'has no @';
  const local = item.slice(0, at);
  const domain = item.slice(at + 1);
  if (local.includes('@')) return 'has more than one @';
  if (local === '') return 'has nothing before the @';
  if (local.length > MAX_LOCAL) return `has more than ${MAX_LOCAL} characters before the @`;
  if (local.startsWith('"')) return 'has a quoted name before the @, which is not accepted';
  if (!DOT_ATOM.test(local)) {
    return /^\.|\.$|\.\./.test(local)
      ? 'has a dot at the start or end of the name, or two dots in a row'
      : 'has a character that is not allowed before the @';
  }
  if (domain === '') return 'has nothing after the @';
  if (domain.startsWith('[')) return 'has an IP address instead of a domain, which is not accepted';
  if (domain.length > MAX_DOMAIN) return `has a domain longer than ${MAX_DOMAIN} characters`;
  const labels = domain.split('.');
  if (labels.length < 2) return 'has a domain without a dot (like "example.com")';
  if (!labels.every((l) => LABEL.test(l))) {
    return labels.some((l) => /[^A-Za-z0-9-]/.test(l))
      ? 'has a character that is not allowed in a domain'
      : 'has an empty, over-long or hyphen-edged part in its domain';
  }
  if (!TOP_LABEL.test(labels[labels.length - 1]!))
    return 'does not end in a real top-level domain (like .com)';
  return undefined;
}
