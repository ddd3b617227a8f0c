/**
 * Every trigger, search and create of the app run against the sandbox (real HTTP on loopback, through
 * zapier-platform-core's createAppTester), on the happy path and on the failure paths a Zap meets, and
 * held from the live output to the checks Zapier runs before publishing
 * (https://docs.zapier.com/platform/publish/integration-checks-reference):
 * - T004: the static sample's keys are a subset of a live result's keys;
 * - D024/T005: every live key has an output field with a label, and values match the field's type;
 * - T003/D023: dates are ISO-8601, with a time zone when they hold a time;
 * - T002/D010: polling trigger items carry `id`.
 * The keys come from the live outputs, so no list of fields is kept by hand here.
 *
 * Stricter than Zapier where Zapier's rule is vague: T004 compares with "the latest run", which may be
 * any run, so the sample's object keys must be in EVERY live result of the operation; line-item keys
 * (inside arrays) must be in the live run made with the input the sample depicts. Keys are flattened
 * the way output fields name them: `a__b` into objects, `a[]b` into the items of an array.
 */
import type { Sandbox } from '@evf/sandbox';
import type { Bundle, ZObject } from 'zapier-platform-core';
import { App, expectNoSecrets, run, steps, zapierError, type Step } from './helpers';
import { useSandboxSession } from './sandbox-session';
import { liveFileOutputs } from './support/whole-sheet-flow';
import { DATE_LIKE, isIsoDate, typeMatches } from './zapier-checks';

type Kind = 'triggers' | 'searches' | 'creates';
interface OutputField {
  key: string;
  label?: string;
  type?: string;
  list?: boolean;
  required?: boolean;
}
interface Operation {
  sample: Record<string, unknown>;
  outputFields: OutputField[];
}
const definitions = (['triggers', 'searches', 'creates'] as Kind[]).flatMap((kind) =>
  Object.entries((App as unknown as Record<Kind, Record<string, { operation: Operation }>>)[kind]).map(
    ([key, def]) => ({ kind, key, op: def.operation }),
  ),
);

const session = useSandboxSession();
const { auth, callbackFor } = session;
let sb: Sandbox;
beforeAll(() => {
  sb = session.sb;
});

/** Every live result per operation key; `scenario` marks the run made with the input the sample depicts. */
const live = new Map<string, { item: Record<string, unknown>; scenario: boolean; where: string }[]>();
function record(key: string, where: string, output: unknown, scenario = false): void {
  const items = Array.isArray(output) ? output : [output];
  const list = live.get(key) ?? [];
  for (const item of items) list.push({ item: item as Record<string, unknown>, scenario, where });
  live.set(key, list);
}

/** Flattened key -> values, the way output fields name keys; an array is a key of its own too. */
function flatten(value: unknown, prefix = '', out = new Map<string, unknown[]>()): Map<string, unknown[]> {
  const add = (key: string, v: unknown) => out.set(key, [...(out.get(key) ?? []), v]);
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const key = `${prefix}${k}`;
    if (Array.isArray(v)) {
      add(key, v);
      for (const item of v)
        if (item && typeof item === 'object' && !Array.isArray(item)) flatten(item, `${key}[]`, out);
    } else if (v && typeof v === 'object') {
      flatten(v, `${key}__`, out);
    } else {
      add(key, v);
    }
  }
  return out;
}
const inItems = (key: string) => key.includes('[]');

/** A Zapier error, checked for what any failure message must hold: no API path, no other platform, no secret. */
async function failure(promise: Promise<unknown>, secrets: string[]) {
  const error = await zapierError(promise);
  expect(error.message).not.toMatch(/\/v1\/|Get Many Jobs|\bn8n\b|Make scenario|"[A-Z][\w ]+" operation/);
  expectNoSecrets(error, secrets);
  return error;
}

async function untilStopped(jobId: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const [job] = await run(steps.findJob, { authData: auth(), inputData: { job_id: jobId } });
    if (job?.terminal) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${jobId} did not stop`);
}

/**
 * A list like the samples': valid, invalid and catch-all rows, clean as most lists a Zap sends are (a
 * sample showing malformed or duplicate rows would hold keys a clean live run lacks: T004).
 */
const SAMPLE_LIST = ['valid.ada@acme-corp.com', 'invalid.old@acme-corp.com', 'catchall.team@acme-corp.com'];
/** The same list with one duplicate and one malformed row: the pre-flight reports fill in. */
const UNTIDY_LIST = [...SAMPLE_LIST, 'VALID.ADA@acme-corp.com', 'jane.doe@'];

/**
 * The happy path of every operation, each run once however jest orders the tests (--randomize
 * included): its own test runs it, and the checks below run whichever have not run yet before reading
 * what they recorded.
 */
const happyPaths: Record<string, () => Promise<void>> = {
  'authentication test and label': async () => {
    const account = await run(steps.authTest, { authData: auth() });
    const label = await run(steps.connectionLabel, { authData: auth(), inputData: account });
    expect(typeof label).toBe('string');
    expectNoSecrets(label, [sb.apiKey, sb.webhookSecret]);
  },

  'Verify Email Address: a catch-all (the sample), a valid address, no mail server check, and a timed-out one':
    async () => {
      record(
        'verify_email',
        'catch-all',
        await run(steps.verify, { authData: auth(), inputData: { email: 'catchall.sales@acme-corp.com' } }),
        true,
      );
      record(
        'verify_email',
        'valid',
        await run(steps.verify, { authData: auth(), inputData: { email: 'valid.one@acme-corp.com' } }),
      );
      record(
        'verify_email',
        'no smtp',
        await run(steps.verify, {
          authData: auth(),
          inputData: { email: 'valid.two@acme-corp.com', check_smtp: 'false' },
        }),
      );
    },

  'Submit Bulk Verification, Find Bulk Job, Find Bulk Job Results and both triggers': async () => {
    const submitted = await run(steps.bulk, {
      authData: auth(),
      inputData: { emails: SAMPLE_LIST, name: 'live outputs' },
    });
    record('submit_bulk', 'sample list', submitted, true);
    record(
      'submit_bulk',
      'duplicate and malformed rows',
      await run(steps.bulk, { authData: auth(), inputData: { emails: UNTIDY_LIST } }),
    );
    record(
      'submit_bulk',
      'pasted text',
      await run(steps.bulk, {
        authData: auth(),
        inputData: { emails_text: 'valid.x@acme-corp.com\ninfo@acme-corp.com' },
      }),
    );

    const running = await run(steps.findJob, { authData: auth(), inputData: { job_id: submitted.job_id } });
    record('find_job', 'just submitted', running);
    await untilStopped(submitted.job_id);
    record(
      'find_job',
      'completed',
      await run(steps.findJob, { authData: auth(), inputData: { job_id: submitted.job_id } }),
      true,
    );
    record(
      'find_job_results',
      'all rows',
      await run(steps.results, { authData: auth(), inputData: { job_id: submitted.job_id } }),
      true,
    );
    record(
      'find_job_results',
      'one group',
      await run(steps.results, { authData: auth(), inputData: { job_id: submitted.job_id, group: 'risky' } }),
    );

    // A job that fails midway: the trigger, Find Bulk Job and the results search mark it.
    sb.faults.failJob(undefined, { afterRows: 2, error: 'Verification stopped midway (injected).' });
    const failing = await run(steps.bulk, {
      authData: auth(),
      inputData: { emails: Array.from({ length: 6 }, (_, i) => `valid.f${i}@acme-corp.com`) },
    });
    await untilStopped(failing.job_id);
    const [failedJob] = await run(steps.findJob, { authData: auth(), inputData: { job_id: failing.job_id } });
    expect(failedJob).toMatchObject({ status: 'failed', job_failed: true, processed: 2 });
    expect(failedJob.failure_note).toMatch(
      /failed after verifying 2 of 6 addresses.*"Find Bulk Job Results"/,
    );
    record('find_job', 'failed', [failedJob]);
    const [failedRows] = await run(steps.results, {
      authData: auth(),
      inputData: { job_id: failing.job_id },
    });
    expect(failedRows).toMatchObject({ job_failed: true, returned_rows: 2 });
    // Inside the search that reads the rows, the note must not send the user to that same search.
    expect(failedRows.failure_note).toMatch(
      /failed after verifying 2 of 6 addresses.*the rows this step reads/,
    );
    expect(failedRows.failure_note).not.toMatch(/Find Bulk Job Results/);
    record('find_job_results', 'failed job', [failedRows]);

    const finished = await run(steps.finished, { authData: auth(), inputData: {} });
    const byId = new Map(finished.map((j: Record<string, unknown>) => [j.id, j]));
    expect(byId.get(submitted.job_id)).toMatchObject({
      status: 'completed',
      job_failed: false,
      failure_note: '',
    });
    expect(byId.get(failing.job_id)).toMatchObject({ status: 'failed', job_failed: true });
    record('job_finished', 'poll', finished, true);
    record(
      'recent_jobs',
      'dropdown page',
      await run(steps.recent, { authData: auth(), inputData: {}, meta: { page: 0 } }),
      true,
    );
  },

  'Verify List and Wait: the sample list through the signed callback, a failed job continued, and the editor test':
    async () => {
      const waiting = await run(session.wait, {
        authData: auth(),
        inputData: { emails: SAMPLE_LIST },
      });
      const out = await run(steps.resume, {
        authData: auth(),
        inputData: { emails: SAMPLE_LIST },
        outputData: waiting,
        rawRequest: await callbackFor(waiting.job_id),
      });
      expect(out).toMatchObject({
        status: 'completed',
        job_failed: false,
        returned_rows: 3,
        duplicates_removed: 0,
        malformed_removed: 0,
      });
      record('verify_list_and_wait', 'sample list', out, true);

      const untidyWaiting = await run(session.wait, { authData: auth(), inputData: { emails: UNTIDY_LIST } });
      const untidy = await run(steps.resume, {
        authData: auth(),
        inputData: { emails: UNTIDY_LIST },
        outputData: untidyWaiting,
        rawRequest: await callbackFor(untidyWaiting.job_id),
      });
      expect(untidy).toMatchObject({ returned_rows: 3, duplicates_removed: 1, malformed_removed: 1 });
      record('verify_list_and_wait', 'duplicate and malformed rows', untidy);

      sb.faults.failJob(undefined, { afterRows: 1, error: 'Stopped (injected).' });
      const input = {
        emails: ['valid.c1@acme-corp.com', 'valid.c2@acme-corp.com', 'valid.c3@acme-corp.com'],
        on_failure: 'continue',
      };
      const waitingFailed = await run(session.wait, { authData: auth(), inputData: input });
      const continued = await run(steps.resume, {
        authData: auth(),
        inputData: input,
        outputData: waitingFailed,
        rawRequest: await callbackFor(waitingFailed.job_id),
      });
      expect(continued).toMatchObject({ status: 'failed', job_failed: true, returned_rows: 1 });
      record('verify_list_and_wait', 'failed, continued', continued);

      record(
        'verify_list_and_wait',
        'editor test',
        await run(steps.wait, {
          authData: auth(),
          inputData: { emails: SAMPLE_LIST },
          meta: { isLoadingSample: true },
        }),
      );
    },

  'Verify File and Wait: a file like the sample and a job failing part way': async () => {
    for (const { where, output, scenario } of await liveFileOutputs(sb, session.receiver, auth()))
      record('verify_file_and_wait', where, output, scenario);
  },

  'Get Credit Balance and Revoke API Key (revoked, and not found)': async () => {
    record(
      'get_credit_balance',
      'balance',
      await run(steps.credits, { authData: auth(), inputData: {} }),
      true,
    );
    // A threshold above any balance here: the account is below it, so the poll returns its item.
    record(
      'credit_balance_below',
      'below threshold',
      await run(steps.below, { authData: auth(), inputData: { threshold: '100000000' } }),
      true,
    );
    const other = sb.addAccount({
      id: 'acct_live_revoke',
      plan: 'pro',
      credits: 10,
      keys: [{ id: 'key_main' }, { id: 'key_old' }],
    });
    const main = sb.apiKeys(other.accountId).find((k) => k.keyId === 'key_main')!;
    record(
      'revoke_api_key',
      'revoked',
      await run(steps.revoke, { authData: { api_key: main.apiKey }, inputData: { key_id: 'key_old' } }),
      true,
    );
    record(
      'revoke_api_key',
      'not found',
      await run(steps.revoke, { authData: { api_key: main.apiKey }, inputData: { key_id: 'key_nope' } }),
    );
  },
};
const started = new Map<string, Promise<void>>();
function runHappyPath(title: string): Promise<void> {
  if (!started.has(title)) started.set(title, happyPaths[title]!());
  return started.get(title)!;
}
async function runEveryHappyPath(): Promise<void> {
  for (const title of Object.keys(happyPaths)) await runHappyPath(title);
}

describe('the happy path of every operation, recorded', () => {
  it.each(Object.keys(happyPaths))('%s', (title) => runHappyPath(title));
});

describe.each(definitions.map((d) => [`${d.kind}.${d.key}`, d] as const))(
  '%s, held to its live outputs',
  (_name, { kind, key, op }) => {
    beforeAll(runEveryHappyPath, 120_000);
    const runs = () => {
      const list = live.get(key) ?? [];
      expect(list.length).toBeGreaterThan(0);
      return list;
    };
    const fields = new Map(op.outputFields.map((f) => [f.key, f]));

    it('T004: the static sample has only keys the live results have', () => {
      const sample = flatten(op.sample);
      const sampleKeys = [...sample.keys()];
      // Line items the sample shows (e.g. malformed rows) must be items in every live result, not only
      // in a run made to have them: Zapier compares the sample with whatever run came last.
      const filledLists = sampleKeys.filter((k) =>
        sample.get(k)!.some((v) => Array.isArray(v) && v.length > 0),
      );
      for (const { item, scenario, where } of runs()) {
        const live = flatten(item);
        const missing = sampleKeys.filter((k) => (scenario || !inItems(k)) && !live.has(k));
        const emptied = filledLists.filter(
          (k) => live.has(k) && !live.get(k)!.some((v) => Array.isArray(v) && v.length > 0),
        );
        expect({ where, missing, emptied }).toEqual({ where, missing: [], emptied: [] });
      }
      expect(runs().some((r) => r.scenario)).toBe(true);
    });

    it('D024/T005: every live key has a labelled output field whose type its values match', () => {
      for (const { item, where } of runs()) {
        for (const [liveKey, values] of flatten(item)) {
          // Every key a Zap can map needs a label of its own, a list of line items included (Zapier
          // names each live key; its children's fields do not label the list).
          const field = fields.get(liveKey);
          expect({ where, key: liveKey, described: field !== undefined }).toEqual({
            where,
            key: liveKey,
            described: true,
          });
          if (!field) continue;
          expect({
            where,
            key: liveKey,
            label: typeof field.label === 'string' && field.label.length > 0,
          }).toEqual({ where, key: liveKey, label: true });
          const wrong = values.filter((v) => !typeMatches(field, v));
          expect({ where, key: liveKey, type: field.type, wrong }).toEqual({
            where,
            key: liveKey,
            type: field.type,
            wrong: [],
          });
        }
      }
    });

    it('T003: every date in a live result is ISO-8601, with a zone when it has a time', () => {
      for (const { item, where } of runs()) {
        for (const [liveKey, values] of flatten(item)) {
          for (const v of values.flat()) {
            if (typeof v === 'string' && DATE_LIKE.test(v))
              expect({
                where,
                key: liveKey,
                value: v,
                iso: isIsoDate(v),
              }).toEqual({ where, key: liveKey, value: v, iso: true });
          }
        }
      }
    });

    if (kind === 'triggers') {
      it('T002: every polled item has an id, unique within the poll', () => {
        for (const { item, where } of runs())
          expect({ where, id: typeof item.id }).toEqual({ where, id: 'string' });
        const ids = runs().map((r) => r.item.id);
        expect(new Set(ids).size).toBe(ids.length);
      });
    }
  },
);

/** Each operation called the way a Zap calls it, for the failure table. */
const calls: [string, Step, Record<string, unknown>][] = [
  ['authentication test', steps.authTest, {}],
  ['Verify Email Address', steps.verify, { email: 'valid.f@acme-corp.com' }],
  ['Submit Bulk Verification', steps.bulk, { emails: ['valid.f@acme-corp.com'] }],
  [
    'Verify List and Wait',
    (z: ZObject, b: Bundle) =>
      steps.wait({ ...z, generateCallbackUrl: () => 'https://hooks.zapier.com/hooks/standard/1/x/' }, b),
    { emails: ['valid.f@acme-corp.com'] },
  ],
  ['Revoke API Key', steps.revoke, { key_id: 'key_x' }],
  ['Get Credit Balance', steps.credits, {}],
  ['Find Bulk Job', steps.findJob, { job_id: 'job_x' }],
  ['Find Bulk Job Results', steps.results, { job_id: 'job_x' }],
  ['Bulk Job Finished', steps.finished, {}],
  ['Recent Bulk Jobs', steps.recent, {}],
];

describe.each(calls)('%s on the failure paths', (name, step, inputData) => {
  // The connection test's errors show in the connection dialog: a key being pasted, no run, no Zap yet.
  const connecting = name === 'authentication test';

  it('401: asks for a working key, worded for where the user is', async () => {
    const error = await failure(run(step, { authData: { api_key: 'evf_not_a_real_key_000' }, inputData }), [
      'evf_not_a_real_key_000',
    ]);
    expect(error.name).toBe('ExpiredAuthError');
    if (connecting) {
      expect(error.message).toMatch(/\(HTTP 401\)\..*Profile, then API.*paste it here/);
      expect(error.message).not.toMatch(/turn the Zap on|reconnect|replay/i);
    } else {
      expect(error.message).toMatch(/\(HTTP 401\)\..*reconnect the account in Zapier/);
    }
  });

  it("403: halts with the service's reason (a new key does not help)", async () => {
    const unpaid = sb.addAccount({ plan: null, credits: 0 });
    const error = await failure(run(step, { authData: { api_key: unpaid.apiKey }, inputData }), [
      unpaid.apiKey,
    ]);
    expect(error.name).toBe('HaltedError');
    expect(error.message).toMatch(/\(HTTP 403\)\. The service said: "API access needs a paid account/);
    if (connecting) {
      expect(error.message).toMatch(/test this connection again/);
      expect(error.message).not.toMatch(/replay|Zap history/i);
    } else {
      expect(error.message).toMatch(/replay this run from your Zap history/);
    }
  });

  if (connecting) {
    it('404: says what a connection can check, never an ID or a dropdown it does not have', async () => {
      sb.faults.failNext({ path: '/v1/account', status: 404 });
      try {
        const error = await failure(run(step, { authData: auth(), inputData }), [sb.apiKey]);
        expect(error.message).toMatch(/\(HTTP 404\)/);
        expect(error.message).toMatch(/Profile, then API/);
        expect(error.message).not.toMatch(/dropdown|the ID|replay/i);
      } finally {
        sb.faults.clear();
      }
    });
  }

  // Submit Bulk sends what fits and returns the rest as output; every other step throttles.
  const sendsWhatFits = name === 'Submit Bulk Verification';

  it('429 with a long wait: Zapier retries after the wait the service gave', async () => {
    sb.faults.failNext({ status: 429, retryAfterSeconds: 50_000, count: 10 });
    try {
      if (sendsWhatFits) {
        const asked = Date.now();
        const out: any = await run(step, {
          authData: auth(),
          inputData: { emails: [`valid.429.${asked}@acme-corp.com`] },
        });
        expect(out).toMatchObject({ job_count: 0, all_sent: false, stopped_by: 'allowance' });
        expect(Date.parse(out.continue_after)).toBeGreaterThan(asked + 480_000);
        return;
      }
      const error = await failure(run(step, { authData: auth(), inputData }), [sb.apiKey]);
      expect(error.name).toBe('ThrottledError');
      expect(error.delay).toBeGreaterThanOrEqual(490);
      expect(error.delay).toBeLessThanOrEqual(501);
    } finally {
      sb.faults.clear();
    }
  });

  it('503 with a long Retry-After: Zapier retries after the wait the service gave', async () => {
    sb.faults.failNext({ status: 503, retryAfterSeconds: 60_000, count: 10 });
    try {
      if (sendsWhatFits) {
        const asked = Date.now();
        const out: any = await run(step, {
          authData: auth(),
          inputData: { emails: [`valid.503.${asked}@acme-corp.com`] },
        });
        expect(out).toMatchObject({ job_count: 0, all_sent: false, stopped_by: 'paused' });
        expect(Date.parse(out.continue_after)).toBeGreaterThan(asked + 580_000);
        return;
      }
      const error = await failure(run(step, { authData: auth(), inputData }), [sb.apiKey]);
      expect(error.name).toBe('ThrottledError');
      expect(error.delay).toBeGreaterThanOrEqual(590);
      expect(error.delay).toBeLessThanOrEqual(601);
    } finally {
      sb.faults.clear();
    }
  });

  it('no service address configured: refused before anything is sent, naming the setting', async () => {
    const before = process.env.EVF_BASE_URL;
    const requests = sb.requests.length;
    delete process.env.EVF_BASE_URL;
    try {
      const error = await failure(run(step, { authData: auth(), inputData }), [sb.apiKey]);
      expect(error.message).toMatch(
        /^EVF_BASE_URL \(app environment\): No address of the email verification service/,
      );
    } finally {
      process.env.EVF_BASE_URL = before;
    }
    expect(sb.requests.length).toBe(requests);
  });

  it('a plain-http service address off this machine: refused before the key is sent', async () => {
    const before = process.env.EVF_BASE_URL;
    process.env.EVF_BASE_URL = 'http://api.example.com/api';
    try {
      const error = await failure(run(step, { authData: auth(), inputData }), [sb.apiKey]);
      expect(error.message).toMatch(/must start with https:\/\/.*the API key was not sent/);
    } finally {
      process.env.EVF_BASE_URL = before;
    }
  });
});
