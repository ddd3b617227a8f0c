// The app's Zapier listing, kept in listing/listing.json (name, description, logo, category,
// homepage), and the rules Zapier holds it to:
// - the description is one sentence of 140 characters or less (the CLI's register refuses more,
//   MAX_DESCRIPTION_LENGTH in its constants.js) that starts "<Name> is a ..." and does not name Zapier
//   (Zapier's publishing requirements for the app description), at least 40 characters so it says
//   what the app does;
// - the logo is a square PNG of at least 256 x 256 pixels (listing/logo.png, made by scripts/logo.cjs);
// - the homepage is a real https address (scripts/release-addresses.cjs refuses placeholders).
//
//   node scripts/listing.cjs register   runs `zapier-platform register` with these fields (network)
//   node scripts/listing.cjs check      prints what is not listing-ready, exit 1 if anything
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { urlProblem } = require('../../../scripts/release-addresses.cjs');

const listingDir = path.join(__dirname, '..', 'listing');

function readListing() {
  return JSON.parse(readFileSync(path.join(listingDir, 'listing.json'), 'utf8'));
}

/** Width and height of a PNG from its header, or null when the bytes are not a PNG. */
function pngSize(bytes) {
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (
    bytes.length < 24 ||
    !bytes.subarray(0, 8).equals(signature) ||
    bytes.toString('latin1', 12, 16) !== 'IHDR'
  )
    return null;
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/**
 * What keeps the listing from being submitted. `release` adds the checks only a release needs: a
 * homepage that is not a placeholder.
 */
function listingProblems(listing, { release = false } = {}) {
  const problems = [];
  const name = typeof listing.name === 'string' ? listing.name.trim() : '';
  const description = typeof listing.description === 'string' ? listing.description : '';
  if (name.length < 2) problems.push("name: at least 2 characters (the CLI's MIN_TITLE_LENGTH)");
  if (/zapier/i.test(name)) problems.push('name: must not contain the word Zapier');
  if (!description.startsWith(`${name} is a`))
    problems.push(`description: must start "${name} is a ..." (the app's name, then what it is)`);
  if (description.length < 40 || description.length > 140)
    problems.push(`description: 40 to 140 characters, has ${description.length}`);
  if (/zapier/i.test(description)) problems.push('description: must not contain the word Zapier');
  if (!/^[a-z0-9-]+$/.test(listing.category ?? ''))
    problems.push(
      'category: one of the slugs `zapier-platform register --help` lists (e.g. marketing-automation)',
    );
  let logo = null;
  try {
    logo = pngSize(readFileSync(path.join(listingDir, listing.logo ?? '')));
  } catch {
    // Reported below.
  }
  if (!logo) problems.push(`logo: listing/${listing.logo} must be a PNG file`);
  else if (logo.width !== logo.height || logo.width < 256)
    problems.push(`logo: a square PNG of at least 256 x 256 pixels, is ${logo.width} x ${logo.height}`);
  const homepage = release
    ? urlProblem(listing.homepage)
    : /^https:\/\//.test(listing.homepage ?? '')
      ? null
      : 'must be https';
  if (homepage) problems.push(`homepage ${homepage}`);
  return problems;
}

if (require.main === module) {
  const listing = readListing();
  const problems = listingProblems(listing, { release: true });
  if (problems.length) {
    process.stderr.write(
      `✖ Zapier listing (packages/zapier/listing/listing.json):\n  - ${problems.join('\n  - ')}\n`,
    );
    process.exit(1);
  }
  if (process.argv[2] === 'register') {
    const { runInteractive } = require('./zapier-cli.cjs');
    // Audience and role are asked by the CLI itself (they depend on who registers).
    runInteractive([
      'register',
      listing.name,
      '--desc',
      listing.description,
      '--url',
      listing.homepage,
      '--category',
      listing.category,
    ]);
  } else {
    process.stdout.write(
      `✔ Zapier listing: ${listing.name}, ${listing.description.length}-character description, logo, ${listing.category}, ${listing.homepage}\n`,
    );
  }
}

module.exports = { readListing, listingProblems, pngSize };
