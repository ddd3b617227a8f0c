/**
 * The whole-sheet flow of examples/ (two scenario blueprints a user imports) run through the scenario
 * runner against a sandbox: every module and field is the app's own, every mapping reads a real output,
 * a 50,000-row list costs a few dozen operations and comes back row for row, and a job that fails part
 * way leaves the verified rows written, the rest marked, and a rerun that sends only the rest.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { categorize } from '@evf/client';
import { resultRow, startSandbox, type Sandbox } from '@evf/sandbox';
import { components, readJsonc } from './harness/app-files';
import { allFieldNames, asSpecs } from './harness/make-params';
import { appModuleId, KNOWN_MAKE_MODULES, type Blueprint } from './harness/scenario';
import { misspelledLabels, moduleLabels } from './support/label-spelling';
import { moduleRefs } from './harness/scenario-iml';
import { LIST_TAB, LOOKUP_FORMULA, RESULTS_TAB } from './harness/scenario-sheets';
import { blueprints, EXAMPLES, leadList, newSheet, runWholeSheet } from './harness/scenario-sheet-flow';

/** The Submit module's rule for one address: the item pattern of its Array option's Email addresses. */
const EMAIL_PATTERN = new RegExp(
  (
    readJsonc('modules/submit-bulk/submit-bulk.mappable-params.iml.json') as unknown as {
      options: { value: string; nested: { name: string; spec: { validate: { pattern: string } } }[] }[];
    }[]
  )[0]!.options
    .find((o) => o.value === 'array')!
    .nested.find((f) => f.name === 'emails')!.spec.validate.pattern,
);

/**
 * A sandbox whose webhook deliveries never leave the machine: part 1's webhook address (a Make hook)
 * resolves to a public address, so the submission check passes, and every delivery attempt fails before
 * connecting. The test hands part 2 the delivery itself, signed as the service signs it. Each test gets
 * its own sandbox, so one test's jobs, charges and faults never reach the next.
 */
async function sandbox(): Promise<Sandbox> {
  const sb = await startSandbox({
    port: 0,
    timeScale: 0.002,
    rowsPerSecond: 2000,
    resolver: async () => ['93.184.216.34'],
  });
  sb.faults.webhookFailures(1_000_000);
  return sb;
}
let sb: Sandbox;
beforeEach(async () => {
  sb = await sandbox();
});
afterEach(async () => {
  await sb?.close();
});

interface Field {
  name: string;
}
function appModule(id: string) {
  return components('module').find(([name]) => name === id)?.[1];
}
function paramNames(id: string): string[] {
  const meta = appModule(id)!;
  return [meta.codeFiles.staticParams, meta.codeFiles.mappableParams]
    .filter((f): f is string => !!f)
    .flatMap((f) => allFieldNames(asSpecs(readJsonc(f))));
}
/** What each module of a blueprint outputs, by the first step of a path. */
function outputsOf(m: Blueprint['flow'][number]): string[] | 'any' {
  const appId = appModuleId(m.module);
  if (appId !== undefined) {
    const meta = appModule(appId)!;
    return (readJsonc(meta.codeFiles.interface!) as unknown as Field[]).map((f) => f.name);
  }
  switch (m.module) {
    case 'builtin:BasicRepeater':
      return ['i'];
    case 'builtin:BasicFeeder':
      return 'any'; // the items of the array it iterates, plus value for items that are not collections
    case 'builtin:BasicAggregator':
      return m.flags?.groupBy === undefined ? ['array', '__IMTAGGLENGTH__'] : ['key', 'array'];
    case 'json:TransformToJSON':
      return ['json'];
    case 'google-sheets:makeAPICall':
      return ['statusCode', 'headers', 'body'];
    default:
      throw new Error(`unknown module ${m.module}`);
  }
}

describe('the blueprints match the app', () => {
  const all = Object.entries(blueprints());

  test.each(all)("%s: every module is the app's or one of Make's, with the app's own fields", (_, bp) => {
    for (const m of bp.flow) {
      const id = appModuleId(m.module);
      if (id !== undefined) {
        expect(appModule(id)).toBeDefined();
        const known = paramNames(id);
        for (const field of Object.keys(m.mapper ?? {})) expect(known).toContain(field);
      } else expect(KNOWN_MAKE_MODULES).toContain(m.module);
    }
  });

  test.each(all)('%s: every mapping reads an output of an earlier module', (_, bp) => {
    bp.flow.forEach((m, i) => {
      const earlier = bp.flow.slice(0, i);
      for (const ref of moduleRefs([m.mapper, m.filter, m.flags?.groupBy])) {
        const source = earlier.find((e) => e.id === ref.module);
        expect(source).toBeDefined();
        const outputs = outputsOf(source!);
        if (outputs !== 'any') expect(outputs).toContain(ref.path[0]);
      }
    });
  });

  test("part 1's filter uses the Submit module's own address pattern", () => {
    const filter = blueprints().submit.flow.find((m) => m.module === 'builtin:BasicAggregator')!.filter!;
    expect(filter.conditions[0]![0]!.b).toBe(EMAIL_PATTERN.source);
  });

  test("the README names each of the app's modules and fields by its label, in the app's letter case", () => {
    const readme = readFileSync(join(EXAMPLES, 'README.md'), 'utf8');
    // "Email Verification, <module>" in the cost table: the module's label exactly.
    const named = [...readme.replace(/\s+/g, ' ').matchAll(/Email Verification, ([^:(|]+?)\s*[:(|]/g)].map(
      (m) => m[1]!,
    );
    expect(named.length).toBeGreaterThan(0);
    for (const label of named) expect(moduleLabels()).toContain(label);
    // Every app module the blueprints use is named there.
    for (const bp of Object.values(blueprints()))
      for (const m of bp.flow)
        if (appModuleId(m.module) !== undefined)
          expect(named).toContain(appModule(appModuleId(m.module)!)!.label);
    expect(misspelledLabels(readme)).toEqual([]);
  });

  test('the README shows the exact lookup formula the runner models', () => {
    expect(readFileSync(join(EXAMPLES, 'README.md'), 'utf8')).toContain(LOOKUP_FORMULA);
  });
});

/** Every list row as the Leads tab shows it: [address, category, group, safe, reason]. */
function shown(sheet: ReturnType<typeof newSheet>): string[][] {
  return sheet.cells(LIST_TAB).slice(1);
}

describe('a 50,000-row sheet', () => {
  test('costs 77 operations and comes back row for row, each paid row once, groups included', async () => {
    const list = leadList(50_000, 60, 40);
    const sheet = newSheet(list);
    const before = sb.ledger();
    const run = await runWholeSheet(sb, sheet);
    expect(run.writeBack).toBeDefined();
    const job = sb.job(run.jobId!)!;
    expect(job.status).toBe('completed');

    // Operations: part 1 is 5, part 2 is 1 trigger + 1 job read + 1 repeater + 17 rounds + 5 groups x 3 + 2.
    expect(run.submit.operations).toBe(1 + 1 + 1 + 15 + 15 + 1 + 1 + 1 + 1 + 1 + 1);
    expect(run.writeBack!.operations).toBe(1 + 1 + 1 + 1 + 17 + 5 * 3 + 1 + 1);
    expect(run.submit.operations + run.writeBack!.operations).toBeLessThanOrEqual(80);

    const unique = new Set(
      list.filter((a) => EMAIL_PATTERN.test(a.trim())).map((a) => a.trim().toLowerCase()),
    );
    expect(job.total_emails).toBe(unique.size);
    const after = sb.ledger();
    expect(after.charged - before.charged).toBe(unique.size);

    // Every paid row once in the Verified tab; none lost, none twice.
    const verified = sheet.cells(RESULTS_TAB).slice(1);
    expect(verified).toHaveLength(unique.size);
    expect(new Set(verified.map((r) => r[0]!.toLowerCase()))).toEqual(unique);
    const groups = { safe_to_send: 0, risky: 0, invalid: 0 };
    for (const r of verified) groups[r[2] as keyof typeof groups] += 1;
    expect(groups).toEqual(job.buckets);

    // Beside every row: the service's answer, mapped as the client maps it; the rest marked.
    const submittedSpelling = new Map(verified.map((r) => [r[0]!.toLowerCase(), r[0]!]));
    for (const [address, category, group, safe, reason] of shown(sheet)) {
      const a = address!.trim();
      if (!EMAIL_PATTERN.test(a)) {
        expect(category).toBe(
          'Not submitted (never charged): not a valid address, or left for the next run of part 1',
        );
        continue;
      }
      const truth = resultRow(submittedSpelling.get(a.toLowerCase())!);
      const c = categorize(truth.details);
      expect([category, group, safe, reason]).toEqual([
        c.category,
        c.group,
        c.safeToSend ? 'yes' : 'no',
        truth.reason,
      ]);
    }
  }, 300_000);
});

describe('a job that fails part way', () => {
  test('writes the rows verified so far, marks the rest, and a rerun sends only the rest', async () => {
    const list = leadList(4_000, 10, 10);
    const sheet = newSheet(list);
    sb.faults.failJob(undefined, { afterRows: 1_500, error: 'mail server farm unreachable' });
    const first = await runWholeSheet(sb, sheet);
    expect(sb.job(first.jobId!)!.status).toBe('failed');
    const verifiedFirst = sheet
      .cells(RESULTS_TAB)
      .slice(1)
      .map((r) => r[0]!.toLowerCase());
    expect(verifiedFirst).toHaveLength(sb.job(first.jobId!)!.processed);
    const waiting = shown(sheet).filter(([, c]) => c?.startsWith('Not verified: the job failed'));
    expect(waiting.length).toBeGreaterThan(0);

    // Part 1 again sends only the rows marked "Not verified": one new job, which completes.
    const posts = () => sb.requests.filter((r) => r.method === 'POST').length;
    const postsBefore = posts();
    const rerun = await runWholeSheet(sb, sheet);
    expect(posts()).toBe(postsBefore + 1);
    const resend = waiting.map(([a]) => a!.trim()).filter((a) => EMAIL_PATTERN.test(a));
    expect(sb.job(rerun.jobId!)!.total_emails).toBe(new Set(resend.map((a) => a.toLowerCase())).size);
    expect(sheet.cells(RESULTS_TAB)[0]![9]).toBe(`completed: ${rerun.jobId!}`);

    const verified = sheet
      .cells(RESULTS_TAB)
      .slice(1)
      .map((r) => r[0]!.toLowerCase());
    const unique = new Set(
      list.filter((a) => EMAIL_PATTERN.test(a.trim())).map((a) => a.trim().toLowerCase()),
    );
    expect(new Set(verified)).toEqual(unique);
    expect(verified).toHaveLength(unique.size); // no address verified in both jobs
    expect(shown(sheet).filter(([, c]) => c?.startsWith('Not verified'))).toHaveLength(0);

    // A third run finds nothing to send: part 1 stops at its empty aggregation; only its free read of
    // the newest job leaves, no submission.
    const third = await runWholeSheet(sb, sheet);
    expect(third.submit.serviceRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/v1/jobs']);
    expect(third.writeBack).toBeUndefined();
    expect(posts()).toBe(postsBefore + 1);
  }, 120_000);
});
