/**
 * Bulk Job > Submit stopped part way, on contract fixtures (nock): a 503 after the first job is an
 * output (the job made, the unsent addresses, why, and when they can go), remembered in the node's
 * static data so a replay at once sends nothing; a list that can never fit is an input error in the
 * client's words, never a retry-later one. The same against the sandbox: submit-over-days.sandbox.test.ts.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- test code, never packed: files ships dist only; the key is a made-up one nock checks */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { AllowanceExceededError } from '@evf/client';
import { replyWithFixture, useNock } from '../../../test/support/nock';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { toNodeError } from '../nodes/EmailVerification/helpers/errors';
import { executeContext, type TestCredentials } from './support/context';

const ORIGIN = 'https://api.evf.test';
const credentials: TestCredentials = {
	apiKey: 'evf_n8n_unit_key_4b9d21',
	baseUrl: `${ORIGIN}/api`,
};
const node = new EmailVerification();

useNock();

const api = () => nock(`${ORIGIN}/api`, { reqheaders: { 'x-api-key': credentials.apiKey } });

async function run(params: Record<string, unknown>, staticData: IDataObject) {
	const harness = executeContext({ params, credentials, staticData, mode: 'trigger' });
	const [out] = await node.execute.call(harness.context);
	return out;
}

/** 50,003 addresses: two jobs on a plan with no allowance (Pro), 50,000 then 3. */
const emails = Array.from({ length: 50_003 }, (_, i) => `lead${i}@acme-corp.com`);
const params = {
	resource: 'bulkJob',
	operation: 'submit',
	emailSource: 'list',
	emails,
	waitForCompletion: false,
	options: {},
};

/**
 * Pre-flight and fingerprinting of 50,003 addresses take about 0.8 s alone; on a loaded 2-core machine
 * (the whole unit tier on Node 22 beside other work) one run passed jest's default 5 s.
 */
const HEAVY_MS = 30_000;

describe('Bulk Job > Submit stopped part way', () => {
	it(
		'a 503 after the first job outputs the job, the 3 unsent addresses and an ISO time; a replay at once sends nothing',
		async () => {
			replyWithFixture(api().get('/v1/account'), 'account.200', (body) => ({
				...body,
				plan: 'pro',
			}));
			replyWithFixture(api().post('/v1/verify/bulk'), 'verify-bulk.202', (body) => ({
				...body,
				total_emails: 50_000,
				credits_used: 50_000,
			}));
			replyWithFixture(api().post('/v1/verify/bulk'), 'error.503');
			const staticData: IDataObject = {};
			const out: INodeExecutionData[] = await run(params, staticData);
			expect(out).toHaveLength(1);
			expect(out[0].json).toMatchObject({
				job_id: 'job_7f3c2a9e41b84d05',
				total_emails: 50_000,
				stopped_by: 'paused',
				unsent: emails.slice(50_000),
				unsent_count: 3,
			});
			const after = String(out[0].json.continue_after);
			expect(new Date(Date.parse(after)).toISOString()).toBe(after);
			expect(out[0].json.note).toMatch(/paused new jobs/);

			// No interceptor is left: any request here would fail the test.
			const replay = await run(params, staticData);
			expect(replay.map((item) => item.json)).toEqual([
				expect.objectContaining({
					job_id: null,
					status: 'not_sent_yet',
					unsent: emails.slice(50_000),
					continue_after: after,
					stopped_by: 'paused',
					sent_before: 50_000,
					earlier_jobs: ['job_7f3c2a9e41b84d05'],
				}),
			]);
		},
		HEAVY_MS,
	);

	it(
		'with "Fail" chosen, the same stop fails the node naming the charged job, and a rerun sends only the rest',
		async () => {
			replyWithFixture(api().post('/v1/verify/bulk'), 'verify-bulk.202', (body) => ({
				...body,
				total_emails: 50_000,
				credits_used: 50_000,
			}));
			replyWithFixture(api().post('/v1/verify/bulk'), 'error.503');
			// Over 10,000 addresses the client reads the plan even without "send what fits".
			replyWithFixture(api().get('/v1/account'), 'account.200', (body) => ({
				...body,
				plan: 'pro',
			}));
			const staticData: IDataObject = {};
			const failing = run({ ...params, options: { onStop: 'fail' } }, staticData);
			await expect(failing).rejects.toBeInstanceOf(NodeOperationError);
			await expect(failing).rejects.toThrow(
				/accepted and charged \(job_7f3c2a9e41b84d05\); 3 addresses were not sent/,
			);
			// The memory says the 3 can go after the pause: a rerun now sends nothing.
			const replay = await run({ ...params, options: { onStop: 'fail' } }, staticData);
			expect(replay[0].json).toMatchObject({ status: 'not_sent_yet', unsent_count: 3 });
		},
		HEAVY_MS,
	);

	it("a list that can never fit is an input error in the client's words, not a retry-later one", () => {
		const error = toNodeError(
			node as never,
			new AllowanceExceededError(12_000, 10_000, 'Starter'),
		) as NodeOperationError;
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error).not.toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/whole API allowance \(Starter plan\) of 10000 addresses a day/);
		expect(error.message).toMatch(/up to 2,000,000 addresses/);
		expect(error.description).toMatch(/Nothing was sent or charged/);
		expect(error.description).not.toMatch(/Wait for the reset/);
	});
});
