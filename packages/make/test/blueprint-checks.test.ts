/**
 * Every shipped blueprint passes the checks of Make's blueprint checker (integromat/make-blueprints
 * scripts/validate.mjs at de846e3, which cannot be had offline: its checks are rewritten one for one
 * in harness/scenario.ts checkBlueprint, the one mapping stated there) and uses only keys Make reads
 * (integromat/make-skills aggregators.md and blueprint-construction.md); each deliberately wrong
 * variant fails. Opens no socket: the in-memory sheet model and a connection nothing listens on.
 */
import nock from 'nock';
import { replyWithFixture, useNock } from '../../../test/support/nock';
import {
  checkBlueprint,
  MAKE_MODULE_ID,
  MAKE_MODULES,
  makeChecksRead,
  runScenario,
  type Blueprint,
} from './harness/scenario';
import { blueprints, leadList, newSheet } from './harness/scenario-sheet-flow';

const copy = (bp: Blueprint): Blueprint => JSON.parse(JSON.stringify(bp)) as Blueprint;
const shipped = Object.entries(blueprints(true));
const conn = { apiKey: 'evf_unused', baseUrl: 'http://127.0.0.1:9/api' };

useNock();

describe("the shipped blueprints pass Make's blueprint checks", () => {
  test.each(shipped)('%s', (_, bp) => {
    expect(checkBlueprint(bp)).toEqual([]);
  });

  test("custom-app modules are read as Make's importer names them; nothing else is widened", () => {
    expect(makeChecksRead('app#your-app-id:submitBulk')).toBe('your-app-id:submitBulk');
    expect(makeChecksRead('app#email-verification-7f3a2c:verifyEmail')).toBe(
      'email-verification-7f3a2c:verifyEmail',
    );
    expect(makeChecksRead('google-sheets:makeAPICall')).toBe('google-sheets:makeAPICall');
    // Unmapped, Make's own pattern refuses every custom-app module: what the checker says if run as is.
    for (const [, bp] of shipped)
      for (const m of bp.flow.filter((x) => x.module.startsWith('app#')))
        expect(MAKE_MODULE_ID.test(m.module)).toBe(false);
    // An app ID Make's pattern refuses stays refused after the mapping.
    const bp = copy(blueprints(true).submit);
    bp.flow.find((m) => m.module.endsWith(':submitBulk'))!.module = 'app#7-Up:submitBulk';
    expect(checkBlueprint(bp).join('\n')).toMatch(/invalid module identifier "app#7-Up:submitBulk"/);
  });

  test("every one of Make's modules they use has the version Make's references give", () => {
    for (const [, bp] of shipped)
      for (const m of bp.flow) {
        const known = MAKE_MODULES[m.module];
        if (known) expect(m.version).toBe(known.version);
      }
  });
});

describe('a blueprint Make would misread fails the checks', () => {
  const submit = () => copy(blueprints(true).submit);
  const writeBack = () => copy(blueprints(true).writeBack);
  const aggregator = (bp: Blueprint) => bp.flow.find((m) => m.module === 'builtin:BasicAggregator')!;
  const variants: [string, () => Blueprint][] = [
    [
      'an aggregator option under parameters (stopProcessingOnEmpty)',
      () => {
        const bp = submit();
        aggregator(bp).parameters = { feeder: 2, stopProcessingOnEmpty: true };
        return bp;
      },
    ],
    [
      'groupBy under parameters',
      () => {
        const bp = writeBack();
        const a = aggregator(bp);
        a.parameters = { ...a.parameters, groupBy: a.flags!.groupBy };
        delete a.flags;
        return bp;
      },
    ],
    [
      'a connection bound in parameters',
      () => {
        const bp = submit();
        bp.flow.find((m) => m.module.endsWith(':submitBulk'))!.parameters = { __IMTCONN__: 123 };
        return bp;
      },
    ],
    [
      'a proxy keychain bound in parameters',
      () => {
        const bp = submit();
        bp.flow.find((m) => m.module === 'google-sheets:makeAPICall')!.parameters = { proxyKeychain: 1 };
        return bp;
      },
    ],
    [
      "an aggregator's feeder written as text",
      () => {
        const bp = submit();
        aggregator(bp).parameters = {
          ...aggregator(bp).parameters,
          feeder: String(aggregator(bp).parameters!.feeder),
        };
        return bp;
      },
    ],
    [
      'no metadata.designer.orphans',
      () => {
        const bp = submit();
        delete bp.metadata.designer;
        return bp;
      },
    ],
    [
      'a module key Make does not read',
      () => {
        const bp = submit();
        (bp.flow[1] as unknown as Record<string, unknown>).options = {};
        return bp;
      },
    ],
    [
      "a version other than Make's",
      () => {
        const bp = submit();
        bp.flow.find((m) => m.module === 'google-sheets:makeAPICall')!.version = 3;
        return bp;
      },
    ],
    [
      "a field the app's module does not have",
      () => {
        const bp = submit();
        const sub = bp.flow.find((m) => m.module.endsWith(':submitBulk'))!;
        sub.mapper = { ...sub.mapper, emails_text: 'x' };
        delete sub.mapper.emails_text;
        sub.mapper.addresses = 'x';
        return bp;
      },
    ],
    [
      'a reference to a module the flow does not have',
      () => {
        const bp = submit();
        bp.flow.at(-1)!.mapper!.body = '{"values": [["{{42.job_id}}"]]}';
        return bp;
      },
    ],
    [
      'a filter on the first module',
      () => {
        const bp = submit();
        bp.flow[0]!.filter = { name: 'x', conditions: [[{ a: '1', o: 'exist' }]] };
        return bp;
      },
    ],
    [
      'a real address left in the blueprint',
      () => {
        const bp = submit();
        bp.flow.find((m) => m.module.endsWith(':submitBulk'))!.mapper!.name = 'ada@acme.io';
        return bp;
      },
    ],
  ];
  test.each(variants)('%s', (_, make) => {
    expect(checkBlueprint(make()).length).toBeGreaterThan(0);
  });

  test('the runner refuses the keys Make does not read before it runs anything', async () => {
    const bp = submit();
    aggregator(bp).parameters = { feeder: 2, stopProcessingOnEmpty: true };
    await expect(runScenario(bp, { connection: conn, sheets: newSheet(['a@example.com']) })).rejects.toThrow(
      /does not read parameters.stopProcessingOnEmpty/,
    );
  });
});

test('part 1 as shipped, its webhook address not pasted, is refused before anything is sent', async () => {
  const sheet = newSheet(leadList(20, 0, 0));
  // Part 1 reads the plan (free) before Submit; the service's answer is the contract's fixture.
  // Part 1 reads the newest job and the plan (both free) before Submit; the service's answers are the
  // contract's fixtures.
  replyWithFixture(nock('http://127.0.0.1:9/api').get('/v1/jobs').query({ limit: '1' }), 'jobs-list.200');
  replyWithFixture(nock('http://127.0.0.1:9/api').get('/v1/account'), 'account.200');
  const run = runScenario(blueprints(true).submit, { connection: conn, sheets: sheet });
  await expect(run).rejects.toThrow(/Webhook URL|webhook_url/i);
  // At most the free read of the plan (reading never counts against the allowance); no POST.
  await run.catch((err: { run: { serviceRequests: { method: string }[] } }) =>
    expect(err.run.serviceRequests.filter((r) => r.method !== 'GET')).toHaveLength(0),
  );
});
