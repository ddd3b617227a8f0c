/**
 * A zip written back with some parts replaced and every other part copied byte for byte as it was
 * stored (APPNOTE.TXT 4.3: local header and data per entry, then the central directory and its end
 * record). Copied entries keep their compression, CRC, times and names; they are written without a data
 * descriptor, since their sizes are known from the directory. Replaced parts are DEFLATE-compressed with
 * the injected `deflateRaw` (node:zlib's deflateRawSync), or stored when none is given.
 */
import { unreadable, type ZipEntry, type ZipReader } from './zip';

/** Raw DEFLATE compression: node:zlib's deflateRawSync passed as it is. */
export type DeflateRaw = (data: Uint8Array) => Uint8Array;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 as zip uses it (ISO 3309, the reflected polynomial 0xEDB88320). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

interface Written {
  entry: ZipEntry;
  packed: Uint8Array;
  offset: number;
}

/** The zip with `replaced` parts (by name, as the directory spells them) put in place of their old bytes. */
export function rewriteZip(
  zip: ZipReader,
  replaced: ReadonlyMap<string, Uint8Array>,
  deflateRaw?: DeflateRaw,
): Uint8Array {
  const written: Written[] = [];
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (const old of zip.list()) {
    const fresh = replaced.get(old.name);
    let entry: ZipEntry;
    let packed: Uint8Array;
    if (fresh) {
      const deflated = deflateRaw ? deflateRaw(fresh) : undefined;
      packed = deflated ?? fresh;
      // Bit 3 (a data descriptor follows) is dropped: the sizes are in the header. Bit 11 (UTF-8 name) kept.
      entry = {
        ...old,
        method: deflated ? 8 : 0,
        flags: old.flags & 0x0800,
        crc32: crc32(fresh),
        compressedSize: packed.length,
        size: fresh.length,
      };
    } else {
      if (old.method !== 0 && old.method !== 8) throw unreadable(`${old.name} uses zip method ${old.method}`);
      packed = zip.packed(old);
      entry = { ...old, flags: old.flags & ~0x0008 };
    }
    const header = new Uint8Array(30 + entry.rawName.length);
    const view = new DataView(header.buffer);
    view.setUint32(0, 0x04034b50, true);
    view.setUint16(4, 20, true);
    view.setUint16(6, entry.flags, true);
    view.setUint16(8, entry.method, true);
    view.setUint16(10, entry.time, true);
    view.setUint16(12, entry.date, true);
    view.setUint32(14, entry.crc32, true);
    view.setUint32(18, entry.compressedSize, true);
    view.setUint32(22, entry.size, true);
    view.setUint16(26, entry.rawName.length, true);
    header.set(entry.rawName, 30);
    written.push({ entry, packed, offset });
    chunks.push(header, packed);
    offset += header.length + packed.length;
  }
  const directoryAt = offset;
  for (const { entry, offset: at } of written) {
    const central = new Uint8Array(46 + entry.rawName.length);
    const view = new DataView(central.buffer);
    view.setUint32(0, 0x02014b50, true);
    view.setUint16(4, 20, true);
    view.setUint16(6, 20, true);
    view.setUint16(8, entry.flags, true);
    view.setUint16(10, entry.method, true);
    view.setUint16(12, entry.time, true);
    view.setUint16(14, entry.date, true);
    view.setUint32(16, entry.crc32, true);
    view.setUint32(20, entry.compressedSize, true);
    view.setUint32(24, entry.size, true);
    view.setUint16(28, entry.rawName.length, true);
    view.setUint32(42, at, true);
    central.set(entry.rawName, 46);
    chunks.push(central);
    offset += central.length;
  }
  const end = new Uint8Array(22);
  const view = new DataView(end.buffer);
  view.setUint32(0, 0x06054b50, true);
  view.setUint16(8, written.length, true);
  view.setUint16(10, written.length, true);
  view.setUint32(12, offset - directoryAt, true);
  view.setUint32(16, directoryAt, true);
  chunks.push(end);
  const out = new Uint8Array(offset + end.length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}
