/**
 * Every component's parameters and every module's sample, checked by Make's own parameter validator,
 * Forman (`@makehq/forman-schema`, see harness/schema-location.ts). Per module, values that must pass
 * and values that must fail; each verdict is also the home-made checker's (harness/make-params.ts),
 * which the other suites run with: where the two disagree, Forman is right and the checker is fixed.
 * Without the validator this suite is skipped with one line saying how to run it, except under
 * EVF_REQUIRE_ALL_SUITES=1 (.ci/run), where a missing validator fails the run.
 */
import { components, codeFile, readJsonc, type Json } from './harness/app-files';
import { forman, type FormanResult } from './harness/forman';
import { asSpecs, ParamValidationError, validateParameters, type ParamSpec } from './harness/make-params';
import { formanMissingMessage, formanPresent } from './harness/schema-location';
import { describeWhenPresent } from '../../../test/support/optional-suite';

const present = formanPresent();

/** What the job RPC would list in the editor: one job. Anything else was typed or mapped. */
const LISTED_JOB = 'job_listed';
const resolveRemote = async (path: string): Promise<unknown> => {
  if (path === 'rpc://listJobs') return [{ label: `${LISTED_JOB} · completed`, value: LISTED_JOB }];
  throw new Error(`no RPC ${path} in this app`);
};

/** The parameters Make shows for a component: static first, then mappable (or a connection's params). */
function paramsOf(type: 'module' | 'connection' | 'webhook' | 'rpc', id: string): ParamSpec[] {
  if (type !== 'module') return asSpecs(readJsonc(codeFile(type, id, 'params')));
  const meta = components('module').find(([m]) => m === id)![1];
  return [
    ...(meta.codeFiles.staticParams ? asSpecs(readJsonc(meta.codeFiles.staticParams)) : []),
    ...(meta.codeFiles.mappableParams ? asSpecs(readJsonc(meta.codeFiles.mappableParams)) : []),
  ];
}

const check = (values: unknown, spec: unknown, dynamic = false): Promise<FormanResult> =>
  forman().validateForman(values, spec, { strict: true, resolveRemote, allowDynamicValues: dynamic });

function homeMade(spec: ParamSpec[], values: Record<string, unknown>): boolean {
  try {
    validateParameters(spec, values);
    return true;
  } catch (err) {
    if (err instanceof ParamValidationError) return false;
    throw err;
  }
}

const EMAIL = 'valid.ada@example.com';
type Values = Record<string, unknown>;
interface Cases {
  pass: Values[];
  fail: Values[];
}

/** Per component: values Make must accept and values it must refuse (each refused one names one fault). */
const CASES: Record<string, Cases> = {
  'connection apiKey': {
    // The connection asks for the key alone: the service's address is the app's common data.
    pass: [{ apiKey: 'evf_live_abc' }, { apiKey: 'evf_x' }],
    fail: [
      { apiKey: 'sk_live_abc' },
      { apiKey: '' },
      {},
      { apiKey: 'evf_live_abc', baseUrl: 'https://api.example.com/api' },
    ],
  },
  'module verifyEmail': {
    // A cell without one address is the module's own free verdict, so Make lets it through.
    pass: [{ email: EMAIL }, { email: EMAIL, check_smtp: false }, {}, { email: 'two@@example.com' }],
    fail: [
      { email: EMAIL, bad_cell: 'skip' },
      { email: EMAIL, check_smtp: 'yes' },
      { email: EMAIL, other: 1 },
    ],
  },
  'module submitBulk': {
    pass: [
      { input_as: 'array', emails: [EMAIL] },
      {
        input_as: 'array',
        emails: [EMAIL, 'b@example.com'],
        name: 'n'.repeat(255),
        priority: 'high',
        check_smtp: true,
        webhook_url: 'https://hooks.example.com/x',
      },
      { input_as: 'text', emails_text: `${EMAIL}\nb@example.com, c@example.com` },
    ],
    fail: [
      {},
      { emails: [EMAIL] },
      { input_as: 'text', emails_text: `${EMAIL}\nnot an address` },
      { input_as: 'text', emails: [EMAIL] },
      { input_as: 'array', emails: [] },
      { input_as: 'array', emails: ['not an address'] },
      { input_as: 'array', emails: [EMAIL], name: 'n'.repeat(256) },
      { input_as: 'array', emails: [EMAIL], priority: 'top' },
      { input_as: 'array', emails: [EMAIL], webhook_url: 'http://hooks.example.com/x' },
      { input_as: 'array', emails: [EMAIL], webhook_url: 'https://localhost/x' },
    ],
  },
  'module getJob': { pass: [{ job_id: LISTED_JOB }, { job_id: 'job_typed_by_hand' }], fail: [{}] },
  'module waitForJob': { pass: [{ job_id: LISTED_JOB }, { job_id: 'job_typed_by_hand' }], fail: [{}] },
  'module listResults': {
    pass: [
      { job_id: LISTED_JOB, start_page: 1 },
      { job_id: LISTED_JOB, start_page: 0 },
      { job_id: 'job_typed_by_hand', group: 'risky', start_page: 4, per_page: 1000, limit: 3200 },
    ],
    fail: [
      {},
      { job_id: LISTED_JOB },
      { job_id: LISTED_JOB, group: 'unknown' },
      { job_id: LISTED_JOB, start_page: -1 },
      { job_id: LISTED_JOB, per_page: 1001 },
      { job_id: LISTED_JOB, per_page: 0 },
      { job_id: LISTED_JOB, limit: 3201 },
      { job_id: LISTED_JOB, limit: '10' },
    ],
  },
  'module listJobs': {
    pass: [{}, { status: 'completed', limit: 3200, offset: 100 }],
    fail: [{ limit: 0 }, { limit: 3201 }, { offset: -1 }],
  },
  'module watchNewJobs': { pass: [{}], fail: [{ limit: 100 }] },
  'module watchJobFinished': { pass: [{}], fail: [{ job_id: LISTED_JOB }] },
  'module getCredits': { pass: [{}], fail: [{ anything: 1 }] },
  'module revokeKey': {
    pass: [{ key_id: 'key_123' }],
    fail: [{}, { key_id: 'evf_live_abc' }, { key_id: 'has space' }],
  },
  'module makeApiCall': {
    pass: [
      { url: '/v1/account', method: 'GET' },
      { url: '/v1/verify/bulk', method: 'POST', body_type: 'collection', body: { emails: [] } },
      { url: '/v1/verify/bulk', method: 'POST', body: '{"emails": []}' },
      { url: '/v1/jobs', method: 'GET', qs: [{ key: 'limit', value: '5' }], headers: [] },
    ],
    fail: [
      { url: 'https://evil.example/v1/account', method: 'GET' },
      { url: '/v1/account', method: 'TRACE' },
      { url: '/v1/account', method: 'GET', body_type: 'xml' },
    ],
  },
  'webhook jobFinished': { pass: [{}], fail: [{ secret: 'x' }] },
  'rpc listJobs': { pass: [{}], fail: [{ x: 1 }] },
};

function allComponents(): [string, ParamSpec[]][] {
  return [
    ...components('connection').map(
      ([id]) => [`connection ${id}`, paramsOf('connection', id)] as [string, ParamSpec[]],
    ),
    ...components('module').map(([id]) => [`module ${id}`, paramsOf('module', id)] as [string, ParamSpec[]]),
    ...components('webhook').map(
      ([id]) => [`webhook ${id}`, paramsOf('webhook', id)] as [string, ParamSpec[]],
    ),
    ...components('rpc').map(([id]) => [`rpc ${id}`, paramsOf('rpc', id)] as [string, ParamSpec[]]),
  ];
}

describeWhenPresent("Make's Forman validator", present ? undefined : formanMissingMessage(), () => {
  describe("every component's parameters, by Make's Forman validator and by the harness's checker", () => {
    it('every component has a table of values here', () => {
      expect(
        allComponents()
          .map(([name]) => name)
          .sort(),
      ).toEqual(Object.keys(CASES).sort());
    });

    describe.each(allComponents())('%s', (name, spec) => {
      it('converts to a JSON Schema (a parameter list Make can read)', () => {
        expect(() => forman().toJSONSchema({ type: 'collection', spec })).not.toThrow();
      });

      it.each(CASES[name]!.pass.map((v) => [JSON.stringify(v).slice(0, 120), v] as const))(
        'accepts %s',
        async (_label, values) => {
          expect((await check(values, spec)).errors).toEqual([]);
          expect(homeMade(spec, values)).toBe(true);
        },
      );

      it.each(CASES[name]!.fail.map((v) => [JSON.stringify(v).slice(0, 120), v] as const))(
        'refuses %s',
        async (_label, values) => {
          const r = await check(values, spec);
          expect(r.valid).toBe(false);
          expect(r.errors.length).toBeGreaterThan(0);
          // The harness's checker is never looser than Forman: unknown and hidden fields included.
          expect(homeMade(spec, values)).toBe(false);
        },
      );
    });
  });

  describe('a Job ID can be picked, typed or mapped', () => {
    const withJobId = allComponents().filter(([, spec]) => spec.some((s) => s.name === 'job_id'));

    it('every Job ID field is filled by the job RPC', () => {
      expect(withJobId.map(([n]) => n).sort()).toEqual([
        'module getJob',
        'module listResults',
        'module waitForJob',
      ]);
      for (const [, spec] of withJobId)
        expect(spec.find((s) => s.name === 'job_id')!.options).toBe('rpc://listJobs');
    });

    it.each(withJobId)('%s: a listed job, a typed ID and a mapped value all pass', async (_name, spec) => {
      // List bulk job results also needs its Start at page (required, so an empty one never means page 1).
      const rest = spec.some((s) => s.name === 'start_page') ? { start_page: 1 } : {};
      expect((await check({ job_id: LISTED_JOB, ...rest }, spec)).errors).toEqual([]);
      expect((await check({ job_id: 'job_not_in_the_list', ...rest }, spec)).errors).toEqual([]);
      expect((await check({ job_id: '{{1.job_id}}', ...rest }, spec, true)).errors).toEqual([]);
    });

    it('the same field without editable/mappable is refused by Forman (the check can fail)', async () => {
      const spec = [
        { name: 'job_id', type: 'select', label: 'Job ID', options: 'rpc://listJobs', required: true },
      ];
      const r = await check({ job_id: 'job_not_in_the_list' }, spec);
      expect(r.errors.map((e) => e.message)).toEqual(["Value 'job_not_in_the_list' not found in options."]);
    });
  });

  describe("every module's sample is valid output of its interface", () => {
    const modules = components('module').filter(
      ([, meta]) => meta.codeFiles.samples && meta.codeFiles.interface,
    );
    it.each(modules.map(([id, meta]) => [id, meta] as const))('%s', async (_id, meta) => {
      const sample = readJsonc(meta.codeFiles.samples!) as Record<string, Json>;
      const iface = readJsonc(meta.codeFiles.interface!) as unknown as {
        name: string;
        type: string;
        spec?: unknown;
      }[];
      // A collection without a spec is free-form by design (Make an API call's response headers): its
      // keys are whatever the service sends, so strict mode checks only that it is a collection.
      const freeForm = iface
        .filter((f) => f.type === 'collection' && f.spec === undefined)
        .map((f) => f.name);
      const checked = Object.fromEntries(
        Object.entries(sample).map(([k, v]) => [
          k,
          freeForm.includes(k) && v && typeof v === 'object' ? {} : v,
        ]),
      );
      const r = await forman().validateForman(checked, iface, { strict: true });
      expect(r.errors).toEqual([]);
    });

    it('a sample with a field its interface lacks, or of the wrong type, is refused (the check can fail)', async () => {
      const iface = [{ name: 'job_id', type: 'text', label: 'Job ID' }];
      expect((await forman().validateForman({ job_id: 1 }, iface, { strict: true })).valid).toBe(false);
      expect((await forman().validateForman({ job_id: 'a', extra: 1 }, iface, { strict: true })).valid).toBe(
        false,
      );
    });
  });
});
