// Makes Zapier's listing logo (listing/logo.png, 256 x 256: Zapier's app logo size) from the Make app's
// 512 x 512 logo, so the three platforms show one picture. Each output pixel is the average of a 2 x 2
// block, in premultiplied alpha so the transparent corners do not darken the edge.
//   node scripts/logo.cjs           writes listing/logo.png
//   node scripts/logo.cjs --check   exits 1 if listing/logo.png is not what the Make logo gives
// Reads and writes only 8-bit RGBA, non-interlaced PNG (what the Make logo is), and says so otherwise.
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const source = path.join(__dirname, '../../make/assets/logo.png');
const target = path.join(__dirname, '../listing/logo.png');
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunks(png) {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG file');
  const out = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    out.push({ type: png.toString('latin1', at + 4, at + 8), data: png.subarray(at + 8, at + 8 + length) });
    at += 12 + length;
  }
  return out;
}

function decode(png) {
  const all = chunks(png);
  const ihdr = all.find((c) => c.type === 'IHDR').data;
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  if (ihdr[8] !== 8 || ihdr[9] !== 6 || ihdr[12] !== 0)
    throw new Error('only 8-bit RGBA non-interlaced PNG is read');
  const raw = zlib.inflateSync(Buffer.concat(all.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  const stride = width * 4;
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= 4 ? pixels[y * stride + x - 4] : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x] : 0;
      const c = x >= 4 && y > 0 ? pixels[(y - 1) * stride + x - 4] : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      const predictor = [0, a, b, (a + b) >> 1, paeth][filter];
      if (predictor === undefined) throw new Error(`unknown PNG filter ${filter}`);
      pixels[y * stride + x] = (line[x] + predictor) & 0xff;
    }
  }
  return { width, height, pixels };
}

function crc32(bytes) {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function encode({ width, height, pixels }) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const stride = width * 4;
  const raw = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) pixels.copy(raw, y * (stride + 1) + 1, y * stride, (y + 1) * stride);
  const idat = zlib.deflateSync(raw, { level: 9 });
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

function halve({ width, height, pixels }) {
  const w = width >> 1;
  const h = height >> 1;
  const out = Buffer.alloc(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let alpha = 0;
      const sum = [0, 0, 0];
      for (const [dx, dy] of [
        [0, 0],
        [1, 0],
        [0, 1],
        [1, 1],
      ]) {
        const at = ((2 * y + dy) * width + 2 * x + dx) * 4;
        const a = pixels[at + 3];
        alpha += a;
        for (let k = 0; k < 3; k++) sum[k] += pixels[at + k] * a;
      }
      const at = (y * w + x) * 4;
      for (let k = 0; k < 3; k++) out[at + k] = alpha ? Math.round(sum[k] / alpha) : 0;
      out[at + 3] = Math.round(alpha / 4);
    }
  return { width: w, height: h, pixels: out };
}

function zapierLogo() {
  const image = decode(readFileSync(source));
  if (image.width !== 512 || image.height !== 512)
    throw new Error(`the Make logo is ${image.width} x ${image.height}, not 512 x 512`);
  return encode(halve(image));
}

if (require.main === module) {
  const made = zapierLogo();
  if (process.argv.includes('--check')) {
    let current = Buffer.alloc(0);
    try {
      current = readFileSync(target);
    } catch {
      // Missing: reported below.
    }
    if (!current.equals(made)) {
      console.error('listing/logo.png is not the Make logo at 256 x 256: run node scripts/logo.cjs');
      process.exit(1);
    }
  } else {
    writeFileSync(target, made);
  }
}

module.exports = { decode, zapierLogo };
