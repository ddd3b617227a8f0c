/**
 * The action node's operations against the service's contract fixtures (nock, no sandbox): what each
 * sends and what it outputs, so a broken operation fails the unit tier on its own. The same
 * operations run against the sandbox in operations.sandbox.test.ts and in real n8n in the e2e suites.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- test code, never packed: files ships dist only; the key is a made-up one nock checks */
import nock from 'nock';
import type { INodeExecutionData } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import { replyWithFixture, useNock } from '../../../test/support/nock';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { executeContext, type TestCredentials } from './support/context';

const ORIGIN = 'https://api.evf.test';
const credentials: TestCredentials = {
	apiKey: 'evf_n8n_unit_key_4b9d21',
	baseUrl: `${ORIGIN}/api`,
};
const JOB = 'job_7f3c2a9e41b84d05';
const node = new EmailVerification();

useNock();

/** The API with the key checked on every request: a call without it finds no interceptor and fails. */
const api = () => nock(`${ORIGIN}/api`, { reqheaders: { 'x-api-key': credentials.apiKey } });

async function run(
	params: Record<string, unknown> | ((name: string, i: number) => unknown),
	items?: INodeExecutionData[],
) {
	const harness = executeContext({ params, items, credentials });
	const output = await node.execute.call(harness.context);
	return { output: output[0], harness };
}

describe('the action node on contract fixtures', () => {
	it('Email > Verify sends the address and outputs the answer with its category, linked to its item', async () => {
		let sent: unknown;
		replyWithFixture(
			api().post('/v1/verify/single', (body) => ((sent = body), true)),
			'verify-single.200',
		);
		const { output } = await run({
			resource: 'email',
			operation: 'verify',
			email: 'valid.anna@acme-corp.com',
			options: {},
		});
		expect(sent).toMatchObject({ email: 'valid.anna@acme-corp.com' });
		expect(output).toHaveLength(1);
		expect(output[0].json).toMatchObject({
			email: 'valid.anna@acme-corp.com',
			status: 'valid',
			category: 'Valid',
			group: 'safe_to_send',
			safe_to_send: true,
		});
		expect(output[0].pairedItem).toMatchObject({ item: 0 });
	});

	it('Account > Get Credits outputs the balance', async () => {
		replyWithFixture(api().get('/v1/account/credits'), 'credits.200');
		const { output } = await run({ resource: 'account', operation: 'getCredits' });
		expect(output[0].json).toMatchObject({ credits: 48200, credits_used_today: 1298 });
	});

	it('Bulk Job > Get outputs the job by its ID', async () => {
		replyWithFixture(api().get(`/v1/jobs/${JOB}`), 'job.completed.200');
		const { output } = await run({
			resource: 'bulkJob',
			operation: 'get',
			jobId: { __rl: true, mode: 'id', value: JOB },
		});
		expect(output[0].json).toMatchObject({
			job_id: JOB,
			status: 'completed',
			terminal: true,
			total_emails: 8,
		});
	});

	it('Bulk Job > Get Results with Return All reads every page, one item per row with its category', async () => {
		for (const page of [1, 2])
			replyWithFixture(
				api()
					.get(`/v1/jobs/${JOB}/results`)
					.query((q) => q.page === String(page)),
				`results.page${page}.200`,
			);
		const { output } = await run({
			resource: 'bulkJob',
			operation: 'getResults',
			jobId: { mode: 'id', value: JOB },
			returnAll: true,
			groups: [],
			simplify: false,
		});
		expect(output).toHaveLength(8);
		expect(output[0].json).toMatchObject({ email: 'valid.anna@acme-corp.com', category: 'Valid' });
		expect(new Set(output.map((item) => item.json.email)).size).toBe(8);
	});

	it('Bulk Job > Submit reads the balance, sends each valid address once and outputs the job', async () => {
		let sent: { emails?: string[] } = {};
		replyWithFixture(api().get('/v1/account/credits'), 'credits.200');
		replyWithFixture(
			api().post('/v1/verify/bulk', (body) => ((sent = body), true)),
			'verify-bulk.202',
		);
		const { output } = await run({
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'list',
			emails: 'a@acme-corp.com\nb@acme-corp.com\na@acme-corp.com\nnot-an-address',
			waitForCompletion: false,
			options: {},
		});
		expect(sent.emails).toEqual(['a@acme-corp.com', 'b@acme-corp.com']);
		expect(output[0].json.job_id).toEqual(expect.any(String));
	});

	it('API Key > Revoke sends DELETE for the key and says it was deleted', async () => {
		replyWithFixture(api().delete('/v1/keys/key_5d1e8b'), 'revoke-key.204');
		const { output } = await run({ resource: 'apiKey', operation: 'revoke', keyId: 'key_5d1e8b' });
		expect(output[0].json).toMatchObject({ deleted: true });
	});

	it('a refused key fails the node with a NodeApiError', async () => {
		replyWithFixture(api().get('/v1/account/credits'), 'error.401');
		const failing = run({ resource: 'account', operation: 'getCredits' });
		await expect(failing).rejects.toBeInstanceOf(NodeApiError);
	});
});
