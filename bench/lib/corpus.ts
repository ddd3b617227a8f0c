/**
 * Generated address lists like a CRM export: about 1% malformed, about 10% duplicates that differ only
 * in case. Deterministic (seeded), so every run and every variant sees the same list.
 */
const FIRST = [
  'anna',
  'bob',
  'carla',
  'dmitri',
  'eve',
  'farid',
  'gita',
  'hans',
  'ines',
  'jon',
  'kemal',
  'lena',
  'mo',
  'nora',
];
const LAST = ['smith', 'garcia', 'muller', 'rossi', 'novak', 'kim', 'silva', 'okafor', 'jensen', 'tanaka'];
const DOMAINS = [
  'acme-corp.com',
  'bigcorp.io',
  'example-shop.com',
  'startup.dev',
  'mail.co.uk',
  'consulting.de',
  'agency.fr',
];
const MALFORMED = [
  'anna@@acme.com',
  'bob.acme.com',
  'carla@',
  '@bigcorp.io',
  'dmitri@acme',
  'eve smith@acme.com',
  'farid@acme..com',
  'gita@acme.c',
];

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mixCase(s: string, r: () => number): string {
  let out = '';
  for (const ch of s) out += r() < 0.5 ? ch.toUpperCase() : ch;
  return out === s ? s.toUpperCase() : out;
}

export interface Corpus {
  emails: string[];
  uniqueValid: number;
  malformed: number;
  duplicates: number;
}

export function makeCorpus(size: number, seed = 42): Corpus {
  const r = rng(seed);
  const emails: string[] = new Array(size);
  const seen: string[] = [];
  let malformed = 0;
  let duplicates = 0;
  for (let i = 0; i < size; i++) {
    const x = r();
    if (x < 0.01) {
      const m = MALFORMED[i % MALFORMED.length]!;
      emails[i] = m.includes('@') ? m.replace('@', `${i}@`) : `${m}${i}`;
      malformed++;
    } else if (x < 0.11 && seen.length > 0) {
      emails[i] = mixCase(seen[Math.floor(r() * seen.length)]!, r);
      duplicates++;
    } else {
      const a = `${FIRST[Math.floor(r() * FIRST.length)]}.${LAST[Math.floor(r() * LAST.length)]}${i}@${DOMAINS[Math.floor(r() * DOMAINS.length)]}`;
      emails[i] = a;
      seen.push(a);
    }
  }
  // Lists reach the connectors as parsed JSON (flat strings), not as freshly concatenated ones.
  return {
    emails: JSON.parse(JSON.stringify(emails)) as string[],
    uniqueValid: seen.length,
    malformed,
    duplicates,
  };
}
