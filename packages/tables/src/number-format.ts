/**
 * A number cell as the spreadsheet shows it, from its style's number format (ECMA-376 Part 1, 18.8.30
 * numFmt, and 18.8.31 for the format codes): dates and times, fixed decimals, thousands, percent,
 * scientific, fractions, zero-padded codes such as `00000`, literal text, and up to four sections
 * (positive; negative; zero; text). Built-in formats are shown as Excel shows them in en-US. A cell in
 * General keeps the number as the file stores it (no rounding to 11 digits): that is what the user
 * typed, and what a program reading the results file gets back.
 */

/** The built-in formats (18.8.30) as Excel shows them in en-US; ids not listed show as General. */
const BUILT_IN: Record<number, string> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  5: '$#,##0_);($#,##0)',
  6: '$#,##0_);[Red]($#,##0)',
  7: '$#,##0.00_);($#,##0.00)',
  8: '$#,##0.00_);[Red]($#,##0.00)',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'm/d/yyyy',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'm/d/yyyy h:mm',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)',
  40: '#,##0.00;[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
};

export function builtInFormat(id: number): string | undefined {
  return BUILT_IN[id];
}

/** Splits a format into its sections at `;` outside quotes, brackets and escapes. */
function sections(format: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < format.length; i++) {
    const ch = format[i]!;
    if (ch === '"') {
      const end = format.indexOf('"', i + 1);
      const stop = end < 0 ? format.length : end + 1;
      current += format.slice(i, stop);
      i = stop - 1;
    } else if (ch === '\\' || ch === '_' || ch === '*') {
      current += format.slice(i, i + 2);
      i++;
    } else if (ch === '[') {
      const end = format.indexOf(']', i);
      const stop = end < 0 ? format.length : end + 1;
      current += format.slice(i, stop);
      i = stop - 1;
    } else if (ch === ';') {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out;
}

type Part =
  | { kind: 'literal'; text: string }
  | { kind: 'digit'; ch: '0' | '#' | '?' }
  | { kind: 'point' }
  | { kind: 'comma' }
  | { kind: 'percent' }
  | { kind: 'exponent'; sign: boolean }
  | { kind: 'slash' }
  | { kind: 'at' }
  | { kind: 'date'; token: string };

const CONDITION = /^\[(<=|>=|<>|<|>|=)(-?\d+(?:\.\d+)?)\]/;

/** A section's parts, with the bracketed condition (if any) taken out. */
function parse(section: string): { parts: Part[]; isDate: boolean; condition?: [string, number] } {
  const parts: Part[] = [];
  let condition: [string, number] | undefined;
  let isDate = false;
  const literal = (text: string): void => {
    const last = parts[parts.length - 1];
    if (last?.kind === 'literal') last.text += text;
    else parts.push({ kind: 'literal', text });
  };
  for (let i = 0; i < section.length; ) {
    const ch = section[i]!;
    const rest = section.slice(i);
    if (ch === '"') {
      const end = section.indexOf('"', i + 1);
      const stop = end < 0 ? section.length : end;
      literal(section.slice(i + 1, stop));
      i = stop + 1;
    } else if (ch === '\\') {
      literal(section[i + 1] ?? '');
      i += 2;
    } else if (ch === '_') {
      // Room the width of the next character: a space in text.
      literal(' ');
      i += 2;
    } else if (ch === '*') {
      // Repeat to fill the column: nothing in text.
      i += 2;
    } else if (ch === '[') {
      const end = section.indexOf(']', i);
      const inner = section.slice(i + 1, end < 0 ? section.length : end);
      i = end < 0 ? section.length : end + 1;
      const cond = CONDITION.exec(`[${inner}]`);
      if (cond) condition = [cond[1]!, Number(cond[2])];
      else if (/^(h+|m+|s+)$/i.test(inner)) {
        parts.push({ kind: 'date', token: `[${inner.toLowerCase()}]` });
        isDate = true;
      } else if (inner.startsWith('$')) {
        // [$€-407]: a currency symbol, then a locale; [$-409] is a locale alone.
        const symbol = inner.slice(1).split('-')[0]!;
        if (symbol) literal(symbol);
      }
      // Colours ([Red], [Color 10]) and anything else bracketed show nothing.
    } else if (/^(am\/pm|a\/p)/i.test(rest)) {
      const token = /^(am\/pm|a\/p)/i.exec(rest)![0];
      parts.push({ kind: 'date', token });
      isDate = true;
      i += token.length;
    } else if (/[yYmMdDhHsSeE]/.test(ch) && !(ch === 'E' || ch === 'e' ? /^[eE][+-]/.test(rest) : false)) {
      if (
        (ch === 'e' || ch === 'E') &&
        !isDate &&
        !/[yYmMdDhHsS]/.test(section.replace(/"[^"]*"|\[[^\]]*\]|\\./g, ''))
      ) {
        literal(ch);
        i++;
        continue;
      }
      let j = i;
      while (j < section.length && section[j]!.toLowerCase() === ch.toLowerCase()) j++;
      parts.push({ kind: 'date', token: section.slice(i, j).toLowerCase().replace(/^e+$/, 'yyyy') });
      isDate = true;
      i = j;
    } else if ((ch === 'E' || ch === 'e') && /^[eE][+-]/.test(rest)) {
      parts.push({ kind: 'exponent', sign: rest[1] === '+' });
      i += 2;
    } else if (ch === '0' || ch === '#' || ch === '?') {
      parts.push({ kind: 'digit', ch });
      i++;
    } else if (ch === '.') {
      // In a date, `.0` after seconds is a fraction of a second.
      if (isDate && /^\.0+/.test(rest)) {
        const token = /^\.0+/.exec(rest)![0];
        parts.push({ kind: 'date', token });
        i += token.length;
      } else {
        parts.push({ kind: 'point' });
        i++;
      }
    } else if (ch === ',') {
      parts.push({ kind: 'comma' });
      i++;
    } else if (ch === '%') {
      parts.push({ kind: 'percent' });
      i++;
    } else if (ch === '/' && !isDate) {
      parts.push({ kind: 'slash' });
      i++;
    } else if (ch === '@') {
      parts.push({ kind: 'at' });
      i++;
    } else {
      literal(ch);
      i++;
    }
  }
  if (isDate) {
    // m and mm are minutes right after an hour or right before a second (mi, mmi), else the month.
    const dateAt = parts
      .map((p, k) => (p.kind === 'date' && !p.token.startsWith('.') ? k : -1))
      .filter((k) => k >= 0);
    dateAt.forEach((k, n) => {
      const p = parts[k] as { kind: 'date'; token: string };
      if (p.token !== 'm' && p.token !== 'mm') return;
      const prev = n > 0 ? (parts[dateAt[n - 1]!] as { token: string }).token : '';
      const next = n + 1 < dateAt.length ? (parts[dateAt[n + 1]!] as { token: string }).token : '';
      if (/^(h+|\[h+\])$/.test(prev) || /^(s+|\[s+\])$/.test(next)) p.token += 'i';
    });
    // In a date, digits, points and commas are literal text.
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k]!;
      if (p.kind === 'digit') parts[k] = { kind: 'literal', text: p.ch };
      else if (p.kind === 'comma') parts[k] = { kind: 'literal', text: ',' };
      else if (p.kind === 'point') parts[k] = { kind: 'literal', text: '.' };
      else if (p.kind === 'slash') parts[k] = { kind: 'literal', text: '/' };
      else if (p.kind === 'percent') parts[k] = { kind: 'literal', text: '%' };
    }
  }
  return { parts, isDate, condition };
}

type ParsedFormat = { all: string[]; parsed: ReturnType<typeof parse>[] };
// A workbook has a few dozen formats and 50,000 rows use them: each is parsed once.
const cache = new Map<string, ParsedFormat>();

function parsedFormat(format: string): ParsedFormat {
  let hit = cache.get(format);
  if (!hit) {
    const all = sections(format);
    hit = { all, parsed: all.map(parse) };
    if (cache.size > 1000) cache.clear();
    cache.set(format, hit);
  }
  return hit;
}

const holds = ([op, n]: [string, number], v: number): boolean =>
  op === '<'
    ? v < n
    : op === '<='
      ? v <= n
      : op === '>'
        ? v > n
        : op === '>='
          ? v >= n
          : op === '='
            ? v === n
            : v !== n;

/**
 * The number as the format shows it. `raw` is the cell's text as stored, shown for General; `date1904`
 * is the workbook's date system (18.2.28 workbookPr).
 */
export function formatNumber(value: number, raw: string, format: string, date1904 = false): string {
  if (!Number.isFinite(value)) return raw;
  if (format === 'General') return raw;
  const { all, parsed } = parsedFormat(format);
  // Pick the section: with conditions, the first whose condition holds; otherwise by sign.
  let index: number;
  let absolute = false;
  if (parsed.some((p) => p.condition)) {
    index = parsed.findIndex((p) => p.condition && holds(p.condition, value));
    if (index < 0)
      index =
        parsed.findIndex((p, k) => !p.condition && k < 3) >= 0
          ? parsed.findIndex((p, k) => !p.condition && k < 3)
          : parsed.length - 1;
    absolute = value < 0 && index > 0;
  } else if (value > 0 || parsed.length === 1 || (value === 0 && parsed.length === 2)) index = 0;
  else if (value < 0) {
    index = 1;
    absolute = true;
  } else index = 2;
  // A text section (holding @) is for text; a number falls back to the first.
  if (index >= 3 || (parsed[index]?.parts.some((p) => p.kind === 'at') && index > 0)) index = 0;
  const section = parsed[index]!;
  const sectionText = all[index]!;
  if (/^\s*general\s*$/i.test(sectionText.replace(/\[[^\]]*\]/g, '')) || sectionText.trim() === '@') {
    if (index === 0 || !absolute) return raw;
    return raw.replace(/^-/, '');
  }
  if (section.parts.length === 0) return '';
  let v = absolute ? Math.abs(value) : value;
  // Excel fills a negative date's cell with ####; the number itself is what the cell holds.
  if (section.isDate) return v < 0 ? raw : formatDate(v, section.parts, date1904);
  let sign = '';
  if (v < 0) {
    sign = '-';
    v = -v;
  }
  const out = formatPlain(v, section.parts, raw);
  // A negative that rounds to all zeros shows without its sign, as Excel shows it.
  return sign && /[1-9]/.test(out) ? sign + out : out;
}

/** Rounds half away from zero at `decimals` places, on the decimal digits (0.125 → 0.13), not the binary value. */
function roundTo(v: number, decimals: number): string {
  if (v >= 1e21) return v.toFixed(0);
  const shifted = Number(`${v}e${decimals}`);
  if (!Number.isFinite(shifted)) return v.toFixed(decimals);
  const rounded = Math.round(shifted);
  const s = Number(`${rounded}e-${decimals}`).toFixed(decimals);
  return s;
}

function group(int: string): string {
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function formatPlain(v: number, parts: Part[], raw: string): string {
  if (parts.some((p) => p.kind === 'slash')) return formatFraction(v, parts);
  const exponentAt = parts.findIndex((p) => p.kind === 'exponent');
  const pointAt = parts.findIndex((p) => p.kind === 'point');
  const mantissaEnd = exponentAt < 0 ? parts.length : exponentAt;
  const digitIdx: number[] = [];
  for (let k = 0; k < mantissaEnd; k++) if (parts[k]!.kind === 'digit') digitIdx.push(k);
  if (digitIdx.length === 0) {
    // No digit placeholder: literal text only (and @ shows the number).
    return parts
      .map((p) => (p.kind === 'literal' ? p.text : p.kind === 'at' ? raw : p.kind === 'percent' ? '%' : ''))
      .join('');
  }
  const intEnd = pointAt >= 0 && pointAt < mantissaEnd ? pointAt : mantissaEnd;
  const intDigits = digitIdx.filter((k) => k < intEnd);
  const fracDigits = digitIdx.filter((k) => k > intEnd && k < mantissaEnd);
  // Commas: between integer placeholders they group thousands; right after the last one they scale by 1,000.
  let thousands = false;
  let scale = 0;
  const lastInt = intDigits[intDigits.length - 1] ?? -1;
  for (let k = 0; k < mantissaEnd; k++) {
    if (parts[k]!.kind !== 'comma') continue;
    if (intDigits.length && k > intDigits[0]! && k < lastInt) thousands = true;
    else if (!digitIdx.some((d) => d > k)) scale++;
  }
  const percents = parts.filter((p) => p.kind === 'percent').length;
  let x = (v * 100 ** percents) / 1000 ** scale;
  let exponentText = '';
  if (exponentAt >= 0) {
    const exp = parts[exponentAt] as { kind: 'exponent'; sign: boolean };
    const expDigits = parts.slice(exponentAt + 1).filter((p) => p.kind === 'digit').length;
    const step = Math.max(1, intDigits.length > 1 ? intDigits.length : 1);
    let e = x === 0 ? 0 : Math.floor(Math.log10(x));
    e = Math.floor(e / step) * step;
    if (intDigits.length > 1 && step === 1) e = 0;
    let mantissa = x / 10 ** e;
    if (Number(roundTo(mantissa, fracDigits.length)) >= 10 ** step) {
      e += step;
      mantissa = x / 10 ** e;
    }
    x = mantissa;
    const eAbs = String(Math.abs(e)).padStart(expDigits, '0');
    exponentText = `E${e < 0 ? '-' : exp.sign ? '+' : ''}${eAbs}`;
  }
  const fixed = roundTo(x, fracDigits.length);
  const [whole, fracPart = ''] = fixed.split('.') as [string, string?];
  const intPart = whole === '0' ? '' : whole;
  // Integer placeholders: digits fill from the right; extra digits go before the first one.
  const intChars: string[] = new Array(intDigits.length).fill('');
  const digits = intPart.split('');
  for (let p = intDigits.length - 1; p >= 0; p--) {
    const ch = (parts[intDigits[p]!] as { ch: string }).ch;
    const d = digits.pop();
    intChars[p] = d ?? (ch === '0' ? '0' : ch === '?' ? ' ' : '');
  }
  if (intChars.length) intChars[0] = digits.join('') + intChars[0];
  // Fraction placeholders fill from the left; trailing zeros drop for # and turn to spaces for ?.
  const fracChars = fracDigits.map((k, p) => {
    const d = fracPart[p] ?? '0';
    const ch = (parts[k] as { ch: string }).ch;
    const trailingZero = fracPart.slice(p).replace(/0+$/, '') === '';
    if (d === '0' && trailingZero) return ch === '0' ? '0' : ch === '?' ? ' ' : '';
    return d;
  });
  let out = '';
  let intSeen = 0;
  let fracSeen = 0;
  const contiguous =
    intDigits.length > 0 &&
    parts.slice(intDigits[0]!, lastInt + 1).every((p) => p.kind === 'digit' || p.kind === 'comma');
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k]!;
    if (k === exponentAt) {
      out += exponentText;
      continue;
    }
    if (exponentAt >= 0 && k > exponentAt) {
      if (p.kind === 'literal') out += p.text;
      continue;
    }
    switch (p.kind) {
      case 'literal':
        out += p.text;
        break;
      case 'digit':
        if (k < intEnd) {
          if (contiguous && thousands) {
            if (intSeen === 0) out += group(intChars.join(''));
          } else out += intChars[intSeen];
          intSeen++;
        } else out += fracChars[fracSeen++];
        break;
      case 'point':
        if (k === pointAt) out += '.';
        break;
      case 'percent':
        out += '%';
        break;
      case 'at':
        out += raw;
        break;
      default:
        break;
    }
  }
  return out;
}

function formatFraction(v: number, parts: Part[]): string {
  const slash = parts.findIndex((p) => p.kind === 'slash');
  const before = parts.slice(0, slash);
  const after = parts.slice(slash + 1);
  // The denominator: a fixed number (literal digits after the slash) or its placeholders' count of digits.
  const denomDigits = after.filter((p) => p.kind === 'digit').length;
  const fixedDenominator = after.find((p) => p.kind === 'literal' && /^\d+/.test(p.text)) as
    | { text: string }
    | undefined;
  // Numerator placeholders are the digits right before the slash; any digits before a literal gap are the whole part.
  let numStart = slash;
  while (numStart > 0 && before[numStart - 1]!.kind === 'digit') numStart--;
  const hasWhole = before.slice(0, numStart).some((p) => p.kind === 'digit');
  let whole = hasWhole ? Math.floor(v) : 0;
  const frac = v - whole;
  let num = 0;
  let den = 1;
  if (fixedDenominator) {
    den = Number(/^\d+/.exec(fixedDenominator.text)![0]);
    num = Math.round(frac * den);
  } else {
    const maxDen = 10 ** Math.max(1, denomDigits) - 1;
    let best = Infinity;
    for (let d = 1; d <= maxDen; d++) {
      const n = Math.round(frac * d);
      const err = Math.abs(frac - n / d);
      if (err < best - 1e-12) {
        best = err;
        num = n;
        den = d;
      }
    }
  }
  if (hasWhole && num === den) {
    whole++;
    num = 0;
  }
  const lit = (ps: Part[]): string => ps.map((p) => (p.kind === 'literal' ? p.text : '')).join('');
  const wholeText = hasWhole ? (whole === 0 && num !== 0 ? '' : String(whole)) : '';
  if (hasWhole && num === 0)
    return `${wholeText}${' '.repeat(lit(before.slice(0, numStart)).length)}`.trimEnd() || '0';
  const numWidth = slash - numStart;
  const denText = fixedDenominator ? String(den) : String(den).padEnd(denomDigits, ' ');
  return `${wholeText}${lit(before.slice(0, numStart))}${String(num).padStart(numWidth, ' ')}/${denText}`.trimStart();
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

function formatDate(v: number, parts: Part[], date1904: boolean): string {
  const subsecond = parts.reduce(
    (n, p) => (p.kind === 'date' && p.token.startsWith('.') ? Math.max(n, p.token.length - 1) : n),
    0,
  );
  const unit = 10 ** subsecond;
  // Rounded to what the format shows (a second, or its fraction), then split: 0.999999 shows as the next day.
  const total = Math.round(v * 86_400 * unit);
  const days = Math.floor(total / (86_400 * unit));
  let rest = total - days * 86_400 * unit;
  const fraction = rest % unit;
  rest = (rest - fraction) / unit;
  const hours = Math.floor(rest / 3600);
  const minutes = Math.floor((rest % 3600) / 60);
  const seconds = rest % 60;
  let year: number;
  let month: number;
  let day: number;
  let weekday: number;
  if (date1904) {
    const d = new Date(Date.UTC(1904, 0, 1 + days));
    [year, month, day, weekday] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCDay()];
  } else if (days === 60) {
    // The 1900 system counts 29 February 1900, a day that never was (18.17.4.1).
    [year, month, day] = [1900, 2, 29];
    weekday = 3;
  } else {
    const d = new Date(Date.UTC(1899, 11, days < 60 ? 31 + days : 30 + days));
    [year, month, day] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
    weekday = days < 60 ? (days + 6) % 7 : d.getUTCDay();
    if (days === 0) [year, month, day] = [1900, 1, 0];
  }
  const twelve = parts.some((p) => p.kind === 'date' && /^(am\/pm|a\/p)$/i.test(p.token));
  const elapsedDays = days;
  let out = '';
  for (const p of parts) {
    if (p.kind !== 'date') {
      out += p.kind === 'literal' ? p.text : '';
      continue;
    }
    const t = p.token;
    const lower = t.toLowerCase();
    if (t.startsWith('.')) out += `.${pad(fraction, subsecond)}`;
    else if (lower === 'am/pm') out += hours < 12 ? (t[0] === 'a' ? 'am' : 'AM') : t[0] === 'a' ? 'pm' : 'PM';
    else if (lower === 'a/p') out += hours < 12 ? (t[0] === 'a' ? 'a' : 'A') : t[0] === 'a' ? 'p' : 'P';
    else if (t.startsWith('[h')) out += pad(elapsedDays * 24 + hours, t.length - 2);
    else if (t.startsWith('[m')) out += pad((elapsedDays * 24 + hours) * 60 + minutes, t.length - 2);
    else if (t.startsWith('[s'))
      out += pad(((elapsedDays * 24 + hours) * 60 + minutes) * 60 + seconds, t.length - 2);
    else if (t[0] === 'y') out += t.length <= 2 ? pad(year % 100) : String(year);
    else if (t[0] === 'd')
      out +=
        t.length === 1
          ? String(day)
          : t.length === 2
            ? pad(day)
            : t.length === 3
              ? DAYS[weekday]!.slice(0, 3)
              : DAYS[weekday]!;
    else if (t[0] === 'h') {
      const h = twelve ? hours % 12 || 12 : hours;
      out += t.length === 1 ? String(h) : pad(h);
    } else if (t[0] === 's') out += t.length === 1 ? String(seconds) : pad(seconds);
    else if (t === 'mi') out += String(minutes);
    else if (t === 'mmi') out += pad(minutes);
    else if (t[0] === 'm') {
      if (t.length === 1) out += String(month);
      else if (t.length === 2) out += pad(month);
      else if (t.length === 3) out += MONTHS[month - 1]!.slice(0, 3);
      else if (t.length === 5) out += MONTHS[month - 1]![0];
      else out += MONTHS[month - 1]!;
    } else out += t;
  }
  return out;
}
