/**
 * Bulk Job > Submit on a small plan, as the spec shapes the account (GET /v1/account gives plan,
 * credits and credits_used_today, nothing about allowances): a 12,000-row sheet on Starter (10,000 a
 * day) sends 10,000 and outputs the 2,000 unsent with the time they can go; a replay at once charges
 * nothing; the next day's rerun of the same sheet sends only the 2,000. Every address charged once.
 * The node's clock (Date.now) and the sandbox's are moved together; the node's static data is carried
 * from run to run as n8n carries it for an active workflow.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { startSandbox, type AccountCredentials, type Sandbox } from '@evf/sandbox';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { executeContext, type TestCredentials } from './support/context';

const node = new EmailVerification();
let sandbox: Sandbox;
let starter: AccountCredentials;
let credentials: TestCredentials;
let offset = 0;
const realNow = Date.now.bind(Date);

beforeAll(async () => {
	// The sandbox keeps its own reference to the real clock; it is moved with advanceTime.
	sandbox = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 200_000 });
	starter = sandbox.addAccount({ plan: 'starter', credits: 100_000 });
	credentials = { apiKey: starter.apiKey, baseUrl: sandbox.baseUrl };
	jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
});
afterAll(async () => {
	jest.restoreAllMocks();
	await sandbox.close();
});

/** Moves the node's clock and the service's to `iso`. */
function moveTo(iso: string): void {
	const ms = Math.max(0, Date.parse(iso) - Date.now());
	offset += ms;
	sandbox.advanceTime(ms);
}

const rows: INodeExecutionData[] = Array.from({ length: 12_000 }, (_, i) => ({
	json: { Name: `Lead ${i}`, Email: `lead${i}@company${i % 89}.com` },
}));
const sheetParams = {
	resource: 'bulkJob',
	operation: 'submit',
	emailSource: 'field',
	emailField: 'Email',
	waitForCompletion: false,
	options: {},
};

async function run(
	params: Record<string, unknown>,
	items: INodeExecutionData[],
	staticData: IDataObject,
): Promise<IDataObject[]> {
	const harness = executeContext({ params, items, credentials, staticData, mode: 'trigger' });
	const [out] = await node.execute.call(harness.context);
	return out.map((item) => item.json);
}

const posts = () =>
	sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/v1/verify/bulk').length;
const charged = () => sandbox.ledger(starter.accountId).charged;

describe('a 12,000-row sheet on Starter (10,000 a day), the account in the spec shape', () => {
	// The steps are one user's days in order (each needs the one before), so they run as one test:
	// jest --randomize shuffles the tests of a file, never the steps inside one.
	const steps: [name: string, run: () => Promise<void>][] = [];
	const step = (name: string, fn: () => Promise<void>) => steps.push([name, fn]);
	const staticData: IDataObject = {};
	let first: IDataObject[];

	step(
		'day 1 sends 10,000 in one job and outputs the 2,000 unsent with an ISO time a day on',
		async () => {
			first = await run(sheetParams, rows, staticData);
			expect(first).toHaveLength(1);
			const [job] = first;
			expect(job).toMatchObject({
				total_emails: 10_000,
				part: 1,
				parts: 1,
				unsent_count: 2_000,
				stopped_by: 'allowance',
				left_today: 0,
			});
			expect(job.unsent).toEqual(rows.slice(10_000).map((r) => r.json.Email));
			const after = Date.parse(String(job.continue_after));
			expect(new Date(after).toISOString()).toBe(job.continue_after);
			expect(after - Date.now()).toBeGreaterThan(23 * 3600_000);
			expect(job.note).toMatch(/all its keys share/);
			expect(charged()).toBe(10_000);
		},
	);

	step('a replay at once sends and charges nothing, and says when the rest can go', async () => {
		const before = posts();
		const again = await run(sheetParams, rows, staticData);
		expect(posts()).toBe(before);
		expect(again).toEqual([
			expect.objectContaining({
				job_id: null,
				status: 'not_sent_yet',
				unsent_count: 2_000,
				continue_after: first[0].continue_after,
				sent_before: 10_000,
				earlier_jobs: [first[0].job_id],
			}),
		]);
		expect(charged()).toBe(10_000);
	});

	step(
		'the unsent addresses mapped into a run with no memory (a manual run) are refused free by the allowance',
		async () => {
			const out = await run(
				{
					...sheetParams,
					emailSource: 'list',
					emails: first[0].unsent,
					options: { rememberLists: false },
				},
				[{ json: {} }],
				{},
			);
			expect(out).toEqual([
				expect.objectContaining({ job_id: null, status: 'not_sent_yet', unsent_count: 2_000 }),
			]);
			expect(Date.parse(String(out[0].continue_after))).toBeGreaterThan(Date.now());
			expect(charged()).toBe(10_000);
		},
	);

	step(
		'with "Fail" chosen, the stop is an error that names the unsent addresses, nothing charged',
		async () => {
			const failing = run(
				{ ...sheetParams, options: { onStop: 'fail', rememberLists: false } },
				rows.slice(10_000, 10_010),
				{},
			);
			await expect(failing).rejects.toThrow(/allowance/i);
			expect(charged()).toBe(10_000);
		},
	);

	step('the next day the same sheet sends only the 2,000: every address charged once', async () => {
		moveTo(String(first[0].continue_after));
		const out = await run(sheetParams, rows, staticData);
		expect(out).toHaveLength(1);
		expect(out[0]).toMatchObject({
			total_emails: 2_000,
			unsent: [],
			sent_before: 10_000,
			earlier_jobs: [first[0].job_id],
		});
		expect(charged()).toBe(12_000);
		const jobs = [String(first[0].job_id), String(out[0].job_id)];
		expect(jobs.reduce((n, id) => n + (sandbox.job(id)?.total_emails ?? 0), 0)).toBe(12_000);
	});

	step('a replay of that run charges nothing: the list is done', async () => {
		const before = posts();
		const again = await run(sheetParams, rows, staticData);
		expect(posts()).toBe(before);
		expect(again[0]).toMatchObject({ job_id: null, status: 'already_sent', sent_before: 12_000 });
		expect(charged()).toBe(12_000);
	});

	it('day 1, the replays, day 2 and a last replay, in order: each address charged once', async () => {
		// A failure's stack points into the step that failed.
		for (const [, fn] of steps) await fn();
	}, 120_000);
});
