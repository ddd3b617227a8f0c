/**
 * The shared bad-input table (test/support/bad-inputs.ts) run through the action node's operations against the sandbox on
 * loopback. Each row must stop with an n8n error that says what to fix, before any request and without
 * touching the credit ledger. Two kinds of row behave differently in n8n by design and are asserted as
 * such: Bulk Job Submit runs pre-flight (a malformed address among valid ones is dropped and reported,
 * a list over 50,000 is split), and the wire's paging parameters (page, per_page, offset, a page-size
 * limit) are not node parameters: the node pages itself, so the test checks what it sends instead.
 */
import type { IDataObject, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import {
	BAD_WEBHOOK_URLS,
	MALFORMED_ADDRESSES,
	badInputsFor,
	type BadInputRow,
} from '../../../test/support/bad-inputs';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { executeContext, type TestCredentials } from './support/context';
import { waitFor } from './support/timing';

let sb: Sandbox;
let credentials: TestCredentials;
const node = new EmailVerification();

beforeAll(async () => {
	sb = await startSandbox({ port: 0, timeScale: 0.01, allowInsecureWebhooks: true });
	credentials = { apiKey: sb.apiKey, baseUrl: sb.baseUrl, webhookSecret: sb.webhookSecret };
});
afterAll(async () => {
	await sb.close();
});

type Params = Record<string, unknown>;

/** What the user must be told about, by wire field: its n8n name or the wire name the description gives. */
const NAMES_THE_FIELD: Record<string, RegExp> = {
	email: /address|"email"/i,
	emails: /address|list|"emails"/i,
	name: /list name|"name"/i,
	priority: /priority/i,
	webhook_url: /webhook_url|webhook url/i,
	job_id: /job id|"job_id"/i,
	limit: /limit/i,
	api_key: /api key/i,
};

interface Outcome {
	error: unknown;
	output?: INodeExecutionData[];
	sent: number;
}

/**
 * Runs the node once. `offline` replaces the HTTP helper with one that records and refuses, for
 * credentials whose base URL is not the sandbox: nothing may leave this machine even if a check failed.
 */
async function runNode(
	params: Params,
	options: { credentials?: TestCredentials; continueOnFail?: boolean; offline?: boolean } = {},
): Promise<Outcome> {
	const harness = executeContext({
		params: { options: {}, waitForCompletion: false, ...params },
		credentials: options.credentials ?? credentials,
		continueOnFail: options.continueOnFail,
	});
	if (options.offline) {
		(harness.context.helpers as unknown as IDataObject).httpRequestWithAuthentication = async (
			_type: string,
			request: { method?: string; url: string },
		) => {
			harness.sent.push({ method: String(request.method ?? 'GET'), url: request.url, headers: {} });
			throw new Error('this test sends nothing off the machine');
		};
	}
	try {
		const output = await node.execute.call(harness.context);
		return { error: undefined, output: output[0], sent: harness.sent.length };
	} catch (error) {
		return { error, sent: harness.sent.length };
	}
}

function textOf(error: unknown): string {
	const e = error as { message?: string; description?: string | null };
	return `${e?.message ?? ''} ${e?.description ?? ''}`;
}

/**
 * The row's contract: an n8n error naming the field, the same error as an item with Continue On Fail,
 * no request from the node, none logged by the sandbox, the ledger unchanged, and no secret echoed.
 */
async function expectRefusedBeforeSending(
	row: BadInputRow,
	params: Params,
	options: { credentials?: TestCredentials; offline?: boolean; itemOnFail?: boolean } = {},
): Promise<void> {
	const requestsBefore = sb.requests.length;
	const ledgerBefore = sb.ledger();

	const thrown = await runNode(params, options);
	expect(thrown.output).toBeUndefined();
	expect(thrown.error instanceof NodeOperationError || thrown.error instanceof NodeApiError).toBe(
		true,
	);
	expect(textOf(thrown.error)).toMatch(NAMES_THE_FIELD[row.field]);
	expect(thrown.sent).toBe(0);

	let json: IDataObject = {};
	if (options.itemOnFail !== false) {
		const kept = await runNode(params, { ...options, continueOnFail: true });
		expect(kept.error).toBeUndefined();
		expect(kept.output).toHaveLength(1);
		json = kept.output![0].json;
		expect(typeof json.error).toBe('string');
		expect(`${String(json.error)} ${String(json.description ?? '')}`).toMatch(
			NAMES_THE_FIELD[row.field],
		);
		expect(kept.output![0].pairedItem).toBeDefined();
		expect(kept.sent).toBe(0);
	}

	expect(sb.requests.slice(requestsBefore)).toEqual([]);
	expect(sb.ledger()).toEqual(ledgerBefore);
	for (const secret of [sb.apiKey, sb.webhookSecret, options.credentials?.apiKey]) {
		if (secret && secret.length > 8) {
			expect(textOf(thrown.error)).not.toContain(secret);
			expect(JSON.stringify(json)).not.toContain(secret);
		}
	}
}

function submitParams(input: Record<string, unknown>): Params {
	return {
		resource: 'bulkJob',
		operation: 'submit',
		emailSource: 'list',
		emails: input.emails,
		options: {
			...(input.name !== undefined ? { name: input.name } : {}),
			...(input.priority !== undefined ? { priority: input.priority } : {}),
			...(input.webhook_url !== undefined ? { webhookUrl: input.webhook_url } : {}),
		},
	};
}

function propertyOf(operation: string, name: string): INodeProperties | undefined {
	return node.description.properties.find(
		(p) =>
			p.name === name &&
			(p.displayOptions?.show?.resource as string[] | undefined)?.includes('bulkJob') &&
			(p.displayOptions?.show?.operation as string[] | undefined)?.includes(operation),
	);
}

function rowsOf(operation: BadInputRow['operation'], name: string): BadInputRow {
	const row = badInputsFor(operation).find((r) => r.name === name);
	if (!row) throw new Error(`the shared table has no ${operation} row "${name}"`);
	return row;
}

/** A finished job of the given addresses, submitted through the node. */
async function finishedJob(emails: string[]): Promise<string> {
	const { output, error } = await runNode(submitParams({ emails }));
	expect(error).toBeUndefined();
	const jobId = String(output![0].json.job_id);
	await waitFor(() => sb.job(jobId)?.terminal === true, { what: `job ${jobId} finished` });
	return jobId;
}

async function resultEmails(jobId: string): Promise<string[]> {
	const { output, error } = await runNode({
		resource: 'bulkJob',
		operation: 'getResults',
		jobId: { mode: 'id', value: jobId },
		returnAll: true,
		groups: [],
		simplify: true,
	});
	expect(error).toBeUndefined();
	return output!.map((o) => String(o.json.email));
}

describe('verify_single rows: Email > Verify', () => {
	const rows = badInputsFor('verify_single');
	it('covers every malformed address and the missing one', () => {
		expect(rows.length).toBe(MALFORMED_ADDRESSES.length + 1);
	});
	// A per-row flow meets such cells in a sheet: by default each is a free verdict to route, not a failure.
	it.each(rows.map((row) => [row.name, row] as const))(
		'%s: a free Invalid verdict, nothing sent',
		async (_name, row) => {
			// A field mapped from an item that lacks it reaches the node as null.
			const email = 'email' in row.input ? row.input.email : null;
			const requestsBefore = sb.requests.length;
			const ledgerBefore = sb.ledger();
			const { output, error, sent } = await runNode({
				resource: 'email',
				operation: 'verify',
				email,
			});
			expect(error).toBeUndefined();
			expect(output).toHaveLength(1);
			expect(output![0].json).toMatchObject({
				category: 'Invalid',
				group: 'invalid',
				safe_to_send: false,
				credits_used: 0,
				sent: false,
			});
			expect(String(output![0].json.reason)).toMatch(NAMES_THE_FIELD[row.field]);
			expect(output![0].pairedItem).toEqual({ item: 0 });
			expect(sent).toBe(0);
			expect(sb.requests.slice(requestsBefore)).toEqual([]);
			expect(sb.ledger()).toEqual(ledgerBefore);
		},
	);
	it.each(rows.map((row) => [row.name, row] as const))(
		'%s: with "On Bad Input: Fail the Node", refused before sending',
		async (_name, row) => {
			const email = 'email' in row.input ? row.input.email : null;
			await expectRefusedBeforeSending(row, {
				resource: 'email',
				operation: 'verify',
				email,
				options: { onBadInput: 'fail' },
			});
		},
	);
});

describe('connection rows: the credential, checked before Email > Verify sends anything', () => {
	const rows = badInputsFor('connection');
	it.each(rows.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
		const bad = { ...credentials } as Partial<TestCredentials>;
		if ('api_key' in row.input) bad.apiKey = row.input.api_key as string;
		else delete bad.apiKey;
		await expectRefusedBeforeSending(
			row,
			{ resource: 'email', operation: 'verify', email: 'valid.conn@example.com' },
			// Continue On Fail for a bad credential is its own test below.
			{ credentials: bad as TestCredentials, itemOnFail: false },
		);
	});

	// When a node throws with Continue On Fail on, n8n 2.8 passes the input items on unchanged (no
	// error field), so a bad key would look like success downstream; the node must give error items.
	it('with Continue On Fail, a bad key gives an error item per input item, naming the key', async () => {
		const row = rowsOf('connection', 'key without the evf_ prefix');
		const items = [
			{ json: { email: 'valid.c1@example.com' } },
			{ json: { email: 'valid.c2@example.com' } },
		];
		const before = sb.requests.length;
		const harness = executeContext({
			params: (name, i) =>
				({ resource: 'email', operation: 'verify', email: items[i].json.email, options: {} })[name],
			items,
			credentials: { ...credentials, apiKey: row.input.api_key as string },
			continueOnFail: true,
		});
		let error: unknown;
		let output: INodeExecutionData[] = [];
		try {
			output = (await node.execute.call(harness.context))[0];
		} catch (e) {
			error = e;
		}
		expect(harness.sent).toEqual([]);
		expect(sb.requests.slice(before)).toEqual([]);
		expect(error).toBeUndefined();
		expect(output).toHaveLength(2);
		for (const item of output) expect(String(item.json.error)).toMatch(NAMES_THE_FIELD.api_key);
	});
});

describe('submit rows: Bulk Job > Submit', () => {
	const mixed = badInputsFor('submit_bulk').filter((r) =>
		r.name.startsWith('one malformed address'),
	);

	it('covers one malformed address per table entry', () => {
		expect(mixed.length).toBe(MALFORMED_ADDRESSES.length);
	});

	// Pre-flight drops the bad address and reports it; the step never fails for one bad row.
	it.each(mixed.map((row) => [row.name, row] as const))(
		'%s: one job of the valid addresses, the bad one reported, only those charged',
		async (_name, row) => {
			const emails = row.input.emails as string[];
			const [first, bad, last] = emails;
			const bulkBefore = sb.requests.filter((r) => r.path === '/v1/verify/bulk').length;
			const charged = sb.ledger().charged;
			const { output, error } = await runNode(submitParams(row.input));
			expect(error).toBeUndefined();
			expect(output).toHaveLength(1);
			const job = output![0].json;
			expect(job).toMatchObject({ total_emails: 2, part: 1, parts: 1 });
			const preflight = job.preflight as IDataObject;
			if (bad === '') {
				// An empty cell is no address at all: skipped, not reported as malformed.
				expect(preflight).toMatchObject({ received: 2, unique: 2, malformed: 0 });
			} else {
				expect(preflight).toMatchObject({ received: 3, unique: 2, malformed: 1 });
				expect(preflight.malformed_addresses).toEqual([
					expect.objectContaining({ email: bad, index: 1 }),
				]);
			}
			expect(sb.requests.filter((r) => r.path === '/v1/verify/bulk').length - bulkBefore).toBe(1);
			expect(sb.ledger().charged - charged).toBe(2);
			const jobId = String(job.job_id);
			await waitFor(() => sb.job(jobId)?.terminal === true, { what: `job ${jobId} finished` });
			expect(await resultEmails(jobId)).toEqual([first, last]);
		},
	);

	const refused = [...badInputsFor('submit_bulk'), ...badInputsFor('submit_list')].filter(
		(r) => !mixed.includes(r) && r.field === 'emails' && r.rule !== 'max_items',
	);
	it.each(refused.map((row) => [`${row.operation}: ${row.name}`, row] as const))(
		'%s: refused before any request',
		async (_name, row) => {
			await expectRefusedBeforeSending(row, submitParams(row.input));
		},
	);

	it('submit_bulk "50,001 items in one call": split into jobs of 50,000 and 1, all charged once', async () => {
		const row = rowsOf('submit_bulk', '50,001 items in one call');
		const charged = sb.ledger().charged;
		const { output, error } = await runNode(submitParams(row.input));
		expect(error).toBeUndefined();
		expect(output!.map((o) => [o.json.total_emails, o.json.part, o.json.parts])).toEqual([
			[50_000, 1, 2],
			[1, 2, 2],
		]);
		expect(sb.ledger().charged - charged).toBe(50_001);
	});

	const options = [...badInputsFor('submit_bulk'), ...badInputsFor('submit_list')].filter(
		(r) => r.field === 'name' || r.field === 'priority',
	);
	it.each(options.map((row) => [`${row.operation}: ${row.name}`, row] as const))(
		'%s: refused before any request',
		async (_name, row) => {
			await expectRefusedBeforeSending(row, submitParams(row.input));
		},
	);
});

describe('webhook_url rows: Bulk Job > Submit, option Webhook URL', () => {
	const rows = [...badInputsFor('submit_bulk'), ...badInputsFor('submit_list')].filter(
		(r) => r.field === 'webhook_url',
	);
	// Against a loopback base URL the client lets loopback receivers through for local development,
	// so those rows are only bad for a real service address.
	const loopbackReceiver = /^https?:\/\/(localhost|[^/]*\.localhost|127\.|\[::1\]|\[::ffff:127\.)/i;

	it('covers every bad URL for both submit operations', () => {
		expect(rows.length).toBe(BAD_WEBHOOK_URLS.length * 2);
	});

	it.each(
		rows
			.filter((r) => !loopbackReceiver.test(String(r.input.webhook_url)))
			.map((row) => [`${row.operation}: ${row.name}`, row] as const),
	)('%s: refused against the sandbox', async (_name, row) => {
		await expectRefusedBeforeSending(row, submitParams(row.input));
	});

	it.each(rows.map((row) => [`${row.operation}: ${row.name}`, row] as const))(
		'%s: refused with a credential for the real service',
		async (_name, row) => {
			const production = { apiKey: sb.apiKey, baseUrl: 'https://api.evf.example/api' };
			await expectRefusedBeforeSending(row, submitParams(row.input), {
				credentials: production,
				offline: true,
			});
		},
	);
});

describe('results rows: Bulk Job > Get Results', () => {
	it('missing job_id: refused before any request', async () => {
		const row = rowsOf('results', 'missing job_id');
		await expectRefusedBeforeSending(row, {
			resource: 'bulkJob',
			operation: 'getResults',
			jobId: { mode: 'id', value: row.input.job_id },
			returnAll: true,
			groups: [],
			simplify: false,
		});
	});

	it('page and per_page are not parameters: the node pages itself with in-range values (rows page 0, per_page 1001)', async () => {
		expect(propertyOf('getResults', 'page')).toBeUndefined();
		expect(propertyOf('getResults', 'perPage')).toBeUndefined();
		expect(propertyOf('getResults', 'per_page')).toBeUndefined();
		rowsOf('results', 'page 0');
		const row = rowsOf('results', 'per_page 1001');
		const emails = ['valid.r1@example.com', 'invalid.r2@example.com', 'valid.r3@example.com'];
		const jobId = await finishedJob(emails);
		const before = sb.requests.length;
		// Limit is a row count, not a page size: a Limit above 1,000 is fine and must not become per_page.
		const { output, error } = await runNode({
			resource: 'bulkJob',
			operation: 'getResults',
			jobId: { mode: 'id', value: jobId },
			returnAll: false,
			limit: row.input.per_page,
			groups: [],
			simplify: true,
		});
		expect(error).toBeUndefined();
		expect(output!.map((o) => o.json.email)).toEqual(emails);
		const reads = sb.requests.slice(before).filter((r) => r.path.endsWith('/results'));
		expect(reads.length).toBeGreaterThan(0);
		expect(reads[0].query.page).toBe('1');
		for (const read of reads) {
			const perPage = Number(read.query.per_page);
			expect(Number.isInteger(perPage) && perPage >= 1 && perPage <= 1000).toBe(true);
			expect(Number(read.query.page)).toBeGreaterThanOrEqual(1);
		}
	});

	it('per_page 0 maps to Limit 0: the Limit parameter forbids it, and an expression giving 0 sends nothing', async () => {
		rowsOf('results', 'per_page 0');
		const limit = propertyOf('getResults', 'limit');
		expect(limit?.type).toBe('number');
		expect(limit?.typeOptions?.minValue).toBeGreaterThanOrEqual(1);
		const before = sb.requests.length;
		const ledger = sb.ledger();
		const { output, error } = await runNode({
			resource: 'bulkJob',
			operation: 'getResults',
			jobId: { mode: 'id', value: 'job_any' },
			returnAll: false,
			limit: 0,
			groups: [],
			simplify: false,
		});
		// Either a clear error naming Limit or no rows; never a request.
		if (error) expect(textOf(error)).toMatch(/limit/i);
		else expect(output).toEqual([]);
		expect(sb.requests.slice(before)).toEqual([]);
		expect(sb.ledger()).toEqual(ledger);
	});

	it('per_page 2.5 maps to Limit 2.5: the Limit parameter only takes whole numbers', () => {
		rowsOf('results', 'per_page 2.5');
		const limit = propertyOf('getResults', 'limit');
		expect(limit?.typeOptions?.numberPrecision).toBe(0);
	});
});

describe('list_jobs rows: Bulk Job > Get Many', () => {
	it('offset is not a parameter and limit is a count: Limit 101 gives up to 101 jobs over pages of at most 100 (rows limit 101, offset -1)', async () => {
		expect(propertyOf('getMany', 'offset')).toBeUndefined();
		rowsOf('list_jobs', 'offset -1');
		const row = rowsOf('list_jobs', 'limit 101');
		// A job of its own to list: the test must not depend on an earlier test having made one.
		const made = await runNode({
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'list',
			emails: 'valid.listed@example.com',
			waitForCompletion: false,
			options: {},
		});
		expect(made.error).toBeUndefined();
		const before = sb.requests.length;
		const { output, error } = await runNode({
			resource: 'bulkJob',
			operation: 'getMany',
			returnAll: false,
			limit: row.input.limit,
			filters: {},
		});
		expect(error).toBeUndefined();
		expect(output!.length).toBeGreaterThan(0);
		expect(output!.length).toBeLessThanOrEqual(101);
		const lists = sb.requests.slice(before).filter((r) => r.path === '/v1/jobs');
		expect(lists.length).toBeGreaterThan(0);
		expect(lists[0].query.offset ?? '0').toBe('0');
		for (const list of lists) {
			expect(Number(list.query.limit)).toBeLessThanOrEqual(100);
			expect(Number(list.query.limit)).toBeGreaterThanOrEqual(1);
			expect(Number(list.query.offset ?? '0')).toBeGreaterThanOrEqual(0);
		}
	});

	it('limit 0: the Limit parameter forbids it, and an expression giving 0 sends nothing and outputs no job', async () => {
		const row = rowsOf('list_jobs', 'limit 0');
		expect(propertyOf('getMany', 'limit')?.typeOptions?.minValue).toBeGreaterThanOrEqual(1);
		const before = sb.requests.length;
		const { output, error } = await runNode({
			resource: 'bulkJob',
			operation: 'getMany',
			returnAll: false,
			limit: row.input.limit,
			filters: {},
		});
		if (error) expect(textOf(error)).toMatch(/limit/i);
		else expect(output).toEqual([]);
		expect(sb.requests.slice(before)).toEqual([]);
	});
});
