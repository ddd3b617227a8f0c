/**
 * A big list on a small plan, measured through n8n's own steps: a 50,000-row and a 150,000-row sheet on each plan of the
 * spec's tables (Starter, any top-up, Growth, Pro), against the sandbox answering GET /v1/account in the
 * spec's shape (plan, credits, credits_used_today; no allowance figures), run the way an n8n user runs
 * a big sheet on a small plan: an active workflow started by its trigger each day reads the same sheet
 * into Bulk Job > Submit (Addresses From: a field), which sends what fits and outputs the jobs with
 * `unsent`, `stopped_by` and `continue_after`; once the list is done, Bulk Job > Get Results for Rows
 * puts every row's answer beside its row. Between the daily runs, the tries a user makes: on the first
 * two stops the same execution again at once (a replay: nothing sent, the same `continue_after`), and
 * once a cell the unsent addresses mapped into a run that has no memory (a manual run: nothing
 * charged). Then the clock moves to the `continue_after` the node output, and the next day's run goes.
 * Once the list is done, a replay of the last run charges nothing either. The same with a 503 "new
 * jobs paused" after the first job (one size per plan, as in the client's test: 50,000 where that is
 * several jobs, else 150,000). No cell is left out.
 *
 * Asserted per cell: every address charged exactly once (the sandbox's ledger), every row's result back
 * through Get Results for Rows as a set equal to the list, the days equal ceil(rows / daily allowance)
 * (one for Pro), and the 503 cell saw exactly one pause.
 *
 * As in submit-over-days.sandbox.test.ts, the node's clock (Date.now) and the sandbox's are moved
 * together, and the node's static data is carried from run to run as n8n carries it for an active
 * workflow's trigger-started executions. e2e tier: 150,000-row flows.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import type { Sandbox } from '@evf/sandbox';
import { RESULT_COLUMNS } from '@evf/client';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { executeContext, type TestCredentials } from './support/context';
import { eventually, startFastSandbox } from '../../../test/support/sandbox';
import { matrixSizes, PLAN_MATRIX } from '../../../test/support/plan-matrix';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const VERIFICATION = RESULT_COLUMNS[RESULT_COLUMNS.length - 1];

const node = new EmailVerification();
const realNow = Date.now.bind(Date);
let offset = 0;

/** A sheet's rows as a Google Sheets node gives them; one address spelled in upper case. */
const sheetOf = (n: number, tag: string): INodeExecutionData[] =>
	Array.from({ length: n }, (_, i) => ({
		json: {
			row_number: i + 2,
			Name: `Lead ${i}`,
			Email: i === 7 ? `LEAD${i}.${tag}@Example.com` : `lead${i}.${tag}@example.com`,
		},
	}));

const submitParams = {
	resource: 'bulkJob',
	operation: 'submit',
	emailSource: 'field',
	emailField: 'Email',
	waitForCompletion: false,
	options: {},
};

async function run(
	credentials: TestCredentials,
	params: Record<string, unknown>,
	items: INodeExecutionData[],
	staticData: IDataObject,
): Promise<IDataObject[]> {
	const harness = executeContext({ params, items, credentials, staticData, mode: 'trigger' });
	const [out] = await node.execute.call(harness.context);
	return out.map((item) => item.json);
}

interface Measured {
	days: number;
	pauses: number;
	jobIds: string[];
}

async function runToDone(
	sb: Sandbox,
	credentials: TestCredentials,
	accountId: string,
	sheet: INodeExecutionData[],
	pauseArmed: boolean,
): Promise<Measured> {
	const charged = () => sb.ledger(accountId).charged;
	const posts = () =>
		sb.requests.filter((r) => r.method === 'POST' && r.path === '/v1/verify/bulk').length;
	/** Moves the node's clock and the service's to `iso`. */
	const moveTo = (iso: string) => {
		const ms = Math.max(0, Date.parse(iso) - Date.now());
		offset += ms;
		sb.advanceTime(ms);
	};
	const staticData: IDataObject = {};
	const started = Date.now();
	const measured: Measured = { days: 1, pauses: 0, jobIds: [] };
	let stops = 0;
	let mappedOnce = false;
	let previous: unknown;
	for (let day = 0; ; day++) {
		expect(day).toBeLessThan(40);
		const out = await run(credentials, submitParams, sheet, staticData);
		const made = out.map((o) => o.job_id).filter((id): id is string => typeof id === 'string');
		// A run after a stop starts at the time the node named, so it sends something, unless a pause
		// is in the way: one that meets it before its first job, or one that named the time. Where the
		// allowance is not shown (a top-up), a pause can stop a run before the allowance would have, and
		// its hour then finds the allowance spent: that run sends nothing and names the next day.
		if (out[0].stopped_by !== 'paused' && previous !== 'paused') {
			expect(made.length).toBeGreaterThan(0);
		}
		measured.jobIds.push(...made);
		const [first] = out;
		if ((first.unsent as string[]).length === 0) break;

		expect(out.every((o) => o.continue_after === first.continue_after)).toBe(true);
		expect(first.unsent_count).toBe((first.unsent as string[]).length);
		const after = String(first.continue_after);
		expect(new Date(Date.parse(after)).toISOString()).toBe(after);
		expect(Date.parse(after)).toBeGreaterThan(Date.now());
		expect(first.note).toEqual(expect.any(String));
		expect(['allowance', 'paused']).toContain(first.stopped_by);

		if (++stops <= 2) {
			const before = { charged: charged(), posts: posts() };
			// The same execution again at once: the node's memory sends nothing, and names the same time.
			const replay = await run(credentials, submitParams, sheet, staticData);
			expect(posts()).toBe(before.posts);
			expect(replay).toEqual([
				expect.objectContaining({
					job_id: null,
					status: 'not_sent_yet',
					unsent_count: first.unsent_count,
					continue_after: after,
				}),
			]);
			// The unsent addresses mapped into a run without memory (a manual run), once a cell: nothing
			// fits, nothing is charged, and it too says when they can go. With a pause armed, at the stop
			// the pause made: before that, this run's probe would be the one to meet the pause.
			const pauseMet = measured.pauses > 0 || first.stopped_by === 'paused';
			if (!mappedOnce && (!pauseArmed || pauseMet)) {
				await mappedRun(first);
				mappedOnce = true;
			}
			expect(charged()).toBe(before.charged);
		}
		if (first.stopped_by === 'paused') {
			// The pause's Retry-After (an hour), not the allowance's next day.
			expect(Date.parse(after) - Date.now()).toBeLessThanOrEqual(HOUR + 1000);
		}
		if (first.stopped_by === 'allowance') measured.days += 1;
		else measured.pauses += 1;
		previous = first.stopped_by;
		moveTo(after);
	}
	async function mappedRun(first: IDataObject): Promise<void> {
		const mapped = await run(
			credentials,
			{
				...submitParams,
				emailSource: 'list',
				emails: first.unsent,
				options: { rememberLists: false },
			},
			[{ json: {} }],
			{},
		);
		// Without memory the client asks the service with one free POST when the account's figures
		// say nothing fits; during a pause that POST meets the pause first, so the stop may read
		// 'paused' (an hour) where the allowance holds till later: the run at that hour says so.
		expect(mapped).toHaveLength(1);
		expect(mapped[0]).toMatchObject({
			job_id: null,
			status: 'not_sent_yet',
			unsent_count: first.unsent_count,
		});
		expect(['allowance', 'paused']).toContain(mapped[0].stopped_by);
		expect(Date.parse(String(mapped[0].continue_after))).toBeGreaterThan(Date.now());
	}
	// A replay of the run that finished the list charges nothing, whether it went whole in one run or
	// over several.
	const before = posts();
	const done = await run(credentials, submitParams, sheet, staticData);
	expect(posts()).toBe(before);
	expect(done).toEqual([
		expect.objectContaining({ job_id: null, status: 'already_sent', sent_before: sheet.length }),
	]);
	// The calendar agrees with the count of allowance stops: the last run began within that many days.
	expect(Date.now() - started).toBeLessThan(measured.days * DAY);
	return measured;
}

describe.each([false, true])(
	'a big sheet on a small plan through Submit and Get Results for Rows (503 after the first job: %s)',
	(pause) => {
		let sb: Sandbox;
		beforeEach(async () => {
			// Spec waits at their real length (timeScale 1): the sandbox scales a 503's Retry-After by
			// timeScale, and a pause of 3.6 real seconds would be retried inside the run by the client, not
			// met as a stop. The clock is moved instead, and jobs run at 200,000 rows a second.
			sb = await startFastSandbox({ timeScale: 1, rowsPerSecond: 200_000 });
			offset = 0;
			jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
		});
		afterEach(async () => {
			jest.restoreAllMocks();
			await sb.close();
		});

		describe.each(PLAN_MATRIX)('%s', (name, seed, perDay) => {
			const sizes = matrixSizes(perDay, pause);
			test.each(sizes)(
				'%i rows: each address charged once, every row answered beside itself, days = the arithmetic',
				async (size) => {
					const acct = sb.addAccount({ credits: 1_000_000, ...seed });
					if (pause)
						sb.faults.pauseNewJobs({
							retryAfterSeconds: HOUR / 1000,
							afterJobs: 1,
							liftsAtRetryAfter: true,
						});
					const credentials = { apiKey: acct.apiKey, baseUrl: sb.baseUrl };
					const sheet = sheetOf(size, `${name.length}${pause ? 'p' : ''}`);
					const measured = await runToDone(sb, credentials, acct.accountId, sheet, pause);

					expect(measured.days).toBe(perDay === null ? 1 : Math.ceil(size / perDay));
					// A list sent whole in its first job has no second job for the pause to stop.
					const jobs = Math.ceil(size / Math.min(perDay ?? 50_000, 50_000));
					expect(measured.pauses).toBe(pause && jobs > 1 ? 1 : 0);
					expect(sb.ledger(acct.accountId).charged).toBe(size);

					// Jobs run in real time at rowsPerSecond: the last one may still be running.
					await eventually(() => measured.jobIds.every((id) => sb.job(id)?.terminal), 60_000);
					const rows = await run(
						credentials,
						{
							resource: 'bulkJob',
							operation: 'getResultsForRows',
							jobIds: measured.jobIds,
							emailField: 'Email',
							options: {},
						},
						sheet,
						{},
					);
					expect(rows).toHaveLength(size);
					const unanswered = rows.filter((row) => row[VERIFICATION] !== 'verified');
					expect(unanswered.slice(0, 3)).toEqual([]);
					// Beside its own row: each output row is its input row with the answer added.
					expect(rows.every((row, i) => row.row_number === sheet[i].json.row_number)).toBe(true);
					const answered = new Set(rows.map((row) => String(row.Email).toLowerCase()));
					expect(answered).toEqual(
						new Set(sheet.map((row) => String(row.json.Email).toLowerCase())),
					);
					expect(rows.every((row) => typeof row.Category === 'string' && row.Category)).toBe(true);
				},
				300_000,
			);
		});
	},
);
