/**
 * `npm run bench`: every benchmark side by side in one run; prints a table and writes
 * bench/results/latest.json. Numbers, never pass/fail: the table says which targets are met.
 * BENCH_RUNS (default 5) sets the repetitions; BENCH_QUICK=1 runs a smaller, faster pass.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { benchPreflight } from './preflight';
import { benchEconomy, benchLatency, benchPagination } from './service';
import { printTable, type Row } from './lib/stats';

const runs = Number(process.env.BENCH_RUNS ?? (process.env.BENCH_QUICK ? 2 : 5));
const log = (s: string): void => console.log(`  ${s}`);

async function optional(name: string, path: string, fn: string, ...args: unknown[]): Promise<Row[]> {
  try {
    const mod = (await import(path)) as Record<string, (...a: unknown[]) => Promise<Row[]>>;
    if (typeof mod[fn] !== 'function') return [];
    return await mod[fn]!(...args);
  } catch (error) {
    log(`${name}: skipped (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
    return [];
  }
}

async function main(): Promise<void> {
  const root = join(__dirname, '..');
  console.log('Building the client and tables bundles and the n8n package the benchmarks load...');
  execFileSync('npm', ['run', 'build', '-w', '@evf/client'], { cwd: root, stdio: 'ignore' });
  execFileSync('npm', ['run', 'build', '-w', '@evf/tables'], { cwd: root, stdio: 'ignore' });
  execFileSync('npm', ['run', 'build', '-w', 'n8n-nodes-evf'], { cwd: root, stdio: 'ignore' });
  const machine = `${cpus().length} x ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
  console.log(`Machine: ${machine}; ${runs} runs per figure\n`);
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};

  console.log('1. Pre-flight');
  const pre = benchPreflight(runs, log);
  rows.push(...pre.rows);
  Object.assign(details, pre.details);

  console.log('2. Pagination');
  rows.push(...(await benchPagination(runs, log)));

  console.log('3. n8n Get Results, Return All, 50k rows');
  rows.push(...(await optional('n8n', './n8n-get-results', 'benchGetResults', runs, log)));
  // In real n8n (each installed version, one process and queue mode): about 10 minutes per version.
  if (!process.env.BENCH_QUICK)
    rows.push(...(await optional('n8n memory', './n8n-memory', 'benchN8nMemory', log)));

  console.log('4. Completion latency');
  rows.push(...(await benchLatency(process.env.BENCH_QUICK ? 5 : 20, log)));
  rows.push(
    ...(await optional(
      'zapier',
      './platform-latency',
      'benchResumeLatency',
      process.env.BENCH_QUICK ? 5 : 20,
      log,
    )),
  );
  rows.push(
    ...(await optional(
      'n8n trigger',
      './platform-latency',
      'benchTriggerLatency',
      process.env.BENCH_QUICK ? 5 : 20,
      log,
    )),
  );

  console.log('5. Request economy');
  const eco = await benchEconomy(log);
  rows.push(...eco.rows);
  details.economy = eco.details;

  // Each platform's recommended whole-sheet flow, run on 50,000 rows: platform units (tasks, operations,
  // executions), service requests, credits charged and refunded, wall time, beside the per-row pattern.
  console.log('6. A 50,000-row sheet, per platform');
  rows.push(...(await optional('zapier sheet', './sheet-zapier', 'benchSheetZapier', log)));
  rows.push(...(await optional('make sheet', './sheet-make', 'benchSheetMake', log)));
  rows.push(...(await optional('n8n sheet', './sheet-n8n', 'benchSheetN8n', log)));

  console.log('7. Reading a table (the client beside SheetJS and csv-parse)');
  rows.push(...(await optional('tables', './tables', 'benchTables', runs, log)));

  const table = printTable(rows);
  console.log(`\n${table}\n`);
  const disagreements = details.disagreements as Array<{
    email: string;
    ours: boolean;
    validator: boolean;
    why: string;
  }>;
  console.log('Where our syntax check and validator.js disagree:');
  for (const d of disagreements)
    console.log(
      `  ${JSON.stringify(d.email).padEnd(40)} ours ${d.ours ? 'accepts' : 'refuses'}, validator ${d.validator ? 'accepts' : 'refuses'}: ${d.why}`,
    );
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(
    join(__dirname, 'results', 'latest.json'),
    JSON.stringify({ at: new Date().toISOString(), machine, runs, rows, details }, null, 2),
  );
  console.log('\nWritten: bench/results/latest.json');
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
