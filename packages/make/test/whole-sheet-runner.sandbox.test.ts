/**
 * The scenario runner and its model of the sheet hold a flow to Make's and Google's documented rules:
 * each deliberately wrong blueprint or request here must fail, and the counting must follow Make's
 * billing (a run per bundle, iterators and searches once per run, aggregators once per output bundle,
 * filters free). Part 1 on a small plan over days is big-list-over-days.e2e.test.ts.
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { runScenario, ScenarioError, type Blueprint } from './harness/scenario';
import { SHEETS_WRITES_PER_MINUTE, SheetModel, SheetsApiError } from './harness/scenario-sheets';
import { leadList, newSheet, perRowBlueprint, SPREADSHEET_ID } from './harness/scenario-sheet-flow';

const conn = { apiKey: 'evf_unused', baseUrl: 'http://127.0.0.1:9/api' };
const meta: Blueprint['metadata'] = { instant: false, version: 1, scenario: {} };
const sheetsCall = (id: number, mapper: Record<string, unknown>) => ({
  id,
  module: 'google-sheets:makeAPICall',
  version: 2,
  mapper,
});
const readList = sheetsCall(1, { url: `/spreadsheets/${SPREADSHEET_ID}/values/Leads!A2:A`, method: 'GET' });

describe('the sheet model refuses what Google refuses or advises against', () => {
  const sheet = () => new SheetModel(SPREADSHEET_ID);
  const put = (s: SheetModel, range: string, values: unknown[][]) =>
    s.handle({
      method: 'PUT',
      url: `/spreadsheets/${SPREADSHEET_ID}/values/${range}`,
      qs: { valueInputOption: 'RAW' },
      body: JSON.stringify({ values }),
    });

  test('a write past the 2 MB payload', () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => [
      `lead${i}@company.com`,
      'Valid',
      'safe_to_send',
      'yes',
      'x'.repeat(40),
    ]);
    expect(() => put(sheet(), 'Verified!A2:E', rows)).toThrow(SheetsApiError);
  });

  test('an answer past the 2 MB payload', () => {
    const s = sheet();
    s.fillList(Array.from({ length: 60_000 }, (_, i) => `a-rather-long-lead-address-${i}@company-name.com`));
    expect(() =>
      s.handle({ method: 'GET', url: `/spreadsheets/${SPREADSHEET_ID}/values/Leads!A2:A`, qs: {} }),
    ).toThrow(/2 MB/);
  });

  test('more than 60 writes in one run', () => {
    const s = sheet();
    s.startRun();
    for (let i = 0; i < SHEETS_WRITES_PER_MINUTE; i++) put(s, 'Verified!J1', [['x']]);
    expect(() => put(s, 'Verified!J1', [['x']])).toThrow(/per minute/);
  });

  test('a write over the lookup formula, or without valueInputOption', () => {
    expect(() => put(sheet(), 'Leads!B2:E2', [['Valid']])).toThrow(/lookup formula/);
    expect(() =>
      sheet().handle({
        method: 'PUT',
        url: `/spreadsheets/${SPREADSHEET_ID}/values/Verified!J1`,
        qs: {},
        body: '{"values":[["x"]]}',
      }),
    ).toThrow(/valueInputOption/);
  });
});

describe('the runner counts operations as Make bills them and refuses what it cannot vouch for', () => {
  test('an iterator is one operation for 1,000 bundles, a filter is free, an aggregator one per group', async () => {
    const sheet = newSheet(Array.from({ length: 1_000 }, (_, i) => `lead${i}@company.com`));
    const bp: Blueprint = {
      name: 'count',
      metadata: meta,
      flow: [
        readList,
        { id: 2, module: 'builtin:BasicFeeder', version: 1, mapper: { array: '{{1.body.values}}' } },
        {
          id: 3,
          module: 'builtin:BasicAggregator',
          version: 1,
          parameters: { feeder: 2 },
          flags: { groupBy: '{{ceil(2.__IMTINDEX__ / 300)}}' },
          filter: {
            name: 'every other',
            conditions: [[{ a: '{{get(2.value; 1)}}', o: 'text:pattern', b: '[02468]@' }]],
          },
          mapper: { email: '{{get(2.value; 1)}}' },
        },
        sheetsCall(4, {
          url: `/spreadsheets/${SPREADSHEET_ID}/values/Verified!J1`,
          method: 'PUT',
          qs: [{ key: 'valueInputOption', value: 'RAW' }],
          body: '{"values": [["{{length(3.array)}}"]]}',
        }),
      ],
    };
    const run = await runScenario(bp, { connection: conn, sheets: sheet });
    expect(run.byModule).toEqual({ 1: 1, 2: 1, 3: 4, 4: 4 });
    expect(run.operations).toBe(10);
  });

  test('an aggregator reached outside its source module, an unknown module, function or reference', async () => {
    const sheet = newSheet(['lead@company.com']);
    const variants: Blueprint['flow'][] = [
      [
        readList,
        {
          id: 2,
          module: 'builtin:BasicAggregator',
          version: 1,
          parameters: { feeder: 9 },
          mapper: { a: '{{1.body}}' },
        },
      ],
      [readList, { id: 2, module: 'google-sheets:filterRows', version: 2, mapper: {} }],
      [
        readList,
        { id: 2, module: 'builtin:BasicFeeder', version: 1, mapper: { array: '{{sortBy(1.body.values)}}' } },
      ],
      [readList, { id: 2, module: 'builtin:BasicFeeder', version: 1, mapper: { array: '{{3.values}}' } }],
    ];
    for (const flow of variants)
      await expect(
        runScenario({ name: 'wrong', metadata: meta, flow }, { connection: conn, sheets: sheet }),
      ).rejects.toThrow(ScenarioError);
  });
});

describe('the per-row pattern the peers force', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, timeScale: 0.002 });
  });
  afterAll(async () => {
    await sb?.close();
  });
  const run = (rows: number) =>
    runScenario(perRowBlueprint(), {
      connection: { apiKey: sb.apiKey, baseUrl: sb.baseUrl },
      sheets: newSheet(leadList(rows, 0, 0)),
    });

  test('costs two operations a row, and Google refuses the 61st row write of a run', async () => {
    expect((await run(50)).operations).toBe(1 + 1 + 50 + 50);
    await expect(run(61)).rejects.toThrow(/per minute/);
  }, 60_000);
});
