// The names in a zip file, read from its central directory (no dependency): enough for the release
// check to see what `zapier-platform build` put in build/source.zip.
const fs = require('node:fs');

function zipEntries(file) {
  const zip = fs.readFileSync(file);
  // The end-of-central-directory record is in the last 64 KiB + 22 bytes (its comment is at most 64 KiB).
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error(`${file} is not a zip file (no end of central directory)`);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const names = [];
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: bad central directory entry ${n}`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    names.push(zip.toString('utf8', at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

/** What must never ship in the source zip: dependencies and tests (the app folder's .gitignore says so). */
function sourceZipProblems(names) {
  const bad = names.filter(
    (name) => /^node_modules\//.test(name) || /^test\//.test(name) || /\.test\.ts$/.test(name),
  );
  return bad.length
    ? [
        `build/source.zip holds ${bad.length} file(s) it must not (dependencies or tests), e.g. ${bad.slice(0, 3).join(', ')}`,
      ]
    : [];
}

module.exports = { zipEntries, sourceZipProblems };
