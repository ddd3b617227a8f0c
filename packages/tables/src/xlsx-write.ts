/**
 * A workbook written back as a workbook: the package as it came, with the result columns added to the
 * sheet that was read (a header cell on the header row, cells on each data row) and every other part
 * copied byte for byte (other sheets, shared strings, styles but one added cell style, defined names,
 * formulas and their cached values, merged cells, widths). New text cells are inline strings (ECMA-376
 * Part 1, 18.3.1.53 `is`), so the shared strings part is never rewritten; a text that looks like a
 * formula (`=SUM(1,2)`, `+49 151 123`) is text in such a cell, never a formula. Answer times are date
 * cells (serial days in the workbook's own date system) in an added cell style with a date format.
 */
import { columnLetter, columnIndex } from './columns';
import type { WorkbookSource } from './read-table';
import { Token, XmlCursor } from './xml';
import { relationships, workbookPath } from './xlsx';
import { unreadable, ZipReader } from './zip';
import { rewriteZip, type DeflateRaw } from './zip-write';

/** A new cell: text, a boolean, an instant (written as a date), or nothing. */
export type NewCell = string | boolean | Date | undefined;

export interface SheetAdditions {
  /** The header's row number as the sheet shows it. */
  headerRow: number;
  /** The 0-based column the new columns start at (past every cell of the header and data rows). */
  firstColumn: number;
  /** The new header cells. */
  header: readonly string[];
  /** How many data rows follow the header. */
  rowCount: number;
  /** The new cells of data row `index` (sheet row headerRow + 1 + index), called once per row in order. */
  cellsOf(index: number): readonly NewCell[];
}

/** The number format of the added date style: unambiguous in every locale, to the second. */
const DATE_TIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';
const BYTE_BUDGET = 256 * 2 ** 20;

/** Characters XML 1.0 cannot carry (and CR, which parsers turn into LF), written as `_xHHHH_`. */
const NOT_XML =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000d\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[&<>\u0000-\u001f\ud800-\udfff\ufffe\uffff]|_x/;

/** Text as a cell's `t` element holds it: ECMA-376 escapes (ST_Xstring), then XML's. */
export function cellText(text: string): string {
  // Most cells need nothing: one test instead of three replacements (a 50,000-row write makes 300,000).
  if (!NEEDS_ESCAPE.test(text)) return text;
  const escaped = text
    // A literal `_xHHHH_` would read back as the character: its underscore is escaped first.
    .replace(/_(x[0-9A-Fa-f]{4}_)/g, '_x005F_$1')
    .replace(NOT_XML, (c) => `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`);
  return escaped.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** An instant as a serial day number (1900 system: day 1 is 1900-01-01, with Excel's 1900-02-29). */
function serialOf(date: Date, date1904: boolean): number {
  const days = date.getTime() / 86_400_000;
  return date1904 ? days - 24_107 : days + 25_569;
}

/** The styles part with one cell style added for answer times; the style's index, or undefined without styles. */
function withDateStyle(xml: string): { xml: string; index: number } | undefined {
  const cur = new XmlCursor(xml);
  const used = new Set<number>();
  let numFmtsEnd = -1;
  let styleSheetOpenEnd = -1;
  let prefix = '';
  let xfCount = 0;
  let inCellXfs = false;
  let cellXfsOpen: { start: number; end: number; selfClosing: boolean } | undefined;
  let cellXfsClose = -1;
  let numFmtsOpen: { start: number; end: number; selfClosing: boolean } | undefined;
  for (let t = cur.next(); t !== Token.End; t = cur.next()) {
    if (t === Token.Open) {
      if (cur.name === 'styleSheet') {
        styleSheetOpenEnd = cur.end;
        const raw = xml.slice(cur.start + 1, cur.start + 1 + 64);
        prefix = /^([A-Za-z_][\w.-]*:)?styleSheet/.exec(raw)?.[1] ?? '';
      } else if (cur.name === 'numFmt') used.add(Number(cur.attribute('numFmtId')));
      else if (cur.name === 'numFmts')
        numFmtsOpen = { start: cur.start, end: cur.end, selfClosing: cur.selfClosing };
      else if (cur.name === 'cellXfs') {
        cellXfsOpen = { start: cur.start, end: cur.end, selfClosing: cur.selfClosing };
        inCellXfs = !cur.selfClosing;
      } else if (cur.name === 'xf' && inCellXfs) {
        xfCount++;
        if (!cur.selfClosing) cur.skipElement();
      }
    } else if (t === Token.Close) {
      if (cur.name === 'cellXfs') {
        inCellXfs = false;
        cellXfsClose = cur.start;
      } else if (cur.name === 'numFmts') numFmtsEnd = cur.start;
    }
  }
  if (styleSheetOpenEnd < 0 || !cellXfsOpen || cellXfsOpen.selfClosing || cellXfsClose < 0) return undefined;
  let id = 164;
  while (used.has(id)) id++;
  const numFmt = `<${prefix}numFmt numFmtId="${id}" formatCode="${DATE_TIME_FORMAT}"/>`;
  const xf = `<${prefix}xf numFmtId="${id}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`;
  const edits: { at: number; to: number; text: string }[] = [];
  if (numFmtsOpen && !numFmtsOpen.selfClosing && numFmtsEnd >= 0) {
    edits.push({
      at: numFmtsOpen.start,
      to: numFmtsOpen.end,
      text: setCount(xml.slice(numFmtsOpen.start, numFmtsOpen.end), used.size + 1),
    });
    edits.push({ at: numFmtsEnd, to: numFmtsEnd, text: numFmt });
  } else if (numFmtsOpen) {
    edits.push({
      at: numFmtsOpen.start,
      to: numFmtsOpen.end,
      text: `<${prefix}numFmts count="1">${numFmt}</${prefix}numFmts>`,
    });
  } else {
    // numFmts is the first child of styleSheet (CT_Stylesheet's sequence).
    edits.push({
      at: styleSheetOpenEnd,
      to: styleSheetOpenEnd,
      text: `<${prefix}numFmts count="1">${numFmt}</${prefix}numFmts>`,
    });
  }
  edits.push({
    at: cellXfsOpen.start,
    to: cellXfsOpen.end,
    text: setCount(xml.slice(cellXfsOpen.start, cellXfsOpen.end), xfCount + 1),
  });
  edits.push({ at: cellXfsClose, to: cellXfsClose, text: xf });
  return { xml: applyEdits(xml, edits), index: xfCount };
}

/** An open tag with its `count` attribute set (added when absent). */
function setCount(tag: string, count: number): string {
  if (/\scount\s*=\s*(["'])[^"']*\1/.test(tag))
    return tag.replace(/(\scount\s*=\s*)(["'])[^"']*\2/, `$1"${count}"`);
  return tag.replace(/\s*(\/?)>$/, ` count="${count}"$1>`);
}

function applyEdits(xml: string, edits: { at: number; to: number; text: string }[]): string {
  edits.sort((a, b) => a.at - b.at || a.to - b.to);
  const parts: string[] = [];
  let last = 0;
  for (const e of edits) {
    parts.push(xml.slice(last, e.at), e.text);
    last = e.to;
  }
  parts.push(xml.slice(last));
  return parts.join('');
}

/** The styles part's name, found as the reader finds it (the workbook's relationship), or undefined. */
function stylesPartOf(zip: ZipReader): string | undefined {
  const book = workbookPath(zip);
  for (const rel of relationships(zip, book).values())
    if (rel.type.endsWith('/styles') && zip.has(rel.target)) return rel.target;
  return zip.has('xl/styles.xml') ? 'xl/styles.xml' : undefined;
}

/**
 * The workbook with the additions written into its sheet. Every part but the sheet and the styles is
 * copied as stored; `deflateRaw` (node:zlib's deflateRawSync) compresses the two rewritten parts.
 */
export function writeWorkbookBack(
  source: WorkbookSource,
  additions: SheetAdditions,
  deflateRaw?: DeflateRaw,
): Uint8Array {
  const zip = new ZipReader(source.data, source.inflateRaw, BYTE_BUDGET);
  const sheetXml = zip.text(source.sheetPart);
  if (sheetXml === undefined) throw unreadable(`the sheet's part ${source.sheetPart} is missing`);
  const stylesPart = stylesPartOf(zip);
  const styles = stylesPart ? withDateStyle(zip.text(stylesPart)!) : undefined;
  const sheet = addToSheet(sheetXml, additions, source.date1904, styles?.index);
  const encoder = new TextEncoder();
  const replaced = new Map<string, Uint8Array>();
  const nameOf = (part: string): string =>
    zip.list().find((e) => e.name.toLowerCase() === part.toLowerCase())!.name;
  replaced.set(nameOf(source.sheetPart), encoder.encode(sheet));
  if (stylesPart && styles) replaced.set(nameOf(stylesPart), encoder.encode(styles.xml));
  return rewriteZip(zip, replaced, deflateRaw);
}

/** The sheet's XML with the new header cells and row cells in place (rows made where the sheet has none). */
function addToSheet(
  xml: string,
  add: SheetAdditions,
  date1904: boolean,
  dateStyle: number | undefined,
): string {
  const cur = new XmlCursor(xml);
  const parts: string[] = [];
  let last = 0;
  const emit = (at: number, text: string, to = at): void => {
    parts.push(xml.slice(last, at), text);
    last = to;
  };
  let p = '';
  const firstRow = add.headerRow;
  const lastRow = add.headerRow + add.rowCount;
  let pending = firstRow;
  let rowNumber = 0;
  let openRow = false;
  let dimension: { start: number; end: number; ref: string } | undefined;
  let sheetDataSeen = false;
  // Where the next CDATA section begins (-1: none), found again only once passed.
  let nextCdata = xml.indexOf('<![CDATA[');

  const cellsXml = (row: number): string => {
    const cells: readonly NewCell[] = row === firstRow ? add.header : add.cellsOf(row - firstRow - 1);
    let out = '';
    for (let k = 0; k < cells.length; k++) {
      const value = cells[k];
      const ref = `${columnLetter(add.firstColumn + k)}${row}`;
      if (value === undefined || value === '') continue;
      if (typeof value === 'boolean')
        out += `<${p}c r="${ref}" t="b"><${p}v>${value ? 1 : 0}</${p}v></${p}c>`;
      else if (value instanceof Date) {
        if (dateStyle === undefined) out += inline(ref, value.toISOString().replace(/\.\d{3}Z$/, 'Z'));
        else out += `<${p}c r="${ref}" s="${dateStyle}"><${p}v>${serialOf(value, date1904)}</${p}v></${p}c>`;
      } else out += inline(ref, value);
    }
    return out;
  };
  const inline = (ref: string, text: string): string => {
    const space = /^\s|\s$/.test(text) ? ' xml:space="preserve"' : '';
    return `<${p}c r="${ref}" t="inlineStr"><${p}is><${p}t${space}>${cellText(text)}</${p}t></${p}is></${p}c>`;
  };
  const newRows = (until: number): string => {
    let out = '';
    for (; pending <= lastRow && pending < until; pending++)
      out += `<${p}row r="${pending}">${cellsXml(pending)}</${p}row>`;
    return out;
  };

  for (let t = cur.next(); t !== Token.End; t = cur.next()) {
    if (t === Token.Open) {
      const name = cur.name;
      if (name === 'dimension')
        dimension = { start: cur.start, end: cur.end, ref: cur.attribute('ref') ?? '' };
      else if (name === 'sheetData') {
        sheetDataSeen = true;
        p = /^<([A-Za-z_][\w.-]*:)?sheetData/.exec(xml.slice(cur.start, cur.start + 64))?.[1] ?? '';
        if (cur.selfClosing) emit(cur.start, `<${p}sheetData>${newRows(Infinity)}</${p}sheetData>`, cur.end);
      } else if (name === 'row') {
        const r = Number(cur.attribute('r') ?? rowNumber + 1);
        rowNumber = Number.isInteger(r) && r > rowNumber ? r : rowNumber + 1;
        const before = newRows(rowNumber);
        if (rowNumber === pending && pending <= lastRow) {
          // `spans` is an optional hint of the row's cell range (18.3.1.73); it would be wrong now.
          const tag = xml.slice(cur.start, cur.end).replace(/\sspans\s*=\s*(["'])[^"']*\1/, '');
          if (cur.selfClosing) {
            emit(cur.start, `${before}${tag.replace(/\s*\/>$/, '>')}${cellsXml(pending)}</${p}row>`, cur.end);
            pending++;
          } else {
            emit(cur.start, before + tag, cur.end);
            openRow = true;
          }
        } else if (before) emit(cur.start, before);
        // A row's cells are not looked at: straight to its end tag, unless CDATA (which may hold any
        // text) stands before it, when the cells are stepped over one by one.
        if (!cur.selfClosing) {
          const close = xml.indexOf(`</${p}row`, cur.end);
          const after = xml.charCodeAt(close + p.length + 5);
          if (nextCdata >= 0 && nextCdata < cur.end) nextCdata = xml.indexOf('<![CDATA[', cur.end);
          const endTag = after === 62 || after === 32 || after === 9 || after === 10 || after === 13;
          if (close >= 0 && endTag && (nextCdata < 0 || nextCdata > close)) cur.seek(close);
        }
      } else if (name === 'c' || name === 'f' || name === 'is' || name === 'v') {
        // Cells are read past without looking inside: only rows and the sheet's frame matter here.
        if (!cur.selfClosing) cur.skipElement();
      }
    } else if (t === Token.Close) {
      if (cur.name === 'row' && openRow) {
        emit(cur.start, cellsXml(pending));
        pending++;
        openRow = false;
      } else if (cur.name === 'sheetData') emit(cur.start, newRows(Infinity));
    }
  }
  if (!sheetDataSeen) throw unreadable('the sheet has no sheetData');
  parts.push(xml.slice(last));
  let out = parts.join('');
  if (dimension) {
    const m = /^([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/.exec(dimension.ref);
    if (m) {
      const endCol = Math.max(columnIndex(m[3] ?? m[1]!) ?? 0, add.firstColumn + add.header.length - 1);
      const endRow = Math.max(Number(m[4] ?? m[2]), lastRow);
      const ref = `${m[1]}${m[2]}:${columnLetter(endCol)}${endRow}`;
      const tag = xml
        .slice(dimension.start, dimension.end)
        .replace(/(\sref\s*=\s*)(["'])[^"']*\2/, `$1"${ref}"`);
      // The dimension comes before sheetData, so it sits at the same place in the new text.
      out = out.slice(0, dimension.start) + tag + out.slice(dimension.end);
    }
  }
  return out;
}
