/**
 * Zapier's review conventions and the contract, checked over the whole app definition: a new
 * operation is walked like the others, so it cannot skip a sample, a label or a dropdown.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { assertMatches, fieldNames } from '@evf/contract';
import App from '../src/index';
import { DATE_LIKE, isIsoDate, typeMatches } from './zapier-checks';

type Field = {
  key: string;
  label?: string;
  required?: boolean;
  type?: string;
  helpText?: string;
  dynamic?: string;
  list?: boolean;
  children?: Field[];
};
type Operation = {
  inputFields?: Field[];
  outputFields?: Field[];
  sample?: Record<string, unknown>;
  canPaginate?: boolean;
  type?: string;
};
type Definition = {
  key: string;
  noun: string;
  display: { label?: string; description?: string; hidden?: boolean };
  operation: Operation;
};
type Kind = 'triggers' | 'searches' | 'creates';

const definitions: { kind: Kind; def: Definition }[] = (
  ['triggers', 'searches', 'creates'] as Kind[]
).flatMap((kind) =>
  Object.values((App as unknown as Record<Kind, Record<string, Definition>>)[kind] ?? {}).map((def) => ({
    kind,
    def,
  })),
);
const byKey = new Map(definitions.map(({ def }) => [def.key, def]));

const CATEGORY_FIELDS = ['category', 'group', 'safe_to_send'];
const OUTCOME_FIELDS = ['job_failed', 'failure_note'];
const PREFLIGHT_FIELDS = [
  'received',
  'unique_count',
  'duplicates_removed',
  'malformed_removed',
  'malformed',
  'duplicates',
];

/**
 * Where each operation's output comes from in the contract: the schema of the wire object, the keys
 * this app adds, and line-item arrays with their own schema. `complete` says the sample holds a whole
 * wire object, so it is validated against the schema after removing the added keys.
 */
interface ContractShape {
  schema: string | null;
  added: string[];
  complete: boolean;
  lineItems?: Record<string, { schema: string; added: string[] }>;
}
const CONTRACT: Record<string, ContractShape> = {
  verify_email: { schema: 'SingleResult', added: CATEGORY_FIELDS, complete: true },
  submit_bulk: {
    schema: 'BulkSubmission',
    added: [
      'job_ids',
      'job_count',
      'jobs',
      'rejected_by_service',
      ...PREFLIGHT_FIELDS,
      'all_sent',
      'unsent_count',
      'unsent',
      'stopped_by',
      'continue_after',
      'note',
    ],
    complete: false,
    lineItems: { jobs: { schema: 'BulkSubmission', added: [] } },
  },
  verify_list_and_wait: {
    schema: 'Job',
    added: [
      ...OUTCOME_FIELDS,
      ...PREFLIGHT_FIELDS,
      'counts',
      'returned_rows',
      'truncated',
      'next_start_row',
      'message_verified',
      'note',
      'results',
    ],
    complete: true,
    lineItems: { results: { schema: 'ResultRow', added: CATEGORY_FIELDS } },
  },
  // The job's ID from the contract; the rest describes the results file this app writes.
  verify_file_and_wait: {
    schema: 'Job',
    added: [
      'job_ids',
      'job_status',
      'job_failed',
      'complete',
      'results_file',
      'results_file_name',
      'column_used',
      'results_file_encoding',
      'encoding_guessed',
      'rows',
      'rows_verified',
      'rows_duplicate',
      'rows_skipped',
      'rows_not_verified',
      'unique_count',
      'malformed_removed',
      'counts',
      'answered_at',
      'note',
    ],
    complete: false,
  },
  revoke_api_key: { schema: null, added: ['key_id', 'revoked', 'result', 'message'], complete: false },
  find_job: { schema: 'Job', added: OUTCOME_FIELDS, complete: true },
  find_job_results: {
    schema: 'Job',
    added: [
      ...OUTCOME_FIELDS,
      'group_filter',
      'counts',
      'start_row',
      'rows_read',
      'returned_rows',
      'truncated',
      'job_running',
      'next_start_row',
      'note',
      'results',
    ],
    complete: false,
    lineItems: { results: { schema: 'ResultRow', added: CATEGORY_FIELDS } },
  },
  get_credit_balance: {
    schema: 'CreditBalance',
    added: ['minimum_credits', 'enough_credits', 'credits_short'],
    complete: true,
  },
  credit_balance_below: {
    schema: 'CreditBalance',
    added: ['id', 'threshold', 'below_since', 'credits_short'],
    complete: true,
  },
  job_finished: { schema: 'Job', added: ['id', ...OUTCOME_FIELDS], complete: true },
  recent_jobs: { schema: 'JobListItem', added: ['id', 'label'], complete: true },
};

/** ID inputs without a dropdown, each with the reason no list exists to pick from. */
const ID_INPUTS_WITHOUT_DROPDOWN: Record<string, string> = {
  'revoke_api_key.key_id': 'the API has no endpoint that lists keys; key IDs are read in the app',
};

const SMALL_WORDS = new Set([
  'a',
  'an',
  'and',
  'as',
  'at',
  'but',
  'by',
  'for',
  'in',
  'of',
  'on',
  'or',
  'the',
  'to',
  'vs',
  'with',
]);

function titleCaseProblems(label: string): string[] {
  return label
    .split(/\s+/)
    .map((word, i) => ({ word, core: word.replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9%]+$/g, ''), i }))
    .filter(({ core, i }) => /^[a-z]/.test(core) && (i === 0 || !SMALL_WORDS.has(core)))
    .map(({ word }) => word);
}

/**
 * Values at an output field key: "a__b" walks objects, "a[]b" walks the items of an array. Inside line
 * items a field may be absent from some items (catch-all-only details), but must be in at least one.
 */
function valuesAt(sample: unknown, key: string): unknown[] | undefined {
  let current: unknown[] = [sample];
  let inItems = false;
  const parts = key.split(/(\[\]|__)/).filter((p) => p !== '' && p !== '__');
  for (const part of parts) {
    if (part === '[]') {
      current = current.flatMap((v) => (Array.isArray(v) ? v : []));
      inItems = true;
      continue;
    }
    const holders = current.filter((v) => v && typeof v === 'object' && part in (v as object));
    if (holders.length === 0 || (!inItems && holders.length < current.length)) return undefined;
    current = holders.map((v) => (v as Record<string, unknown>)[part]);
  }
  return current;
}

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => strings(v, out));
  return out;
}

function omit(value: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k)));
}

const cases = definitions.map(({ kind, def }) => [`${kind}.${def.key}`, kind, def] as const);

it('the app defines exactly its six actions, two searches and two triggers, by key', () => {
  expect(Object.keys(App.creates).sort()).toEqual([
    'get_credit_balance',
    'revoke_api_key',
    'submit_bulk',
    'verify_email',
    'verify_file_and_wait',
    'verify_list_and_wait',
  ]);
  expect(Object.keys(App.searches).sort()).toEqual(['find_job', 'find_job_results']);
  expect(Object.keys(App.triggers).sort()).toEqual(['credit_balance_below', 'job_finished', 'recent_jobs']);
});

// A published app's keys never change (a renamed key breaks users' Zaps), so files follow keys.
it('each operation is the default export of the file named by its key, - for _, and every such file is in the app', async () => {
  for (const kind of ['triggers', 'searches', 'creates'] as Kind[]) {
    const dir = path.join(__dirname, '..', 'src', kind);
    const names = readdirSync(dir)
      .filter((file) => file.endsWith('.ts'))
      .map((file) => file.slice(0, -'.ts'.length));
    for (const name of names) {
      const operation = ((await import(path.join(dir, name))) as { default?: { key?: unknown } }).default;
      expect({ file: `src/${kind}/${name}.ts`, key: operation?.key }).toEqual({
        file: `src/${kind}/${name}.ts`,
        key: name.replace(/-/g, '_'),
      });
    }
    expect(Object.keys(App[kind]).sort()).toEqual(names.map((name) => name.replace(/-/g, '_')).sort());
  }
});

describe.each(cases)('%s', (_name, kind, def) => {
  const op = def.operation;
  const visible = !def.display.hidden;

  it('has a Title Case label and a description', () => {
    expect(def.display.label).toBeTruthy();
    expect(titleCaseProblems(def.display.label!)).toEqual([]);
    expect(def.display.description?.length ?? 0).toBeGreaterThan(20);
    // D021: trigger descriptions start "Triggers when " and end with a period.
    if (kind === 'triggers') expect(def.display.description).toMatch(/^Triggers when .*\.$/s);
    expect(def.noun).toBeTruthy();
  });

  it('labels every input with Title Case and help text that does not repeat the label', () => {
    for (const field of op.inputFields ?? []) {
      // A Copy field is display-only Markdown, shown without a label.
      if (field.type === 'copy') continue;
      expect({ key: field.key, label: field.label }).toEqual({ key: field.key, label: expect.any(String) });
      expect({ key: field.key, problems: titleCaseProblems(field.label!) }).toEqual({
        key: field.key,
        problems: [],
      });
      expect({ key: field.key, help: field.helpText }).toEqual({ key: field.key, help: expect.any(String) });
      const help = field.helpText!.toLowerCase();
      expect({
        key: field.key,
        repeats: help.startsWith(field.label!.toLowerCase()) || help.length < 20,
      }).toEqual({ key: field.key, repeats: false });
    }
  });

  it('gives ID inputs a dynamic dropdown backed by a hidden, paginated trigger', () => {
    for (const field of op.inputFields ?? []) {
      if (!/(^|_)id$/.test(field.key)) continue;
      if (ID_INPUTS_WITHOUT_DROPDOWN[`${def.key}.${field.key}`]) continue;
      expect({ key: field.key, dynamic: field.dynamic }).toEqual({
        key: field.key,
        dynamic: expect.stringMatching(/^\w+\.\w+\.\w+$/),
      });
      const [triggerKey, idField, labelField] = field.dynamic!.split('.');
      const source = byKey.get(triggerKey!);
      expect(source?.display.hidden).toBe(true);
      expect(source?.operation.canPaginate).toBe(true);
      expect(source?.operation.sample).toHaveProperty(idField!);
      expect(source?.operation.sample).toHaveProperty(labelField!);
    }
  });

  if (kind !== 'triggers') {
    // D022. Zapier: "Actions require an input form, as they always need a way for users to send data to
    // your app's API" (https://docs.zapier.com/integrations/build/add-fields). A Copy field is not input.
    it('has at least one input field a user fills (D022)', () => {
      expect((op.inputFields ?? []).filter((f) => f.type !== 'copy').length).toBeGreaterThan(0);
    });
  }

  if (kind === 'searches') {
    // D009: a search has a field to search by. Zapier's search guide: the name starts with a verb such
    // as Find, the description with "Finds" (https://docs.zapier.com/platform/build/search).
    it('has a required field to search by and a "Find ..." label (D009)', () => {
      expect((op.inputFields ?? []).filter((f) => f.required).length).toBeGreaterThan(0);
      expect(def.display.label).toMatch(/^Find /);
      expect(def.display.description).toMatch(/^Finds /);
    });

    // Keys freeze at first publish, so the key says what the step does (a Find, not a "get"), and the
    // noun is "A single noun that describes what this action searches"
    // (https://docs.zapier.com/platform/build/search): singular, as Zapier builds sentences from it.
    it('has a find_ key and a singular noun', () => {
      expect(def.key).toMatch(/^find_/);
      expect(def.noun).not.toMatch(/(?<!s)s$/);
    });
  }

  it('never names API paths or other platforms in what a user reads', () => {
    const texts = [
      def.display.label,
      def.display.description,
      ...(op.inputFields ?? []).flatMap((f) => [f.label, f.helpText]),
    ];
    for (const text of texts)
      expect(text ?? '').not.toMatch(/\/v1\/|\bGET |\bPOST |Get Many|n8n|Make scenario/);
  });

  it('has a sample and labelled output fields whose types match the sample (D024)', () => {
    expect(op.sample && Object.keys(op.sample).length).toBeTruthy();
    expect(op.outputFields?.length).toBeTruthy();
    for (const field of op.outputFields!) {
      expect({ key: field.key, label: field.label }).toEqual({ key: field.key, label: expect.any(String) });
      expect({ key: field.key, problems: titleCaseProblems(field.label!) }).toEqual({
        key: field.key,
        problems: [],
      });
      // D024: a required field must be in the sample; others may be absent from it (a sample holds
      // only keys a live result has, T004, and some fields appear only in some results).
      const values = valuesAt(op.sample, field.key);
      if (field.required)
        expect({ key: field.key, inSample: values !== undefined }).toEqual({
          key: field.key,
          inSample: true,
        });
      const wrong = (values ?? []).filter((v) => !typeMatches(field, v));
      expect({ key: field.key, type: field.type, wrong }).toEqual({
        key: field.key,
        type: field.type,
        wrong: [],
      });
    }
    // Every top-level sample key has a labelled field (nested objects through their sub-fields).
    const covered = new Set(op.outputFields!.map((f) => f.key.split(/\[\]|__/)[0]));
    expect(Object.keys(op.sample!).filter((k) => !covered.has(k))).toEqual([]);
  });

  it('uses ISO-8601 dates with a time zone and HTTPS URLs only', () => {
    const texts = [
      ...strings(op.sample),
      ...(op.inputFields ?? []).map((f) => f.helpText ?? ''),
      def.display.description ?? '',
    ];
    for (const text of texts) {
      if (DATE_LIKE.test(text)) expect({ text, iso: isIsoDate(text) }).toEqual({ text, iso: true });
      expect(text).not.toMatch(/http:\/\//);
    }
  });

  it('outputs only contract fields plus the fields this app documents as added', () => {
    const shape = CONTRACT[def.key];
    expect(shape).toBeDefined();
    const allowed = new Set([...(shape!.schema ? fieldNames(shape!.schema) : []), ...shape!.added]);
    for (const field of op.outputFields!) {
      const [top, ...rest] = field.key.split('[]');
      expect({ key: field.key, known: allowed.has(top!.split('__')[0]!) }).toEqual({
        key: field.key,
        known: true,
      });
      const items = shape!.lineItems?.[top!];
      if (rest.length && items) {
        const inner = rest.join('[]').split('__')[0]!;
        expect({
          key: field.key,
          known: [...fieldNames(items.schema), ...items.added].includes(inner),
        }).toEqual({ key: field.key, known: true });
      }
    }
    const sample = op.sample!;
    if (shape!.complete && shape!.schema) assertMatches(shape!.schema, omit(sample, shape!.added));
    for (const [key, items] of Object.entries(shape!.lineItems ?? {})) {
      const list = sample[key] as Record<string, unknown>[];
      expect(Array.isArray(list) && list.length > 0).toBe(true);
      for (const item of list) assertMatches(items.schema, omit(item, items.added));
    }
  });

  if (visible) {
    it('is reachable by users (not hidden)', () => expect(def.display.hidden).toBeFalsy());
  }
});

it('authentication: key as a password field with help naming where keys are made, HTTPS links only', () => {
  const fields = App.authentication!.fields as Field[];
  const key = fields.find((f) => f.key === 'api_key')!;
  expect(key).toMatchObject({ type: 'password', required: true });
  expect(key.helpText).toMatch(/Profile, then API/);
  expect(key.helpText).toMatch(/\(https:\/\/[^)]+\)/);
  const secret = fields.find((f) => f.key === 'webhook_secret')!;
  expect(secret).toMatchObject({ type: 'password', required: false });
  for (const f of fields) expect(titleCaseProblems(f.label!)).toEqual([]);
});

it('the .env where zapier-platform invoke keeps the connection (the API key) is ignored by git', () => {
  // The package's own .gitignore, read as git reads a pattern without a slash: it matches the name in
  // any folder; * and ? are the only wildcards used here.
  const patterns = readFileSync(path.join(__dirname, '..', '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#') && !line.startsWith('!') && !line.includes('/'));
  const asRegExp = (glob: string) =>
    new RegExp(
      `^${glob
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*/g, '[^/]*')
        .replace(/\?/g, '[^/]')}$`,
    );
  expect(patterns.some((p) => asRegExp(p).test('.env'))).toBe(true);
});

describe('Revoke API Key before publishing', () => {
  const fields = (App.creates.revoke_api_key.operation.inputFields ?? []) as {
    key: string;
    type?: string;
    helpText?: string;
  }[];
  it('has a Copy field first saying revoking cannot be undone', () => {
    expect(fields[0]).toMatchObject({ type: 'copy', helpText: expect.stringMatching(/cannot be undone/) });
  });
  it("says in Key ID's help why it is typed, not picked (D004)", () => {
    expect(fields.find((f) => f.key === 'key_id')?.helpText).toMatch(
      /Typed by hand: the service offers no list of keys/,
    );
  });
});

// Help links go only to pages that exist: the service's web app (its origin; the spec names its pages,
// "Profile, then API", but gives no paths, so none is guessed) and Zapier's own docs.
it('links in help and descriptions go to the web app itself or to docs.zapier.com, never a guessed path', async () => {
  const { APP_ORIGIN } = await import('../src/config');
  const texts: string[] = [];
  for (const field of (App.authentication?.fields ?? []) as { helpText?: string }[])
    texts.push(field.helpText ?? '');
  for (const { def } of definitions) {
    texts.push(def.display.description ?? '');
    for (const field of def.operation.inputFields ?? []) texts.push(field.helpText ?? '');
  }
  const links = texts.flatMap((text) => [...text.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!));
  expect(links.length).toBeGreaterThan(0);
  for (const link of links)
    expect(link === APP_ORIGIN || link.startsWith('https://docs.zapier.com/')).toBe(true);
});
