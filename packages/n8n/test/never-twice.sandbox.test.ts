/**
 * The node as an n8n user meets it, through the execute-context stand-in against the sandbox: each of
 * n8n's retries after a failure, manual runs, a schedule over a finished list and a finished sheet. The
 * cases come from tables; each cell asserts from the sandbox's ledger that no address is charged twice,
 * and that every item ends answered or "not sent, and when".
 *
 * What each retry does is n8n's own code (n8n 2.8.4):
 * - Retry On Fail: the loop in packages/core/src/execution-engine/workflow-execute.ts re-runs the node
 *   with the same input and the same static data object, maxTries = min(5, max(2, maxTries || 3)) times,
 *   waitBetweenTries = min(5000, max(0, waitBetweenTries || 1000)) ms apart.
 * - Static data: the workflowExecuteAfter hook in packages/cli/src/execution-lifecycle/
 *   execution-lifecycle-hooks.ts saves it after every execution whose mode is not 'manual', failed or not.
 * - Retry of a failed execution: `retry` in packages/cli/src/executions/execution.service.ts starts mode
 *   'retry' from the failed node; with the original workflow its static data is the one stored with the
 *   failed execution (as it was when that one started), with the saved workflow the one saved after it.
 * - From the start: the next run of the workflow (its schedule or trigger) with the saved static data.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { RESULT_COLUMNS } from '@evf/client';
import {
	startSandbox,
	type AccountCredentials,
	type FailNextSpec,
	type Sandbox,
} from '@evf/sandbox';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { executeContext, type TestCredentials } from './support/context';

const node = new EmailVerification();
let sandbox: Sandbox;
let offset = 0;
const realNow = Date.now.bind(Date);
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 200_000 });
	jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
});
afterAll(async () => {
	jest.restoreAllMocks();
	await sandbox.close();
});

/** Moves the node's clock and the service's together. */
function advance(ms: number): void {
	offset += ms;
	sandbox.advanceTime(ms);
}

type Mode = 'trigger' | 'manual' | 'retry';
/** One execution of the node: its output, or what it threw. */
type Execute = (mode: Mode, staticData: IDataObject) => Promise<INodeExecutionData[]>;

async function settle(run: Promise<INodeExecutionData[]>): Promise<INodeExecutionData[] | Error> {
	return await run.catch((error: unknown) => error as Error);
}

/** n8n's Retry On Fail with its default tries: the same input and static data object, 1 s apart. */
async function retryOnFail(
	execute: Execute,
	mode: Mode,
	staticData: IDataObject,
): Promise<INodeExecutionData[] | Error> {
	let last: INodeExecutionData[] | Error = new Error('not run');
	for (let attempt = 0; attempt < 3; attempt++) {
		if (attempt > 0) advance(1000);
		last = await settle(execute(mode, staticData));
		if (!(last instanceof Error)) return last;
	}
	return last;
}

interface Retry {
	name: string;
	/** The first execution (which meets the failure), then what n8n runs after it; the last result. */
	run: (execute: Execute) => Promise<INodeExecutionData[] | Error>;
	/** n8n keeps no memory after it (a manual execution): the list's own rule is the service check. */
	manual?: boolean;
}

const retries: Retry[] = [
	{
		name: 'Retry On Fail (3 tries)',
		run: (execute) => retryOnFail(execute, 'trigger', {}),
	},
	{
		name: 'Retry On Fail in a manual execution',
		manual: true,
		run: (execute) => retryOnFail(execute, 'manual', {}),
	},
	{
		name: 'the failed execution retried with the currently saved workflow',
		run: async (execute) => {
			const staticData: IDataObject = {};
			await settle(execute('trigger', staticData));
			advance(MINUTE);
			return await settle(execute('retry', structuredClone(staticData)));
		},
	},
	{
		name: 'the failed execution retried with the original workflow',
		run: async (execute) => {
			const before: IDataObject = {};
			await settle(execute('trigger', structuredClone(before)));
			advance(MINUTE);
			return await settle(execute('retry', structuredClone(before)));
		},
	},
	{
		name: 'the workflow run again from the start',
		run: async (execute) => {
			const staticData: IDataObject = {};
			await settle(execute('trigger', staticData));
			advance(MINUTE);
			return await settle(execute('trigger', staticData));
		},
	},
	{
		name: 'a manual execution run again',
		manual: true,
		run: async (execute) => {
			await settle(execute('manual', {}));
			advance(MINUTE);
			return await settle(execute('manual', {}));
		},
	},
];

interface Failure {
	name: string;
	spec: Omit<FailNextSpec, 'path' | 'method'>;
	/** The service did the work (charged) before the answer was lost. */
	charged: boolean;
}

const failures: Failure[] = [
	{ name: 'a 500 after the charge', spec: { status: 500, when: 'after' }, charged: true },
	{ name: 'a 502 after the charge', spec: { status: 502, when: 'after' }, charged: true },
	{ name: "a gateway's 503 after the charge", spec: { status: 503, when: 'after' }, charged: true },
	{ name: 'a lost answer', spec: { drop: 'before-response', when: 'after' }, charged: true },
	{
		name: 'a connection dropped before it arrived',
		spec: { drop: 'before-response', when: 'before' },
		charged: false,
	},
];

function account(): { acct: AccountCredentials; credentials: TestCredentials } {
	const acct = sandbox.addAccount({ plan: 'pro', credits: 100_000 });
	return { acct, credentials: { apiKey: acct.apiKey, baseUrl: sandbox.baseUrl } };
}

/** A domain label from the account id (ids hold underscores, which a domain may not). */
const tag = (acct: AccountCredentials) => acct.accountId.replace(/[^a-z0-9]/gi, '-');

const charged = (acct: AccountCredentials) => sandbox.ledger(acct.accountId).charged;

/** Statuses of an item that says "not sent, and when" or "sent before": never a silent gap. */
const HELD = ['already_sent', 'in_doubt', 'possibly_sent_before', 'not_sent_yet', 'being_sent'];

describe('Bulk Job > Submit: a failure after the request left, then each of n8n retries', () => {
	describe.each(failures)('$name', (failure) => {
		it.each(retries)('then $name: every address charged at most once', async (retry) => {
			const { acct, credentials } = account();
			const rows = Array.from({ length: 5 }, (_, i) => ({
				json: { Email: `valid.r${i}@retry-${tag(acct)}.example.com` },
			}));
			let armed = false;
			const execute: Execute = async (mode, staticData) => {
				if (!armed) {
					armed = true;
					sandbox.faults.failNext({ path: '/v1/verify/bulk', method: 'POST', ...failure.spec });
				}
				const harness = executeContext({
					params: {
						resource: 'bulkJob',
						operation: 'submit',
						emailSource: 'field',
						emailField: 'Email',
						waitForCompletion: false,
						options: {},
					},
					items: rows,
					credentials,
					staticData,
					mode,
				});
				return (await node.execute.call(harness.context))[0];
			};
			const last = await retry.run(execute);
			expect(charged(acct)).toBeLessThanOrEqual(rows.length);
			if (failure.charged) expect(charged(acct)).toBe(rows.length);
			expect(last).not.toBeInstanceOf(Error);
			const [item] = last as INodeExecutionData[];
			// Sent (a job), or held with the reason and, where a time decides, the time.
			if (item.json.job_id === null) {
				expect(HELD).toContain(item.json.status);
				if (item.json.status === 'in_doubt')
					expect(item.json.continue_after).toEqual(expect.any(String));
			}
			expect(item.pairedItem).toEqual(rows.map((_, i) => ({ item: i })));
		});
	});
});

describe('Email > Verify: one item answered with a failure after its charge, then each of n8n retries', () => {
	describe.each(failures.filter((f) => f.charged))('$name', (failure) => {
		it.each(retries)('then $name: every address charged at most once', async (retry) => {
			const { acct, credentials } = account();
			const cells = Array.from(
				{ length: 5 },
				(_, i) => `valid.v${i}@verify-${tag(acct)}.example.com`,
			);
			// One workflow: its executions share the process (n8n's regular mode), not the static data.
			const workflowId = `wf-${tag(acct)}`;
			let armed = false;
			const execute: Execute = async (mode, staticData) => {
				if (!armed) {
					armed = true;
					sandbox.faults.failNext({ path: '/v1/verify/single', method: 'POST', ...failure.spec });
				}
				const harness = executeContext({
					params: (name, i) =>
						({ resource: 'email', operation: 'verify', email: cells[i], options: {} })[name],
					items: cells.map((email) => ({ json: { email } })),
					credentials,
					staticData,
					mode,
					workflowId,
				});
				return (await node.execute.call(harness.context))[0];
			};
			const last = await retry.run(execute);
			expect(charged(acct)).toBeLessThanOrEqual(cells.length);
			expect(last).not.toBeInstanceOf(Error);
			const out = last as INodeExecutionData[];
			expect(out.map((o) => o.pairedItem)).toEqual(cells.map((_, item) => ({ item })));
			for (const item of out) {
				// Answered now or earlier, or in doubt (sent once, never resent).
				expect(item.json.category !== undefined || item.json.status === 'in_doubt').toBe(true);
			}
			expect(out.filter((o) => o.json.status === 'in_doubt')).toHaveLength(1);
		});
	});
});

describe('manual runs of Submit: n8n keeps no static data for them', () => {
	const rows = (tag: string) =>
		Array.from({ length: 300 }, (_, i) => ({ json: { Email: `valid.m${i}@${tag}.example.com` } }));
	const params = (options: IDataObject = {}) => ({
		resource: 'bulkJob',
		operation: 'submit',
		emailSource: 'field',
		emailField: 'Email',
		waitForCompletion: false,
		options,
	});
	const manualRun = async (
		credentials: TestCredentials,
		items: INodeExecutionData[],
		options?: IDataObject,
	) => {
		const harness = executeContext({ params: params(options), items, credentials, mode: 'manual' });
		return (await node.execute.call(harness.context))[0][0].json;
	};

	it.each([
		{ name: 'as set by default', options: {}, expected: 300, second: 'possibly_sent_before' },
		{
			name: 'with Send Again in Manual or Retried Runs',
			options: { sendAgain: true },
			expected: 600,
			second: 'queued',
		},
	])(
		'two manual runs of 300 rows, $name: $expected charged, and each run says what and why',
		async (row) => {
			const { acct, credentials } = account();
			const items = rows(tag(acct));
			const first = await manualRun(credentials, items, row.options);
			expect(first).toMatchObject({ credits_used_total: 300, memory_kept: false });
			expect(String(first.memory_note)).toMatch(/manual executions/);
			expect(String(first.note)).toMatch(/could charge these 300 addresses again/);
			advance(MINUTE);
			const second = await manualRun(credentials, items, row.options);
			expect(second.status).toBe(row.second);
			if (row.second === 'possibly_sent_before') {
				expect((second.matching_jobs as IDataObject[])[0].job_id).toBe(first.job_id);
				expect(String(second.note)).toMatch(/Nothing sent or charged/);
			} else {
				expect(second.memory_kept).toBe(false);
			}
			expect(charged(acct)).toBe(row.expected);
		},
	);
});

describe('a daily schedule over a list that finished', () => {
	it.each([
		{ forgetFinishedDays: 0, sentOn: [1] },
		// Finished on day 1, forgotten once 3 days have passed: sent on day 4, and again 3 days on.
		{ forgetFinishedDays: 3, sentOn: [1, 4, 7] },
	])(
		'never restarts it (forget after $forgetFinishedDays days: sent on days $sentOn)',
		async (row) => {
			const { acct, credentials } = account();
			const items = Array.from({ length: 50 }, (_, i) => ({
				json: { Email: `valid.s${i}@schedule-${tag(acct)}.example.com` },
			}));
			const staticData: IDataObject = {};
			const statuses: unknown[] = [];
			const notes: unknown[] = [];
			for (let day = 1; day <= 8; day++) {
				const harness = executeContext({
					params: {
						resource: 'bulkJob',
						operation: 'submit',
						emailSource: 'field',
						emailField: 'Email',
						waitForCompletion: false,
						options: row.forgetFinishedDays ? { forgetFinishedDays: row.forgetFinishedDays } : {},
					},
					items,
					credentials,
					staticData,
					mode: 'trigger',
				});
				const [[item]] = await node.execute.call(harness.context);
				statuses.push(item.json.status);
				notes.push(item.json.note);
				advance(DAY);
			}
			const sentOn = statuses.flatMap((s, i) => (s === 'already_sent' ? [] : [i + 1]));
			// The output says how long the finished list stays remembered.
			expect(String(notes[1])).toMatch(
				row.forgetFinishedDays
					? /forgotten after .* \(the period set\)/
					: /while this list keeps being given/,
			);
			expect(sentOn).toEqual(row.sentOn);
			expect(charged(acct)).toBe(50 * sentOn.length);
		},
	);
});

describe('a finished sheet with Skip Rows Already Answered', () => {
	it('is a no-op output, not "holds no valid email address"', async () => {
		const { acct, credentials } = account();
		const verification = RESULT_COLUMNS[RESULT_COLUMNS.length - 1];
		const items = ['verified', 'duplicate', 'skipped'].map((state, i) => ({
			json: { Email: `valid.f${i}@example.com`, [verification]: state },
		}));
		const posts = sandbox.requests.length;
		const harness = executeContext({
			params: {
				resource: 'bulkJob',
				operation: 'submit',
				emailSource: 'field',
				emailField: 'Email',
				waitForCompletion: false,
				options: { skipAnswered: true },
			},
			items,
			credentials,
			mode: 'trigger',
		});
		const [[item, ...rest]] = await node.execute.call(harness.context);
		expect(rest).toHaveLength(0);
		expect(item.json).toMatchObject({
			status: 'all_rows_answered',
			job_id: null,
			credits_used_total: 0,
		});
		expect(item.pairedItem).toEqual(items.map((_, i) => ({ item: i })));
		expect(sandbox.requests.slice(posts).filter((r) => r.method === 'POST')).toHaveLength(0);
		expect(charged(acct)).toBe(0);
	});
});
