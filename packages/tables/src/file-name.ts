/**
 * The name of a downloaded file, from its Content-Disposition header (RFC 6266: a disposition type,
 * then parameters; `filename*` in RFC 8187's `charset'language'percent-encoded` form wins over
 * `filename`, a token or a quoted string with backslash escapes), else from its URL's last path
 * segment. The extension decides how the file is read, so a `;` or `"` inside a quoted name must not
 * cut it short (`filename="a;b.csv"`).
 */

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;

/** Parameters of a header value after its first `;`, names lower-cased; undefined when it does not parse. */
function parameters(header: string): Map<string, string> | undefined {
  const params = new Map<string, string>();
  let i = header.indexOf(';');
  if (i < 0) return params;
  const n = header.length;
  while (i < n) {
    // At a ';': skip it and white space.
    i++;
    while (i < n && (header[i] === ' ' || header[i] === '\t')) i++;
    if (i >= n) break;
    const name = TOKEN.exec(header.slice(i))?.[0];
    if (!name) return undefined;
    i += name.length;
    while (i < n && (header[i] === ' ' || header[i] === '\t')) i++;
    if (header[i] !== '=') return undefined;
    i++;
    while (i < n && (header[i] === ' ' || header[i] === '\t')) i++;
    let value = '';
    if (header[i] === '"') {
      i++;
      for (; i < n && header[i] !== '"'; i++)
        value += header[i] === '\\' && i + 1 < n ? header[++i] : header[i];
      if (header[i] !== '"') return undefined;
      i++;
    } else {
      // Servers often send names unquoted, spaces and all: everything up to the next ';'.
      const end = header.indexOf(';', i);
      value = header.slice(i, end < 0 ? n : end).trim();
      i = end < 0 ? n : end;
    }
    while (i < n && header[i] !== ';') {
      if (header[i] !== ' ' && header[i] !== '\t') return undefined;
      i++;
    }
    const key = name.toLowerCase();
    if (!params.has(key)) params.set(key, value);
  }
  return params;
}

/** An RFC 8187 ext-value (`UTF-8''na%C3%AFve.csv`), or undefined when it is not one this reads. */
function extValue(value: string): string | undefined {
  const m = /^([A-Za-z0-9!#$%&+^_`{}~-]+)'[A-Za-z0-9-]*'(.*)$/.exec(value);
  if (!m) return undefined;
  const charset = m[1]!.toLowerCase();
  const encoded = m[2]!;
  if (charset === 'utf-8') {
    try {
      return decodeURIComponent(encoded);
    } catch {
      return undefined;
    }
  }
  if (charset === 'iso-8859-1')
    return encoded.replace(/%([0-9A-Fa-f]{2})/g, (_s, h: string) => String.fromCharCode(parseInt(h, 16)));
  return undefined;
}

/** The last segment of a path, so a name never carries folders ("C:\\Users\\a\\list.csv" → "list.csv"). */
const baseName = (name: string): string => name.split(/[\\/]/).pop()!.trim();

/** The file name a Content-Disposition header gives, or undefined. */
export function fileNameFromContentDisposition(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const params = parameters(header);
  if (!params) return undefined;
  const extended = params.has('filename*') ? extValue(params.get('filename*')!) : undefined;
  const name = baseName(extended ?? params.get('filename') ?? '');
  return name || undefined;
}

/** A downloaded table's file name: from Content-Disposition, else the URL's last path segment, else `list.csv`. */
export function downloadedFileName(
  contentDisposition: string | null | undefined,
  url?: string | URL,
): string {
  const fromHeader = fileNameFromContentDisposition(contentDisposition);
  if (fromHeader) return fromHeader;
  if (url !== undefined) {
    try {
      const last = new URL(String(url)).pathname.split('/').filter(Boolean).pop();
      if (last) return baseName(decodeURIComponent(last)) || 'list.csv';
    } catch {
      // Not a URL, or a segment that is not valid percent-encoding: the default name.
    }
  }
  return 'list.csv';
}
