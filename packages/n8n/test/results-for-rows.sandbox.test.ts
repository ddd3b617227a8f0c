/**
 * Bulk Job > Get Results for Rows against the sandbox: a sheet's rows go through Submit, then each row
 * comes out with the five result columns beside its own fields, paired to itself, by the client's
 * write-back rule; settled rows pass through unchanged; unsent rows say "Not sent yet" with the time.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { categorize } from '@evf/client';
import { resultRow, startSandbox, type Sandbox } from '@evf/sandbox';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { executeContext, type TestCredentials } from './support/context';
import { waitFor } from './support/timing';

const node = new EmailVerification();
let sandbox: Sandbox;
let credentials: TestCredentials;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 100_000 });
	credentials = { apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl };
});
afterAll(async () => {
	await sandbox.close();
});

async function run(params: Record<string, unknown>, items: INodeExecutionData[]) {
	const harness = executeContext({ params, items, credentials });
	const [out] = await node.execute.call(harness.context);
	return out;
}

const sheet: IDataObject[] = [
	{ row_number: 2, Email: 'valid.ann@example.com', Name: 'Ann' },
	{ row_number: 3, Email: 'VALID.ANN@example.com', Name: 'Ann again' },
	{ row_number: 4, Email: 'broken@', Name: 'Broken' },
	{ row_number: 5, Email: '', Name: 'Empty' },
	{ row_number: 6, Email: 'Bo <info@example.com>', Name: 'Bo' },
	{ row_number: 7, Email: 'invalid.cy@example.com', Name: 'Cy' },
	{
		row_number: 8,
		Email: 'done@example.com',
		Name: 'Done',
		Category: 'Valid',
		Group: 'safe_to_send',
		'Safe to Send': 'TRUE',
		Reason: 'earlier',
		Verification: 'verified',
	},
];

describe('Bulk Job > Get Results for Rows', () => {
	it('puts each row its answer, its duplicate the same, and says why the others have none', async () => {
		const items = sheet.map((json) => ({ json }));
		const open = items.filter((item) => item.json.Verification === undefined);
		const [submitted] = await run(
			{
				resource: 'bulkJob',
				operation: 'submit',
				emailSource: 'field',
				emailField: 'Email',
				waitForCompletion: false,
				options: { skipAnswered: true },
			},
			// The settled row is left out by Submit's "Skip Rows Already Answered".
			[...open.slice(0, 5), items[6]],
		);
		expect(submitted.json).toMatchObject({ total_emails: 2, credits_used: 2 });
		const jobId = String(submitted.json.job_id);
		await waitFor(() => sandbox.job(jobId)?.terminal === true, { what: `job ${jobId} finished` });
		const out = await run(
			{
				resource: 'bulkJob',
				operation: 'getResultsForRows',
				jobIds: [jobId, null],
				emailField: 'Email',
				options: {
					// The last open row stands for one a stopped list left unsent.
					unsent: ['invalid.cy@example.com'],
					continueAfter: '2026-01-16T09:30:01.000Z',
				},
			},
			items,
		);
		expect(out.map((item) => item.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		const answer = (email: string) => categorize(resultRow(email).details);
		expect(out.map((item) => item.json.Verification)).toEqual([
			'verified',
			'duplicate',
			'skipped',
			'skipped',
			'verified',
			'not_verified',
			'verified',
		]);
		expect(out[0].json).toMatchObject({
			...sheet[0],
			Category: answer('valid.ann@example.com').category,
			Group: 'safe_to_send',
			'Safe to Send': 'TRUE',
		});
		expect(out[1].json).toMatchObject({ Category: out[0].json.Category, Name: 'Ann again' });
		expect(out[2].json.Reason).toMatch(/^Not sent \(not charged\): malformed address/);
		expect(out[4].json).toMatchObject({ Category: answer('info@example.com').category });
		expect(out[5].json.Reason).toMatch(/^Not sent yet: .*after 2026-01-16T09:30:01.000Z$/);
		// A row settled by an earlier run passes through unchanged.
		expect(out[6].json).toEqual(sheet[6]);
	});

	it('with no job at all, every open row says so and nothing is read', async () => {
		const before = sandbox.requests.length;
		const out = await run(
			{ resource: 'bulkJob', operation: 'getResultsForRows', jobIds: '', emailField: 'Email' },
			[{ json: { Email: 'valid.z@example.com' } }],
		);
		expect(sandbox.requests.length).toBe(before);
		expect(out[0].json).toMatchObject({
			Verification: 'not_verified',
			Reason: 'Not verified: no job was given for this row',
		});
	});
});
