/** Repeats a measurement and keeps median, min and max: one run on a shared 2-core machine lies. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  runs: number;
}

export function summarize(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, runs: sorted.length };
}

export function fmt(n: number, digits = 1): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 1e6) return `${(n / 1e6).toFixed(2)}M`;
  if (Math.abs(n) >= 1e4) return `${(n / 1e3).toFixed(0)}k`;
  return n.toFixed(digits);
}

export function fmtSummary(s: Summary, unit = '', digits = 1): string {
  return `${fmt(s.median, digits)}${unit} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
}

export interface Row {
  benchmark: string;
  measure: string;
  ours: string;
  baseline: string;
  ratio: string;
  target: string;
  met: boolean | null;
}

export function printTable(rows: Row[]): string {
  const header: Row = {
    benchmark: 'Benchmark',
    measure: 'Measure',
    ours: 'Ours',
    baseline: 'Baseline',
    ratio: 'Ratio',
    target: 'Target',
    met: null,
  };
  const cells = (r: Row) => [
    r.benchmark,
    r.measure,
    r.ours,
    r.baseline,
    r.ratio,
    r.target,
    r === header ? 'Met' : r.met === null ? '–' : r.met ? 'yes' : 'NO',
  ];
  const all = [header, ...rows].map(cells);
  const widths = all[0]!.map((_, i) => Math.max(...all.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i]!)).join(' | ')} |`;
  const out = [
    line(all[0]!),
    `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`,
    ...all.slice(1).map(line),
  ];
  return out.join('\n');
}
