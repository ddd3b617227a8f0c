/**
 * The Zapier listing (listing/listing.json) meets Zapier's rules, the package says the same, and the
 * release check refuses what Zapier or a user would: placeholders, a long or self-naming description,
 * a small or non-square logo.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const { readListing, listingProblems, pngSize } = require('../scripts/listing.cjs') as {
  readListing(): Record<string, string>;
  listingProblems(listing: Record<string, string>, options?: { release?: boolean }): string[];
  pngSize(bytes: Buffer): { width: number; height: number } | null;
};
const { zapierLogo } = require('../scripts/logo.cjs') as { zapierLogo(): Buffer };

const root = path.join(__dirname, '..');
const listing = readListing();

it('the listing in the repository meets every rule but the release-only homepage check', () => {
  expect(listingProblems(listing)).toEqual([]);
  expect(listing.description).toMatch(new RegExp(`^${listing.name} is a `));
  expect(listing.description.length).toBeGreaterThanOrEqual(40);
  expect(listing.description.length).toBeLessThanOrEqual(140);
  expect(listing.description).not.toMatch(/zapier/i);
});

it('package.json describes the app with the listing description, not as "Zapier app for ..."', () => {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  expect(manifest.description).toBe(listing.description);
});

it('the logo is a 256 x 256 PNG, the Make logo halved (one picture on every platform)', () => {
  const logo = readFileSync(path.join(root, 'listing', listing.logo));
  expect(pngSize(logo)).toEqual({ width: 256, height: 256 });
  expect(logo.equals(zapierLogo())).toBe(true);
});

it.each([
  ['a placeholder homepage', { homepage: 'https://www.emailverify.example' }, /homepage .*reserved name/],
  ['example.com', { homepage: 'https://example.com' }, /homepage .*reserved name/],
  ['localhost', { homepage: 'https://localhost:8080' }, /homepage .*reserved name/],
  ['plain http', { homepage: 'http://www.evf-production.com' }, /homepage .*https/],
  [
    'a description over 140 characters',
    { description: `Email Verification is a ${'very '.repeat(30)}good service.` },
    /40 to 140/,
  ],
  [
    'a description naming Zapier',
    { description: 'Email Verification is a service that verifies the addresses in your Zapier Zaps.' },
    /word Zapier/,
  ],
  [
    'a description not starting with the name',
    { description: 'Verify email addresses before you send them a single cold email.' },
    /must start "Email Verification is a/,
  ],
  ['a name with Zapier in it', { name: 'Zapier Email Verification' }, /name: must not contain/],
  ['a logo that is not there', { logo: 'missing.png' }, /logo: .* must be a PNG/],
])('the release check refuses %s', (_name, change, says) => {
  const problems = listingProblems(
    { ...listing, homepage: 'https://www.evf-production.com', ...change },
    { release: true },
  );
  expect(problems.join('\n')).toMatch(says);
});

it('the release check accepts the listing once a real homepage is filled in', () => {
  expect(
    listingProblems({ ...listing, homepage: 'https://www.evf-production.com' }, { release: true }),
  ).toEqual([]);
});

it('the release check refuses the repository as it stands until the maintainers fill in the homepage', () => {
  // listing.json ships a reserved placeholder: the check must fail loudly rather than publish it.
  const problems = listingProblems(listing, { release: true });
  if (/\.example$/.test(new URL(listing.homepage).hostname)) expect(problems).toHaveLength(1);
  else expect(problems).toEqual([]);
});
