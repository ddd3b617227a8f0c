/**
 * The parts of a zip file (APPNOTE.TXT: end-of-central-directory record, central directory, local
 * headers; entries stored or DEFLATE-compressed), unpacked within a budget counted in bytes actually
 * produced: the sizes a zip declares are never trusted, since a file can say 100 bytes and inflate to
 * gigabytes.
 */
import { InputError } from '@evf/client';

/**
 * Raw DEFLATE decompression that stops at `maxOutputLength` bytes of output: node:zlib's inflateRawSync
 * passed as it is (it throws a RangeError past the limit). A wrapper that drops the option loses the
 * guard while inflating; the output is still measured after and refused.
 */
export type InflateRaw = (data: Uint8Array, options: { maxOutputLength: number }) => Uint8Array;

export function isZip(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0x50 && data[1] === 0x4b && data[2] === 0x03 && data[3] === 0x04;
}

/** An OLE compound file: a legacy .xls, or an XLSX saved with a password (Excel encrypts into one). */
export function isCompoundFile(data: Uint8Array): boolean {
  return data.length >= 8 && data[0] === 0xd0 && data[1] === 0xcf && data[2] === 0x11 && data[3] === 0xe0;
}

export function unreadable(why: string): InputError {
  return new InputError(
    'file',
    'xlsx',
    `The XLSX file could not be read (${why}). Save it again from the spreadsheet program, or as CSV. Nothing was sent or charged.`,
  );
}

export interface ZipEntry {
  name: string;
  /** The name as stored, so a rewritten zip names the part byte for byte the same. */
  rawName: Uint8Array;
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  size: number;
  /** DOS time and date, kept as they were. */
  time: number;
  date: number;
  localOffset: number;
}

export class ZipReader {
  /** Entries by lower-cased name: part names in a package compare without case (ECMA-376 Part 2, 6.2.2.3). */
  private readonly entries = new Map<string, ZipEntry>();
  private readonly view: DataView;
  /** Bytes unpacked so far, against `budget`. */
  private spent = 0;

  constructor(
    private readonly data: Uint8Array,
    private readonly inflateRaw: InflateRaw,
    private readonly budget: number,
  ) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    this.readDirectory();
  }

  private readDirectory(): void {
    const { data, view } = this;
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
    if (count === 0xffff || at === 0xffffffff)
      throw unreadable('a ZIP64 archive, larger than a spreadsheet file is');
    const names = new TextDecoder('utf-8');
    for (let k = 0; k < count; k++) {
      if (at + 46 > data.length || view.getUint32(at, true) !== 0x02014b50)
        throw unreadable('a broken zip directory');
      const nameLength = view.getUint16(at + 28, true);
      const extraLength = view.getUint16(at + 30, true);
      const commentLength = view.getUint16(at + 32, true);
      const name = names.decode(data.subarray(at + 46, at + 46 + nameLength)).replace(/\\/g, '/');
      this.entries.set(name.toLowerCase(), {
        name,
        rawName: data.subarray(at + 46, at + 46 + nameLength),
        flags: view.getUint16(at + 8, true),
        method: view.getUint16(at + 10, true),
        time: view.getUint16(at + 12, true),
        date: view.getUint16(at + 14, true),
        crc32: view.getUint32(at + 16, true),
        compressedSize: view.getUint32(at + 20, true),
        size: view.getUint32(at + 24, true),
        localOffset: view.getUint32(at + 42, true),
      });
      at += 46 + nameLength + extraLength + commentLength;
    }
  }

  /** Every entry, in the order of the zip's directory. */
  list(): ZipEntry[] {
    return [...this.entries.values()];
  }

  /** An entry's bytes as stored (compressed or not), for copying it unchanged into another zip. */
  packed(entry: ZipEntry): Uint8Array {
    const { data, view } = this;
    const local = entry.localOffset;
    if (local + 30 > data.length || view.getUint32(local, true) !== 0x04034b50)
      throw unreadable(`a broken entry for ${entry.name}`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    if (start + entry.compressedSize > data.length) throw unreadable(`a cut entry for ${entry.name}`);
    return data.subarray(start, start + entry.compressedSize);
  }

  has(name: string): boolean {
    return this.entries.has(name.toLowerCase());
  }

  /** The part as text (UTF-8, or UTF-16 with its byte order mark), or undefined when the zip has no such part. */
  text(name: string): string | undefined {
    const bytes = this.bytes(name);
    if (!bytes) return undefined;
    if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
    if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
    return new TextDecoder('utf-8').decode(bytes);
  }

  bytes(name: string): Uint8Array | undefined {
    const entry = this.entries.get(name.toLowerCase());
    if (!entry) return undefined;
    const { data, view } = this;
    if (entry.flags & 1) throw unreadable(`${entry.name} is encrypted`);
    const local = entry.localOffset;
    if (local + 30 > data.length || view.getUint32(local, true) !== 0x04034b50)
      throw unreadable(`a broken entry for ${entry.name}`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const packed = data.subarray(start, Math.min(data.length, start + entry.compressedSize));
    const left = this.budget - this.spent;
    const tooLarge = (): InputError =>
      unreadable(
        `it unpacks to more than ${Math.round(this.budget / 2 ** 20)} MiB, more than a sheet this step reads; split the list or save it as CSV`,
      );
    let bytes: Uint8Array;
    if (entry.method === 0) bytes = packed;
    else if (entry.method === 8) {
      try {
        bytes = this.inflateRaw(packed, { maxOutputLength: Math.max(1, left) });
      } catch (error) {
        // node:zlib says ERR_BUFFER_TOO_LARGE (a RangeError) when the output would pass the limit.
        if (error instanceof RangeError || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
          throw tooLarge();
        throw unreadable(`${entry.name} is not valid DEFLATE data`);
      }
    } else throw unreadable(`${entry.name} uses zip method ${entry.method}`);
    if (bytes.length > left) throw tooLarge();
    this.spent += bytes.length;
    return bytes;
  }
}
