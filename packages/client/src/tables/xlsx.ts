/**
 * The first sheet of an XLSX workbook as rows of text, with no dependency: an XLSX file is a zip
 * (APPNOTE.TXT: end-of-central-directory record, central directory, local headers; entries stored or
 * DEFLATE-compressed) of XML parts (ECMA-376 Part 1: xl/workbook.xml names the sheets in order,
 * xl/_rels/workbook.xml.rels says which part each is, xl/sharedStrings.xml holds the text that cells of
 * type "s" point at by index, and each worksheet's sheetData lists rows and cells by reference). Empty
 * rows are kept, so row numbers match what the spreadsheet shows.
 */
import { InputError } from '../errors';

/** Raw DEFLATE decompression, e.g. node:zlib's inflateRawSync. */
export type InflateRaw = (data: Uint8Array) => Uint8Array;

/** Largest part read, unpacked: a 50,000-row sheet is a few MB; a zip bomb is refused before it is inflated. */
const MAX_PART_BYTES = 256 * 1024 * 1024;

export function isZip(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0x50 && data[1] === 0x4b && data[2] === 0x03 && data[3] === 0x04;
}

function unreadable(why: string): InputError {
  return new InputError('file', 'xlsx', `The XLSX file could not be read (${why}). Save it again from the spreadsheet program, or as CSV. Nothing was sent or charged.`);
}

interface ZipEntry {
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

function centralDirectory(data: Uint8Array): Map<string, ZipEntry> {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  // The end record is 22 bytes plus a comment of up to 65,535 bytes.
  let eocd = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 65_535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw unreadable('no zip directory');
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  const names = new TextDecoder('utf-8');
  const entries = new Map<string, ZipEntry>();
  for (let k = 0; k < count; k++) {
    if (at + 46 > data.length || view.getUint32(at, true) !== 0x02014b50) throw unreadable('a broken zip directory');
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const name = names.decode(data.subarray(at + 46, at + 46 + nameLength));
    entries.set(name, {
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function readPart(data: Uint8Array, entries: Map<string, ZipEntry>, name: string, inflateRaw: InflateRaw): string | undefined {
  const entry = entries.get(name);
  if (!entry) return undefined;
  if (entry.size > MAX_PART_BYTES) throw unreadable(`${name} is larger than ${MAX_PART_BYTES / 2 ** 20} MB unpacked`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const local = entry.localOffset;
  if (local + 30 > data.length || view.getUint32(local, true) !== 0x04034b50) throw unreadable(`a broken entry for ${name}`);
  const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
  const packed = data.subarray(start, start + entry.compressedSize);
  let bytes: Uint8Array;
  if (entry.method === 0) bytes = packed;
  else if (entry.method === 8) bytes = inflateRaw(packed);
  else throw unreadable(`${name} uses zip method ${entry.method}`);
  if (bytes.length > MAX_PART_BYTES) throw unreadable(`${name} is too large unpacked`);
  return new TextDecoder('utf-8').decode(bytes);
}

function xmlText(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (_m, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    return ({ lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" } as Record<string, string>)[e]!;
  });
}

function attr(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return m ? xmlText(m[1]!) : undefined;
}

/** The text runs of a shared string or inline string, without phonetic guides (rPh). */
function runsText(xml: string): string {
  const withoutPhonetic = xml.replace(/<rPh\b[\s\S]*?<\/rPh>/g, '');
  let out = '';
  for (const m of withoutPhonetic.matchAll(/<t(?:\s[^>]*)?>([\s\S]*?)<\/t>/g)) out += xmlText(m[1]!);
  return out;
}

interface SheetEntry {
  name: string;
  relId?: string;
  hidden: boolean;
}

function sheetsOf(workbook: string | undefined): SheetEntry[] {
  const out: SheetEntry[] = [];
  for (const m of workbook?.matchAll(/<sheet\b[^>]*>/g) ?? []) {
    const state = attr(m[0], 'state');
    out.push({ name: attr(m[0], 'name') ?? '', relId: attr(m[0], 'r:id'), hidden: state === 'hidden' || state === 'veryHidden' });
  }
  return out;
}

/**
 * The sheet asked for: by name (case and spacing ignored) first, then by position (1 is the first
 * sheet, hidden ones counted, as the tabs are numbered in the workbook). Without a choice: the first
 * visible sheet, the one the program shows when the file is opened.
 */
function chosenSheet(sheets: SheetEntry[], choice: string | number | undefined): SheetEntry | undefined {
  if (choice === undefined || (typeof choice === 'string' && choice.trim() === '')) return sheets.find((s) => !s.hidden) ?? sheets[0];
  const wanted = String(choice).trim();
  const norm = (s: string): string => s.trim().replace(/\s+/g, ' ').toLowerCase();
  const byName = sheets.find((s) => norm(s.name) === norm(wanted));
  if (byName) return byName;
  if (/^\d+$/.test(wanted) && Number(wanted) >= 1 && Number(wanted) <= sheets.length) return sheets[Number(wanted) - 1];
  const names = sheets.map((s, i) => `${i + 1} "${s.name}"${s.hidden ? ' (hidden)' : ''}`).join(', ');
  throw new InputError('sheet', 'not_found', `The workbook has no sheet "${wanted.slice(0, 60)}". Its sheets are: ${names}. Give a sheet name or its position (1 is the first). Nothing was sent or charged.`);
}

function sheetPath(entries: Map<string, ZipEntry>, part: (n: string) => string | undefined, choice: string | number | undefined): string {
  const sheets = sheetsOf(part('xl/workbook.xml'));
  const rels = part('xl/_rels/workbook.xml.rels');
  const sheet = chosenSheet(sheets, choice);
  if (rels && sheet?.relId) {
    for (const m of rels.matchAll(/<Relationship\b[^>]*>/g)) {
      if (attr(m[0], 'Id') !== sheet.relId) continue;
      const target = attr(m[0], 'Target') ?? '';
      const path = target.startsWith('/') ? target.slice(1) : `xl/${target}`;
      if (entries.has(path)) return path;
    }
  }
  if (sheets.length <= 1 && entries.has('xl/worksheets/sheet1.xml')) return 'xl/worksheets/sheet1.xml';
  throw unreadable('no worksheet in it');
}

function columnOf(ref: string | undefined): number | undefined {
  const letters = ref?.match(/^[A-Z]+/)?.[0];
  if (!letters) return undefined;
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** The first sheet's rows, each cell as text; row i of the result is spreadsheet row i + 1. */
export function readXlsxFirstSheet(data: Uint8Array, inflateRaw: InflateRaw): string[][] {
  return readXlsxSheet(data, inflateRaw);
}

/**
 * A sheet's rows (by name or 1-based position; the first visible sheet by default), each cell as
 * text; row i of the result is spreadsheet row i + 1.
 */
export function readXlsxSheet(data: Uint8Array, inflateRaw: InflateRaw, sheetChoice?: string | number): string[][] {
  const entries = centralDirectory(data);
  const part = (n: string): string | undefined => readPart(data, entries, n, inflateRaw);
  const sheet = part(sheetPath(entries, part, sheetChoice))!;
  const shared: string[] = [];
  const sst = part('xl/sharedStrings.xml');
  if (sst) for (const m of sst.matchAll(/<si>([\s\S]*?)<\/si>/g)) shared.push(runsText(m[1]!));

  const rows: string[][] = [];
  for (const rowMatch of sheet.matchAll(/<row\b([^>]*?)(?:\/>|>([\s\S]*?)<\/row>)/g)) {
    const rowNumber = Number(attr(rowMatch[1]!, 'r') ?? rows.length + 1);
    while (rows.length < rowNumber - 1) rows.push(['']);
    const cells: string[] = [];
    for (const c of (rowMatch[2] ?? '').matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const attrs = c[1]!;
      const at = columnOf(attr(attrs, 'r')) ?? cells.length;
      const type = attr(attrs, 't');
      const body = c[2] ?? '';
      const v = body.match(/<v>([\s\S]*?)<\/v>/)?.[1];
      let text: string;
      if (type === 's') text = shared[Number(v)] ?? '';
      else if (type === 'inlineStr') text = runsText(body);
      else if (type === 'b') text = v === '1' ? 'TRUE' : v === '0' ? 'FALSE' : '';
      else text = v === undefined ? '' : xmlText(v);
      while (cells.length < at) cells.push('');
      cells[at] = text;
    }
    rows.push(cells.length ? cells : ['']);
  }
  return rows;
}
