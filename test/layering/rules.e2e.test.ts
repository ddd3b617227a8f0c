/**
 * The layering `npm run lint` checks (.dependency-cruiser.cjs) is real: on a small tree that breaks each
 * rule once, beside edges the rules allow, dependency-cruiser names every rule and nothing else. That
 * this repository breaks none is lint's own run (`npm run lint:layers`), not repeated here.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '../..');
const CLI = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

function cruise(cwd: string, paths: string[]): Violation[] {
  const run = spawnSync(process.execPath, [CLI, ...paths, '--config', CONFIG, '--output-type', 'json'], {
    cwd,
    encoding: 'utf8',
  });
  if (!run.stdout) throw new Error(`dependency-cruiser gave no output: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** Each file imports the ones listed; every rule is broken exactly once, by one edge. */
const BROKEN: Record<string, string[]> = {
  'packages/client/src/cycle-a.ts': ['./cycle-b'],
  'packages/client/src/cycle-b.ts': ['./cycle-a'],
  'packages/client/src/index.ts': [],
  'packages/client/src/internal.ts': [],
  'packages/client/src/node/index.ts': [],
  'packages/client/src/core.ts': ['./node/index'],
  'packages/client/src/knows-zapier.ts': ['../../zapier/src/plain'],
  'packages/zapier/src/plain.ts': [],
  'packages/zapier/src/reaches-in.ts': ['../../client/src/internal', '../../client/src/index'],
  'packages/sandbox/src/uses-client.ts': ['../../client/src/index'],
  'packages/tables/src/index.ts': [],
  'packages/tables/src/internal.ts': [],
  'packages/tables/src/uses-client.ts': ['../../client/src/internal', '../../client/src/index'],
  'packages/tables/src/knows-zapier.ts': ['../../zapier/src/plain'],
  'packages/zapier/src/reaches-tables.ts': ['../../tables/src/internal', '../../tables/src/index'],
  'packages/n8n/nodes/EmailVerification/actions/one/op.ts': ['../two/op', '../shared'],
  'packages/n8n/nodes/EmailVerification/actions/two/op.ts': [],
  'packages/n8n/nodes/EmailVerification/actions/shared.ts': [],
  'packages/n8n/nodes/EmailVerification/helpers/h.ts': [],
  'packages/n8n/nodes/EmailVerificationTrigger/T.node.ts': [
    '../EmailVerification/actions/two/op',
    '../EmailVerification/helpers/h',
  ],
  'packages/n8n/nodes/EmailVerificationPollTrigger/P.node.ts': ['../EmailVerificationTrigger/T.node'],
};

describe('the layering rules of npm run lint', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'evf-layering-'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler' } }),
    );
    for (const [file, imports] of Object.entries(BROKEN)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(
        join(dir, file),
        `${imports.map((i, n) => `import * as m${n} from '${i}';\nvoid m${n};`).join('\n')}\nexport const here = 1;\n`,
      );
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('name each broken rule, at the edge that breaks it, and nothing allowed', () => {
    const found = cruise(dir, ['packages'])
      .map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)
      .sort();
    expect(found).toEqual(
      [
        'adapters-use-client-entry-points: packages/zapier/src/reaches-in.ts -> packages/client/src/internal.ts',
        'client-core-stays-platform-neutral: packages/client/src/core.ts -> packages/client/src/node/index.ts',
        'client-knows-no-platform: packages/client/src/knows-zapier.ts -> packages/zapier/src/plain.ts',
        'n8n-operation-stays-in-its-folder: packages/n8n/nodes/EmailVerification/actions/one/op.ts -> packages/n8n/nodes/EmailVerification/actions/two/op.ts',
        'n8n-triggers-do-not-import-each-other: packages/n8n/nodes/EmailVerificationPollTrigger/P.node.ts -> packages/n8n/nodes/EmailVerificationTrigger/T.node.ts',
        'n8n-triggers-use-no-operation-folder: packages/n8n/nodes/EmailVerificationTrigger/T.node.ts -> packages/n8n/nodes/EmailVerification/actions/two/op.ts',
        'no-cycles: packages/client/src/cycle-a.ts -> packages/client/src/cycle-b.ts',
        'sandbox-stands-alone: packages/sandbox/src/uses-client.ts -> packages/client/src/index.ts',
        'adapters-use-tables-entry-point: packages/zapier/src/reaches-tables.ts -> packages/tables/src/internal.ts',
        'tables-use-client-entry-point: packages/tables/src/uses-client.ts -> packages/client/src/internal.ts',
        'tables-knows-no-platform: packages/tables/src/knows-zapier.ts -> packages/zapier/src/plain.ts',
      ].sort(),
    );
  }, 60_000);
});
