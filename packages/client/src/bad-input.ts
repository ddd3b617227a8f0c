/**
 * A per-row check meets whatever a sheet's cell holds. An empty cell, a malformed address or several
 * addresses in one cell cannot be verified, and the service would refuse them for free anyway, so the
 * client answers them itself: a verdict that routes like any other (group invalid), costs nothing and
 * says what to fix. A flow then sends the row down its invalid path instead of failing the run.
 */
import { emailProblem, unwrapAddress } from './validation/email';
import { asciiDomainAddress } from './validation/idn';

export type BadInputProblem = 'empty' | 'malformed' | 'several_addresses';

export interface BadInputVerdict {
  /** The cell as text (cut to 254 characters), so the verdict lines up with its row. */
  email: string;
  category: 'Invalid';
  group: 'invalid';
  safe_to_send: false;
  status: 'invalid';
  valid: false;
  /** What is wrong and what to fix, in words for the user. */
  reason: string;
  problem: BadInputProblem;
  credits_used: 0;
  /** Nothing was sent to the service for this cell. */
  sent: false;
}

const SHOWN = 100;

function cellText(cell: unknown): string | undefined {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'number' || typeof cell === 'boolean') return String(cell);
  if (Array.isArray(cell))
    return cell.every((c) => typeof c === 'string' || typeof c === 'number') ? cell.join(', ') : undefined;
  return undefined;
}

/**
 * The cell holds one address `verifySingle` takes (as typed, in `Name <address>` / `mailto:` form, or
 * with a Unicode domain it sends in its xn-- form).
 */
function usable(text: string): boolean {
  if (emailProblem(text) === undefined || unwrapAddress(text) !== undefined) return true;
  const ascii = asciiDomainAddress(text);
  return ascii !== undefined && emailProblem(ascii) === undefined;
}

function verdict(text: string, problem: BadInputProblem, reason: string): BadInputVerdict {
  return {
    email: text.slice(0, 254),
    category: 'Invalid',
    group: 'invalid',
    safe_to_send: false,
    status: 'invalid',
    valid: false,
    reason: `${reason} Nothing was sent or charged.`,
    problem,
    credits_used: 0,
    sent: false,
  };
}

/**
 * The free verdict for a cell that holds no single usable address, or undefined when it holds one (then
 * verify it). Pure: nothing is sent.
 */
export function badInputVerdict(cell: unknown): BadInputVerdict | undefined {
  const raw = cellText(cell);
  if (raw === undefined) {
    return verdict(
      '',
      'malformed',
      'The cell holds a structure, not text: map the column that holds the email address.',
    );
  }
  const text = raw.trim();
  if (text === '')
    return verdict('', 'empty', 'The cell is empty: put the email address in it, or leave the row out.');
  if (usable(text)) return undefined;
  const shown = `"${text.length > SHOWN ? `${text.slice(0, SHOWN)}...` : text}"`;
  const addresses = text.split(/[\s,;]+/).filter((part) => part !== '' && usable(part));
  if (addresses.length >= 2) {
    return verdict(
      text,
      'several_addresses',
      `The cell holds ${addresses.length} addresses (${shown}): put one address in each row, or send them together as a list.`,
    );
  }
  const why = emailProblem(text) ?? 'is not an email address';
  return verdict(text, 'malformed', `${shown} is not an email address: it ${why}. Fix it in the source row.`);
}
