/**
 * Just enough XML (W3C XML 1.0) for the parts of a workbook, read as a stream of tags and text with no
 * tree built: element and attribute names compared by their local name (a prefix such as `x:` names a
 * namespace, and any prefix may be bound to SpreadsheetML's), attribute values in double or single
 * quotes, CDATA sections as literal text, comments, processing instructions and a DOCTYPE skipped, the
 * five predefined entities and character references decoded (no other entity is ever expanded).
 */

export const Token = { End: 0, Open: 1, Close: 2, Text: 3 } as const;
export type TokenKind = (typeof Token)[keyof typeof Token];

const localName = (name: string): string => {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
};

export class XmlCursor {
  private pos = 0;
  /** Where the current token begins in the text (its `<`, or its first character). */
  start = 0;
  /** Where the current token ends: the text after it begins here. */
  get end(): number {
    return this.pos;
  }
  /** The element's local name, for Open and Close. */
  name = '';
  /** The raw attribute text of an Open tag; read it with attribute(). */
  attrs = '';
  selfClosing = false;
  /** For Text: the decoded text. */
  text = '';
  /** The current tag's attributes as [local name, raw value] pairs, read once when first asked for. */
  private parsedAttrs: string[] | undefined;

  constructor(private readonly xml: string) {}

  next(): TokenKind {
    const xml = this.xml;
    for (;;) {
      const at = this.pos;
      this.start = at;
      if (at >= xml.length) return Token.End;
      if (xml.charCodeAt(at) !== 60 /* < */) {
        let end = xml.indexOf('<', at);
        if (end < 0) end = xml.length;
        this.pos = end;
        this.text = decodeText(xml.slice(at, end));
        return Token.Text;
      }
      const c1 = xml.charCodeAt(at + 1);
      if (c1 === 47 /* / */) {
        const end = xml.indexOf('>', at + 2);
        if (end < 0) throw new SyntaxError(`broken closing tag at ${at}`);
        this.pos = end + 1;
        this.name = localName(xml.slice(at + 2, end).trimEnd());
        return Token.Close;
      }
      if (c1 === 33 /* ! */) {
        if (xml.startsWith('<![CDATA[', at)) {
          const end = xml.indexOf(']]>', at + 9);
          if (end < 0) throw new SyntaxError('unclosed CDATA section');
          this.text = xml.slice(at + 9, end);
          this.pos = end + 3;
          return Token.Text;
        }
        if (xml.startsWith('<!--', at)) {
          const end = xml.indexOf('-->', at + 4);
          this.pos = end < 0 ? xml.length : end + 3;
          continue;
        }
        // A DOCTYPE, with an internal subset in brackets or not; its entities are never expanded.
        const bracket = xml.indexOf('[', at);
        const close = xml.indexOf('>', at);
        const end = bracket >= 0 && bracket < close ? xml.indexOf(']>', bracket) + 1 : close;
        this.pos = end <= 0 ? xml.length : end + 1;
        continue;
      }
      if (c1 === 63 /* ? */) {
        const end = xml.indexOf('?>', at + 2);
        this.pos = end < 0 ? xml.length : end + 2;
        continue;
      }
      // An open tag, scanned by hand (a regular expression per tag is most of the time on a big sheet):
      // the name, then attributes whose quoted values may hold '>'.
      let i = at + 1;
      let colon = -1;
      for (; i < xml.length; i++) {
        const c = xml.charCodeAt(i);
        if (c === 58 /* : */) colon = i;
        else if (c === 62 /* > */ || c === 47 /* / */ || c === 32 || c === 9 || c === 10 || c === 13) break;
      }
      if (i === at + 1) throw new SyntaxError(`broken tag at ${at}`);
      this.name = xml.slice(colon < 0 ? at + 1 : colon + 1, i);
      const attrsStart = i;
      for (; i < xml.length; i++) {
        const c = xml.charCodeAt(i);
        if (c === 62) break;
        if (c === 34 || c === 39) {
          const close = xml.indexOf(c === 34 ? '"' : "'", i + 1);
          if (close < 0) throw new SyntaxError(`unclosed attribute value at ${i}`);
          i = close;
        }
      }
      if (i >= xml.length) throw new SyntaxError(`unclosed tag at ${at}`);
      this.selfClosing = xml.charCodeAt(i - 1) === 47;
      this.attrs = xml.slice(attrsStart, this.selfClosing ? i - 1 : i);
      this.parsedAttrs = undefined;
      this.pos = i + 1;
      return Token.Open;
    }
  }

  /** An attribute of the current Open tag by local name (`id` finds `r:id`), decoded; undefined when absent. */
  attribute(name: string): string | undefined {
    if (!this.attrs) return undefined;
    const list = (this.parsedAttrs ??= splitAttributes(this.attrs));
    for (let k = 0; k < list.length; k += 2) if (list[k] === name) return decodeAttribute(list[k + 1]!);
    return undefined;
  }

  /** Moves to `pos` in the text, which must be where a token begins (a `<`). */
  seek(pos: number): void {
    this.pos = pos;
  }

  /** Skips to the end of the element just opened (nothing to do for a self-closing one). */
  skipElement(): void {
    if (this.selfClosing) return;
    let depth = 1;
    for (;;) {
      const t = this.next();
      if (t === Token.End) return;
      if (t === Token.Open && !this.selfClosing) depth++;
      else if (t === Token.Close && --depth === 0) return;
    }
  }
}

/** `a="1" x:b='2'` → ['a', '1', 'b', '2']: local names and raw values. */
function splitAttributes(attrs: string): string[] {
  const out: string[] = [];
  const n = attrs.length;
  let i = 0;
  for (;;) {
    while (i < n && attrs.charCodeAt(i) <= 32) i++;
    if (i >= n) return out;
    const eq = attrs.indexOf('=', i);
    if (eq < 0) throw new SyntaxError(`broken attribute "${attrs.slice(i, i + 20)}"`);
    const name = attrs.slice(i, eq).trim();
    let q = eq + 1;
    while (q < n && attrs.charCodeAt(q) <= 32) q++;
    const quote = attrs[q];
    if (quote !== '"' && quote !== "'") throw new SyntaxError(`unquoted attribute ${name}`);
    const close = attrs.indexOf(quote, q + 1);
    if (close < 0) throw new SyntaxError(`unclosed attribute ${name}`);
    out.push(localName(name), attrs.slice(q + 1, close));
    i = close + 1;
  }
}

const ENTITY = /&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(ENTITY, (_m, e: string) => {
    if (e[0] !== '#') return NAMED[e]!;
    const code = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : '\uFFFD';
  });
}

/** Text content: line ends normalized to LF before references are decoded (XML 1.0, 2.11). */
function decodeText(s: string): string {
  return decodeEntities(s.includes('\r') ? s.replace(/\r\n?/g, '\n') : s);
}

/** Attribute values: literal white space becomes a space before references are decoded (XML 1.0, 3.3.3). */
function decodeAttribute(s: string): string {
  return decodeEntities(/[\t\r\n]/.test(s) ? s.replace(/\r\n|[\t\r\n]/g, ' ') : s);
}
