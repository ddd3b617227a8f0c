/**
 * A sheet with Unknown rows, run on a schedule: Submit ("Skip Rows Already Answered") and Get Results
 * for Rows send an Unknown row again once its verify_again_after time has come (6 hours, then 24), not
 * before, and not past the cap; definite rows are never sent again. The sandbox answers every
 * `unknown.*` address Unknown, so the cap is reached. The node's clock (Date.now) and the sandbox's
 * move together; static data is carried from run to run as n8n does for an active workflow.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { executeContext, type TestCredentials } from './support/context';
import { waitFor } from './support/timing';

const node = new EmailVerification();
const HOUR = 3600_000;
let sandbox: Sandbox;
let credentials: TestCredentials;
let offset = 0;
const realNow = Date.now.bind(Date);

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 100_000 });
	credentials = { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl };
	jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
});
afterAll(async () => {
	jest.restoreAllMocks();
	await sandbox.close();
});

function wait(ms: number): void {
	offset += ms;
	sandbox.advanceTime(ms);
}

const staticData: IDataObject = {};
async function run(params: Record<string, unknown>, items: INodeExecutionData[]) {
	const harness = executeContext({ params, items, credentials, staticData, mode: 'trigger' });
	const [out] = await node.execute.call(harness.context);
	return out;
}

/** What each bulk POST sent, in order. */
const sentLists = () =>
	sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/v1/verify/bulk').length;

/** One scheduled run of the whole-sheet flow: Submit, then Get Results for Rows; the sheet updated. */
async function scheduledRun(sheet: IDataObject[]): Promise<{ sheet: IDataObject[]; sent: number }> {
	const items = sheet.map((json) => ({ json }));
	const [submitted] = await run(
		{
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'field',
			emailField: 'Email',
			waitForCompletion: false,
			options: { skipAnswered: true },
		},
		items,
	);
	const jobId = submitted.json.job_id;
	if (typeof jobId !== 'string') return { sheet, sent: 0 };
	await waitFor(() => sandbox.job(jobId)?.terminal === true, { what: `job ${jobId} finished` });
	const out = await run(
		{
			resource: 'bulkJob',
			operation: 'getResultsForRows',
			jobIds: [jobId],
			emailField: 'Email',
			options: {},
		},
		items,
	);
	return { sheet: out.map((item) => item.json), sent: Number(submitted.json.total_emails) };
}

test('Unknown rows go again after 6 hours, then 24, then stay Unknown; definite rows never', async () => {
	let sheet: IDataObject[] = [
		{ Email: 'valid.ann@example.com' },
		{ Email: 'invalid.bo@example.com' },
		{ Email: 'unknown.cy@example.com' },
		{ Email: 'unknown.di@example.com' },
	];
	const posts0 = sentLists();
	({ sheet } = await scheduledRun(sheet));
	expect(sheet.map((r) => r.verify_attempts)).toEqual([1, 1, 1, 1]);
	expect(sheet[0].verify_again_after).toBeNull();
	expect(sheet[1].verify_again_after).toBeNull();
	const firstAfter = Date.parse(String(sheet[2].verify_again_after));
	expect(firstAfter - Date.now()).toBeGreaterThan(5.9 * HOUR);

	// Before the time: nothing sent, nothing charged.
	wait(5 * HOUR);
	let runOut = await scheduledRun(sheet);
	expect(runOut.sent).toBe(0);
	expect(sentLists()).toBe(posts0 + 1);

	// After 6 hours: only the two Unknown rows, once.
	wait(1.5 * HOUR);
	runOut = await scheduledRun(sheet);
	expect(runOut.sent).toBe(2);
	sheet = runOut.sheet;
	expect(sheet.map((r) => r.verify_attempts)).toEqual([1, 1, 2, 2]);
	expect(sentLists()).toBe(posts0 + 2);
	// Again at once (a replay): nothing more.
	expect((await scheduledRun(sheet)).sent).toBe(0);

	// Not before 24 hours more; then once more, and the cap is reached.
	wait(20 * HOUR);
	expect((await scheduledRun(sheet)).sent).toBe(0);
	wait(5 * HOUR);
	runOut = await scheduledRun(sheet);
	expect(runOut.sent).toBe(2);
	sheet = runOut.sheet;
	expect(sheet[2]).toMatchObject({
		verify_attempts: 3,
		verify_again_after: null,
		verify_again_reason: 'Unknown after being verified 3 times: not tried again.',
		Verification: 'verified',
	});
	expect(sentLists()).toBe(posts0 + 3);

	// Long after: nothing is ever sent again.
	wait(1000 * HOUR);
	expect((await scheduledRun(sheet)).sent).toBe(0);
	expect(sentLists()).toBe(posts0 + 3);
});

test("Verify's items say when an Unknown answer can be tried again, counting on from the item", async () => {
	const out = await run(
		{ resource: 'email', operation: 'verify', email: 'unknown.eve@example.com', options: {} },
		[{ json: { Email: 'unknown.eve@example.com' } }],
	);
	expect(out[0].json).toMatchObject({ verify_attempts: 1, verify_again_reason: null });
	expect(Date.parse(String(out[0].json.verify_again_after)) - Date.now()).toBeGreaterThan(
		5.9 * HOUR,
	);
	const valid = await run(
		{ resource: 'email', operation: 'verify', email: 'valid.fay@example.com', options: {} },
		[{ json: { verify_attempts: 2 } }],
	);
	expect(valid[0].json).toMatchObject({ verify_again_after: null, verify_attempts: 3 });
});
