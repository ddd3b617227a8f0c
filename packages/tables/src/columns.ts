import { InputError, isEmailSyntaxValid } from '@evf/client';

/** A spreadsheet's column letter for a 0-based index: 0 → A, 25 → Z, 26 → AA. */
export function columnLetter(index: number): string {
  let n = index + 1;
  let out = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    out = String.fromCharCode(65 + r) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

/** The 0-based index of a column letter (A → 0, AA → 26), or undefined when it is not one. */
export function columnIndex(letter: string): number | undefined {
  if (!/^[A-Za-z]{1,3}$/.test(letter)) return undefined;
  let n = 0;
  for (const ch of letter.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

export interface ChosenColumn {
  index: number;
  letter: string;
  /** The header cell, as written. */
  name: string;
  /** How it was found: the header name given, the letter given, or found by its header or content. */
  by: 'name' | 'letter' | 'detected';
}

export const normalise = (s: string): string => s.trim().replace(/\s+/g, ' ').toLowerCase();
const EMAIL_HEADER = /^(e-?mail|e-?mail address|email_address|emailaddress|mail)$/i;

/** Whether a header cell names an address column ("Email", "E-mail address", "mail"). */
export const isEmailHeader = (cell: string): boolean => EMAIL_HEADER.test(cell.trim());

function described(header: readonly string[]): string {
  const shown = header.slice(0, 12).map((h, i) => `${columnLetter(i)} "${h.trim().slice(0, 40)}"`);
  return shown.join(', ') + (header.length > 12 ? `, and ${header.length - 12} more` : '');
}

/**
 * The column the user asked for: a header name (case and spacing ignored) first, then a column letter
 * (A, B, ... AA). Without a choice: the column whose header says e-mail, else the one with the most
 * addresses in its first 200 rows.
 */
export function chooseColumn(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  choice?: string,
): ChosenColumn {
  const picked = (index: number, by: ChosenColumn['by']): ChosenColumn => ({
    index,
    letter: columnLetter(index),
    name: (header[index] ?? '').trim(),
    by,
  });
  const wanted = choice?.trim();
  if (wanted) {
    const byName = header.findIndex((h) => normalise(h) === normalise(wanted));
    if (byName >= 0) return picked(byName, 'name');
    const byLetter = columnIndex(wanted);
    if (byLetter !== undefined && byLetter < header.length) return picked(byLetter, 'letter');
    throw new InputError(
      'column',
      'not_found',
      `The file has no column "${wanted.slice(0, 60)}". Its columns are: ${described(header)}. Give a header name or a column letter. Nothing was sent or charged.`,
    );
  }
  const named = header.findIndex((h) => EMAIL_HEADER.test(h.trim()));
  if (named >= 0) return picked(named, 'detected');
  const sample = rows.slice(0, 200);
  let best = -1;
  let bestCount = 0;
  for (let c = 0; c < header.length; c++) {
    let count = 0;
    for (const row of sample) if (isEmailSyntaxValid((row[c] ?? '').trim())) count++;
    if (count > bestCount) {
      best = c;
      bestCount = count;
    }
  }
  if (best >= 0) return picked(best, 'detected');
  throw new InputError(
    'column',
    'required',
    `No column of the file holds email addresses in its first rows. Its columns are: ${described(header)}. Name the column that holds them. Nothing was sent or charged.`,
  );
}
