/**
 * The character encodings spreadsheet programs save text tables in, told apart from the bytes: a byte
 * order mark says UTF-8 or UTF-16 outright; UTF-16 without one shows as a zero byte in every other
 * position of ASCII text; bytes that are valid UTF-8 are read as UTF-8 (text in another encoding is
 * almost never valid UTF-8 by chance); anything else is Windows-1252, what Excel's "CSV (Comma
 * delimited)" writes on a Western Windows. The last two are guesses, and the table says so.
 */

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export interface DecodedText {
  text: string;
  encoding: TextEncoding;
  /** The file began with a byte order mark. */
  bom: boolean;
  /** No byte order mark said which encoding it is: it was told from the bytes. */
  guessed: boolean;
}

// Windows-1252's 0x80-0x9F (the WHATWG Encoding Standard's index); the rest of the bytes are Latin-1.
// Its five unassigned bytes map to the C1 controls, as the standard does.
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d,
  0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a,
  0x153, 0x9d, 0x17e, 0x178,
];
const CP1252_BACK = new Map(CP1252_HIGH.map((code, i) => [code, 0x80 + i]));

function decodeWindows1252(bytes: Uint8Array): string {
  let out = '';
  const chunk: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    chunk.push(b >= 0x80 && b < 0xa0 ? CP1252_HIGH[b - 0x80]! : b);
    if (chunk.length === 8192) {
      out += String.fromCharCode(...chunk);
      chunk.length = 0;
    }
  }
  return out + String.fromCharCode(...chunk);
}

/** Which byte positions of the first KB are zero: nearly all odd ones in UTF-16LE ASCII, even ones in BE. */
function utf16WithoutBom(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const n = Math.min(bytes.length, 1024) & ~1;
  if (n < 4) return undefined;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZero++;
    if (bytes[i + 1] === 0) oddZero++;
  }
  const pairs = n / 2;
  // Characters past U+00FF put a zero in the other position now and then (a low surrogate, Ā..ÿ's row).
  if (oddZero >= pairs * 0.3 && evenZero * 2 < oddZero) return 'utf-16le';
  if (evenZero >= pairs * 0.3 && oddZero * 2 < evenZero) return 'utf-16be';
  return undefined;
}

export function decodeText(bytes: Uint8Array): DecodedText {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return {
      text: new TextDecoder('utf-8').decode(bytes.subarray(3)),
      encoding: 'utf-8',
      bom: true,
      guessed: false,
    };
  if (bytes[0] === 0xff && bytes[1] === 0xfe)
    return {
      text: new TextDecoder('utf-16le').decode(bytes.subarray(2)),
      encoding: 'utf-16le',
      bom: true,
      guessed: false,
    };
  if (bytes[0] === 0xfe && bytes[1] === 0xff)
    return {
      text: new TextDecoder('utf-16be').decode(bytes.subarray(2)),
      encoding: 'utf-16be',
      bom: true,
      guessed: false,
    };
  const utf16 = utf16WithoutBom(bytes);
  if (utf16)
    return { text: new TextDecoder(utf16).decode(bytes), encoding: utf16, bom: false, guessed: true };
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    // Plain ASCII reads the same in every encoding offered here: nothing was guessed.
    // eslint-disable-next-line no-control-regex
    return { text, encoding: 'utf-8', bom: false, guessed: /[^\x00-\x7f]/.test(text) };
  } catch {
    return { text: decodeWindows1252(bytes), encoding: 'windows-1252', bom: false, guessed: true };
  }
}

/** Whether every character of the text has a Windows-1252 byte. */
export function fitsWindows1252(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!(c < 0x80 || (c >= 0xa0 && c < 0x100) || CP1252_BACK.has(c))) return false;
  }
  return true;
}

/** The text in the encoding, with a byte order mark when `bom` (ignored for Windows-1252, which has none). */
export function encodeText(text: string, encoding: TextEncoding, bom: boolean): Uint8Array {
  if (encoding === 'utf-8') {
    const body = new TextEncoder().encode(text);
    if (!bom) return body;
    const out = new Uint8Array(body.length + 3);
    out.set([0xef, 0xbb, 0xbf]);
    out.set(body, 3);
    return out;
  }
  if (encoding === 'windows-1252') {
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      out[i] = c < 0x80 || (c >= 0xa0 && c < 0x100) ? c : (CP1252_BACK.get(c) ?? 0x3f);
    }
    return out;
  }
  const offset = bom ? 2 : 0;
  const out = new Uint8Array(offset + text.length * 2);
  const le = encoding === 'utf-16le';
  if (bom) out.set(le ? [0xff, 0xfe] : [0xfe, 0xff]);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[offset + 2 * i + (le ? 0 : 1)] = c & 0xff;
    out[offset + 2 * i + (le ? 1 : 0)] = c >> 8;
  }
  return out;
}
