/**
 * Just enough XML (W3C XML 1.0) for the parts of a workbook, read as a stream of tags and text with no
 * tree built: element and attribute names compared by their local name (a prefix such as `x:` names a
 * namespace, and any prefix may be bound to SpreadsheetML's), attribute values in double or single
 * quotes, CDATA sections as literal text, comments, processing instructions and a DOCTYPE skipped, the
 * five predefined entities and character references decoded (no other entity is ever expanded).
 */

export const Token = { End: 0, Open: 1, Close: 2, Text: 3 } as const;
export type TokenKind = (typeof Token)[keyof typeof Token];

// An open tag: name, then attributes whose values may hold '>' inside their quotes.
const OPEN = /<([A-Za-z_][\w.:-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/y;
const CLOSE = /<\/([A-Za-z_][\w.:-]*)\s*>/y;

const localName = (name: string): string => {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
};

export class XmlCursor {
  private pos = 0;
  /** The element's local name, for Open and Close. */
  name = '';
  /** The raw attribute text of an Open tag; read it with attribute(). */
  attrs = '';
  selfClosing = false;
  /** For Text: the decoded text. */
  text = '';

  constructor(private readonly xml: string) {}

  next(): TokenKind {
    const xml = this.xml;
    for (;;) {
      const at = this.pos;
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
        CLOSE.lastIndex = at;
        const m = CLOSE.exec(xml);
        if (!m) throw new SyntaxError(`broken closing tag at ${at}`);
        this.pos = CLOSE.lastIndex;
        this.name = localName(m[1]!);
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
      OPEN.lastIndex = at;
      const m = OPEN.exec(xml);
      if (!m) throw new SyntaxError(`broken tag at ${at}`);
      this.pos = OPEN.lastIndex;
      this.name = localName(m[1]!);
      this.attrs = m[2]!;
      this.selfClosing = m[3] === '/';
      return Token.Open;
    }
  }

  /** An attribute of the current Open tag by local name (`id` finds `r:id`), decoded; undefined when absent. */
  attribute(name: string): string | undefined {
    return attributeOf(this.attrs, name);
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

const ATTRIBUTE = /([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

export function attributeOf(attrs: string, name: string): string | undefined {
  if (!attrs) return undefined;
  ATTRIBUTE.lastIndex = 0;
  for (let m = ATTRIBUTE.exec(attrs); m; m = ATTRIBUTE.exec(attrs)) {
    if (localName(m[1]!) === name) return decodeAttribute(m[2] ?? m[3]!);
  }
  return undefined;
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
