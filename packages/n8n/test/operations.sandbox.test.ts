/**
 * Every operation's execute path, run through the node class against the sandbox on loopback.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { createClient } from '@evf/client/node';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { searchJobs } from '../nodes/EmailVerification/methods/listSearch';
import { executeContext, loadOptionsContext, type TestCredentials } from './support/context';
import { waitFor } from './support/timing';

let sandbox: Sandbox;
let credentials: TestCredentials;
const node = new EmailVerification();

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, timeScale: 0.01, allowInsecureWebhooks: true });
	credentials = {
		apiKey: sandbox.apiKey,
		baseUrl: sandbox.baseUrl,
		webhookSecret: sandbox.webhookSecret,
	};
});
afterAll(async () => {
	await sandbox.close();
});

async function run(
	params: Record<string, unknown> | ((name: string, i: number) => unknown),
	items?: INodeExecutionData[],
	extra: { continueOnFail?: boolean; credentials?: TestCredentials; resumeUrl?: string } = {},
) {
	const harness = executeContext({
		params,
		items,
		credentials: extra.credentials ?? credentials,
		continueOnFail: extra.continueOnFail,
		resumeUrl: extra.resumeUrl,
	});
	const output = await node.execute.call(harness.context);
	return { output: output[0], harness };
}

function jsonOf(items: INodeExecutionData[]): IDataObject[] {
	return items.map((item) => item.json);
}

async function finishedJob(emails: string[]): Promise<string> {
	const { output } = await run({
		resource: 'bulkJob',
		operation: 'submit',
		emailSource: 'list',
		emails: emails.join('\n'),
		waitForCompletion: false,
		options: {},
	});
	const jobId = String(output[0].json.job_id);
	await waitFor(() => sandbox.job(jobId)?.terminal === true, { what: `job ${jobId} finished` });
	return jobId;
}

describe('Email > Verify', () => {
	it('outputs every field plus category, group and safe_to_send, linked to its item', async () => {
		const items = [
			{ json: { email: 'valid.ann@example.com' } },
			{ json: { email: 'info@example.com' } },
		];
		const { output } = await run(
			(name, i) =>
				({ resource: 'email', operation: 'verify', email: items[i].json.email, options: {} })[name],
			items,
		);
		expect(output).toHaveLength(2);
		expect(output[0].json).toMatchObject({
			email: 'valid.ann@example.com',
			category: 'Valid',
			group: 'safe_to_send',
			safe_to_send: true,
			timed_out: false,
		});
		expect(output[0].json.details).toBeDefined();
		expect(output[0].json.credits_used).toBe(1);
		expect(output[1].json).toMatchObject({ category: 'Role', group: 'risky', safe_to_send: false });
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('turns a 408 into an item with timed_out, or into an error, as chosen', async () => {
		const { output } = await run({
			resource: 'email',
			operation: 'verify',
			email: 'slow.bob@example.com',
			options: { onTimeout: 'output' },
		});
		expect(output[0].json).toMatchObject({
			email: 'slow.bob@example.com',
			timed_out: true,
			credits_refunded: true,
		});
		const failing = run({
			resource: 'email',
			operation: 'verify',
			email: 'slow.bob@example.com',
			options: { onTimeout: 'fail' },
		});
		await expect(failing).rejects.toBeInstanceOf(NodeApiError);
		await expect(failing).rejects.toMatchObject({ httpCode: '408' });
	});

	it('answers a malformed address with a free Invalid verdict, or fails as chosen; nothing is sent', async () => {
		const before = sandbox.requests.length;
		const ledger = sandbox.ledger();
		const { output: verdict } = await run({
			resource: 'email',
			operation: 'verify',
			email: 'not-an-address',
			options: {},
		});
		expect(verdict[0].json).toMatchObject({
			email: 'not-an-address',
			category: 'Invalid',
			group: 'invalid',
			credits_used: 0,
			sent: false,
		});
		expect(String(verdict[0].json.reason)).toMatch(/not-an-address/);
		const bad = run({
			resource: 'email',
			operation: 'verify',
			email: 'not-an-address',
			options: { onBadInput: 'fail' },
		});
		await expect(bad).rejects.toBeInstanceOf(NodeOperationError);
		await expect(bad).rejects.toThrow(/not-an-address/);
		expect(sandbox.requests.length).toBe(before);
		expect(sandbox.ledger()).toEqual(ledger);

		const items = [{ json: { email: 'nope' } }, { json: { email: 'valid.c@example.com' } }];
		const { output } = await run(
			(name, i) =>
				({
					resource: 'email',
					operation: 'verify',
					email: items[i].json.email,
					options: { onBadInput: 'fail' },
				})[name],
			items,
			{ continueOnFail: true },
		);
		expect(output[0].json.error).toMatch(/nope/);
		expect(output[0].pairedItem).toEqual({ item: 0 });
		expect(output[1].json.group).toBe('safe_to_send');
	});

	it('gives a clear 401 error for a wrong key, and a key without evf_ is refused before any request', async () => {
		const wrong = run(
			{ resource: 'email', operation: 'verify', email: 'valid@example.com', options: {} },
			undefined,
			{
				credentials: { ...credentials, apiKey: `${sandbox.apiKey}x` },
			},
		);
		await expect(wrong).rejects.toMatchObject({ httpCode: '401' });
		await expect(wrong).rejects.toThrow(/API key was refused/);
		const before = sandbox.requests.length;
		const unprefixed = run(
			{ resource: 'email', operation: 'verify', email: 'valid@example.com', options: {} },
			undefined,
			{
				credentials: { ...credentials, apiKey: 'sk_live_123' },
			},
		);
		await expect(unprefixed).rejects.toThrow(/keys start with "evf_"/);
		expect(sandbox.requests.length).toBe(before);
	});

	it('waits out a short 429 by its reset header and answers; a short 503 on submit is waited out too', async () => {
		sandbox.faults.failNext({ path: '/v1/verify/single', status: 429, retryAfterSeconds: 1 });
		const { output } = await run({
			resource: 'email',
			operation: 'verify',
			email: 'valid.rl@example.com',
			options: {},
		});
		expect(output[0].json.group).toBe('safe_to_send');
		sandbox.faults.failNext({ path: '/v1/verify/bulk', status: 503, retryAfterSeconds: 1 });
		const submitted = await run({
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'list',
			emails: 'valid.p@example.com',
			waitForCompletion: false,
			options: {},
		});
		expect(submitted.output).toHaveLength(1);
		expect(submitted.output[0].json.total_emails).toBe(1);
	});

	it('gives the 503 and 402 their own clear messages', async () => {
		sandbox.faults.failNext({ path: '/v1/verify/bulk', status: 503, retryAfterSeconds: 7200 });
		const paused = run({
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'list',
			emails: 'valid.q@example.com',
			waitForCompletion: false,
			// By default a pause is an output (submit-over-days.sandbox.test.ts); "Fail" gives the error.
			options: { onStop: 'fail' },
		});
		await expect(paused).rejects.toMatchObject({ httpCode: '503' });
		await expect(paused).rejects.toThrow(/not taking new work for now; try again in about/);
		const poor = sandbox.addAccount({ id: 'acct_poor', plan: 'pro', credits: 0 });
		const broke = run(
			{ resource: 'email', operation: 'verify', email: 'valid.r@example.com', options: {} },
			undefined,
			{
				credentials: { ...credentials, apiKey: poor.apiKey },
			},
		);
		await expect(broke).rejects.toMatchObject({ httpCode: '402' });
		await expect(broke).rejects.toThrow(
			/too few credits for this request\. It needs 1 and 0 are left/,
		);
	});

	it('a rate limit that resets later than the client will wait: a not-sent item with the time, or a clear failure', async () => {
		// 2 hours of spec time is 72 s real at this time scale: beyond the client's 60 s bound.
		sandbox.faults.failNext({
			path: '/v1/verify/single',
			status: 429,
			retryAfterSeconds: 7200,
			count: 1,
		});
		const { output } = await run({
			resource: 'email',
			operation: 'verify',
			email: 'valid.rl2@example.com',
			options: {},
		});
		expect(output[0].json).toMatchObject({
			email: 'valid.rl2@example.com',
			sent: false,
			status: 'not_sent',
			stopped_by: 'allowance',
			send_after: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
		});
		sandbox.faults.failNext({
			path: '/v1/verify/single',
			status: 429,
			retryAfterSeconds: 7200,
			count: 1,
		});
		const failing = run({
			resource: 'email',
			operation: 'verify',
			email: 'valid.rl2@example.com',
			options: { onStop: 'fail' },
		});
		await expect(failing).rejects.toMatchObject({ httpCode: '429' });
		await expect(failing).rejects.toThrow(/allowance/);
	});
});

describe('Bulk Job > Submit', () => {
	it('turns all input items into one job with a pre-flight report; malformed and duplicates are not charged', async () => {
		const emails = [
			'valid1@example.com',
			'VALID1@example.com',
			'broken@',
			'info@example.com',
			'valid2@example.com',
			'',
			'invalid3@example.com',
		];
		const items = emails.map((email, i) => ({ json: { contact: { email }, row: i } }));
		const ledgerBefore = sandbox.ledger(sandbox.apiKey);
		const { output } = await run(
			{
				resource: 'bulkJob',
				operation: 'submit',
				emailSource: 'field',
				emailField: 'contact.email',
				waitForCompletion: false,
				options: { name: 'Sheet import', priority: 'high' },
			},
			items,
		);
		expect(output).toHaveLength(1);
		const job = output[0].json;
		expect(job).toMatchObject({
			status: 'queued',
			total_emails: 4,
			credits_used: 4,
			part: 1,
			parts: 1,
		});
		expect(job.preflight).toMatchObject({ received: 6, unique: 4, duplicates: 1, malformed: 1 });
		expect((job.preflight as IDataObject).malformed_addresses).toEqual([
			expect.objectContaining({ email: 'broken@', index: 2 }),
		]);
		expect(output[0].pairedItem).toEqual(items.map((_, item) => ({ item })));
		expect(sandbox.ledger(sandbox.apiKey).charged - ledgerBefore.charged).toBe(4);
		expect(sandbox.requests.filter((r) => r.path === '/v1/verify/bulk').length).toBeGreaterThan(0);
	});

	it('gives, for each input item, the address it sent: the one inside a Name <address> or mailto: cell', async () => {
		const emails = [
			'Ann <valid.ann@example.com>',
			'mailto:valid.bo@example.com',
			'broken@',
			'VALID.ANN@example.com',
		];
		const { output } = await run(
			{
				resource: 'bulkJob',
				operation: 'submit',
				emailSource: 'field',
				emailField: 'email',
				waitForCompletion: false,
			},
			emails.map((email) => ({ json: { email } })),
		);
		expect((output[0].json.preflight as IDataObject).addresses_by_item).toEqual([
			['valid.ann@example.com'],
			['valid.bo@example.com'],
			[],
			['VALID.ANN@example.com'],
		]);
	});

	it('when no address is valid, fails by default and outputs the pre-flight report with no job when told to, sending nothing', async () => {
		const items = ['broken@', '', 'not an address'].map((email) => ({ json: { email } }));
		const parameters = {
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'field',
			emailField: 'email',
			waitForCompletion: false,
		};
		const before = sandbox.requests.length;
		await expect(run(parameters, items)).rejects.toThrow(/no valid email address/);
		const { output } = await run({ ...parameters, options: { nothingToSend: 'report' } }, items);
		expect(sandbox.requests.length).toBe(before);
		expect(output).toHaveLength(1);
		expect(output[0].json).toMatchObject({
			job_id: null,
			status: 'nothing_to_send',
			parts: 0,
			credits_used_total: 0,
			preflight: { received: 2, unique: 0, malformed: 2, addresses_by_item: [[], [], []] },
		});
		expect(output[0].pairedItem).toEqual(items.map((_, item) => ({ item })));
	});

	it('splits a list over 50,000 into several jobs', async () => {
		const emails = Array.from({ length: 50_003 }, (_, i) => `valid.user${i}@example.com`);
		const { output } = await run({
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'list',
			emails,
			waitForCompletion: false,
			options: { name: 'Big list' },
		});
		expect(output.map((o) => [o.json.total_emails, o.json.part, o.json.parts])).toEqual([
			[50_000, 1, 2],
			[3, 2, 2],
		]);
	});

	it('refuses a bad webhook URL before anything is sent or charged', async () => {
		const before = sandbox.requests.length;
		const charged = sandbox.ledger(sandbox.apiKey).charged;
		const bad = run({
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'list',
			emails: 'valid@example.com',
			waitForCompletion: false,
			options: { webhookUrl: 'http://10.0.0.5/hook' },
		});
		await expect(bad).rejects.toBeInstanceOf(NodeOperationError);
		await expect(bad).rejects.toThrow(/https/);
		expect(sandbox.requests.length).toBe(before);
		expect(sandbox.ledger(sandbox.apiKey).charged).toBe(charged);
	});

	it('waits by polling and outputs the result rows with their groups', async () => {
		const emails = ['valid.a@example.com', 'invalid.b@example.com', 'catchall.c@example.com'];
		const { output } = await run({
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'list',
			emails: emails.join(', '),
			waitForCompletion: true,
			waitMethod: 'polling',
			timeoutMinutes: 5,
			pollIntervalSeconds: 10,
			waitOutput: 'results',
			resultOptions: {},
			options: {},
		});
		expect(output.map((o) => [o.json.email, o.json.group])).toEqual([
			['valid.a@example.com', 'safe_to_send'],
			['invalid.b@example.com', 'invalid'],
			['catchall.c@example.com', 'risky'],
		]);
		expect(output.every((o) => o.json.job_id && o.json.category)).toBe(true);
	}, 60_000);

	describe('a failure after the service accepted the job names it as charged and still running', () => {
		// Jobs stay queued for ten minutes of real time here, so every wait below is still waiting.
		let slow: Sandbox;
		let slowCredentials: TestCredentials;
		beforeAll(async () => {
			slow = await startSandbox({ port: 0, timeScale: 1, queueDelayMs: 600_000 });
			slowCredentials = { apiKey: slow.apiKey, baseUrl: slow.baseUrl };
		});
		afterAll(async () => {
			await slow.close();
		});
		/**
		 * The newest job of the account: the one the test's submission created (tests run one by one, in
		 * any order; undefined before the first).
		 */
		const newestJob = async (): Promise<string | undefined> => {
			const client = createClient({ apiKey: slow.apiKey, baseUrl: slow.baseUrl });
			const { jobs } = await client.listJobs({ limit: 1 });
			return jobs[0]?.job_id;
		};
		const submitAndPoll = (emails: string, extra: Record<string, unknown>) => ({
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'list',
			emails,
			waitForCompletion: true,
			waitMethod: 'polling',
			waitOutput: 'results',
			resultOptions: {},
			options: {},
			...extra,
		});

		it('the wait times out: the error names the job, says it is charged and running, and that a rerun does not submit it again', async () => {
			const failure = await run(
				submitAndPoll('valid.t1@example.com\ninvalid.t2@example.com', {
					timeoutMinutes: 0.0005,
					pollIntervalSeconds: 10,
				}),
				undefined,
				{ credentials: slowCredentials },
			).catch((error: unknown) => error);
			expect(failure).toBeInstanceOf(NodeOperationError);
			const jobId = (await newestJob())!;
			const { message, description } = failure as NodeOperationError;
			expect(message).toContain(`job ${jobId} was submitted and charged and still running`);
			expect(message).toMatch(/still (queued|processing)/);
			expect(description).toMatch(/Running this step again does not submit it again/);
			expect(slow.job(jobId)?.terminal).toBe(false);
		});

		it('Stop during a long polling interval ends the wait within a step of n8n sleep, naming the charged job', async () => {
			const harness = executeContext({
				params: submitAndPoll('valid.c1@example.com', {
					timeoutMinutes: 60,
					// Ten minutes between polls: only the cancel check between sleep steps can end this in time.
					pollIntervalSeconds: 600,
				}),
				credentials: slowCredentials,
			});
			const earlier = await newestJob();
			const running = node.execute.call(harness.context).catch((error: unknown) => error);
			let jobId = earlier;
			await waitFor(
				async () => {
					jobId = await newestJob();
					if (jobId === undefined) return false;
					// The new job's first poll was answered: the node is now in its ten-minute sleep.
					return (
						jobId !== earlier &&
						slow.requests.some((r) => r.method === 'GET' && r.path === `/v1/jobs/${jobId}`)
					);
				},
				{ timeoutMs: 60_000, what: 'first poll of the submitted job answered' },
			);
			await sleep(1500);
			harness.abort.abort();
			const failure = (await running) as NodeOperationError;
			expect(failure).toBeInstanceOf(NodeOperationError);
			expect(failure.message).toContain(`job ${jobId} was submitted and charged and still running`);
			expect(failure.message).toMatch(/cancelled/);
		}, 120_000);

		it('Continue On Fail outputs the same warning as an item', async () => {
			const { output } = await run(
				submitAndPoll('valid.f1@example.com', { timeoutMinutes: 0.0005, pollIntervalSeconds: 10 }),
				undefined,
				{ credentials: slowCredentials, continueOnFail: true },
			);
			const jobId = (await newestJob())!;
			expect(output[0].json.error).toContain(`job ${jobId} was submitted and charged`);
			expect(output[0].json.description).toMatch(
				/Running this step again does not submit it again/,
			);
		});
	});

	it('with a reachable resume URL, submits with it and pauses the execution until the timeout', async () => {
		// Its job stays queued (ten minutes of real time, the shared sandbox's clock otherwise): on that one a loaded machine let
		// the job finish before Submit looked, and Submit rightly output it at once instead of pausing.
		const held = await startSandbox({
			port: 0,
			timeScale: 0.01,
			queueDelayMs: 60_000_000,
			allowInsecureWebhooks: true,
		});
		try {
			const resumeUrl = `${held.origin.replace('127.0.0.1', 'localhost')}/unused-resume/123`;
			const { output, harness } = await run(
				{
					resource: 'bulkJob',
					operation: 'submit',
					emailSource: 'list',
					emails: 'valid.z@example.com',
					waitForCompletion: true,
					waitMethod: 'auto',
					timeoutMinutes: 30,
					pollIntervalSeconds: 10,
					waitOutput: 'job',
					options: {},
				},
				undefined,
				{
					resumeUrl,
					credentials: {
						apiKey: held.apiKey,
						baseUrl: held.baseUrl,
						webhookSecret: held.webhookSecret,
					},
				},
			);
			expect(output[0].json).toMatchObject({ waiting_by: 'webhook', total_emails: 1 });
			expect(harness.waits).toHaveLength(1);
			const minutes = (harness.waits[0].getTime() - Date.now()) / 60_000;
			expect(minutes).toBeGreaterThan(29);
			expect(minutes).toBeLessThanOrEqual(30);
		} finally {
			await held.close();
		}
	});

	it('does not pause when the job finished before the execution could wait: outputs its rows at once', async () => {
		// A service that finishes a job the moment it is submitted: its one call to the resume URL comes
		// while this execution is still running, and n8n refuses that call.
		const instant = await startSandbox({
			port: 0,
			timeScale: 0.001,
			queueDelayMs: 0,
			rowsPerSecond: 1_000_000,
			allowInsecureWebhooks: true,
		});
		try {
			const { output, harness } = await run(
				{
					resource: 'bulkJob',
					operation: 'submit',
					emailSource: 'list',
					emails: 'valid.i1@example.com\nfull.i2@example.com',
					waitForCompletion: true,
					waitMethod: 'webhook',
					timeoutMinutes: 30,
					pollIntervalSeconds: 10,
					waitOutput: 'results',
					resultOptions: { sheetFields: true },
					options: {},
				},
				undefined,
				{
					resumeUrl: `${instant.origin.replace('127.0.0.1', 'localhost')}/webhook-waiting/7`,
					credentials: {
						apiKey: instant.apiKey,
						baseUrl: instant.baseUrl,
						webhookSecret: instant.webhookSecret,
					},
				},
			);
			expect(harness.waits).toHaveLength(0);
			expect(jsonOf(output)).toEqual([
				{
					email: 'valid.i1@example.com',
					category: 'Valid',
					group: 'safe_to_send',
					safe_to_send: true,
					reason: expect.any(String),
				},
				{
					email: 'full.i2@example.com',
					category: 'Inbox Full',
					group: 'risky',
					safe_to_send: false,
					reason: expect.any(String),
				},
			]);
		} finally {
			await instant.close();
		}
	});

	it('in automatic mode falls back to polling when the resume URL is not public', async () => {
		const { output, harness } = await run(
			{
				resource: 'bulkJob',
				operation: 'submit',
				emailSource: 'list',
				emails: 'valid.y@example.com',
				waitForCompletion: true,
				waitMethod: 'auto',
				timeoutMinutes: 5,
				pollIntervalSeconds: 10,
				waitOutput: 'job',
				options: {},
			},
			undefined,
			{ resumeUrl: 'http://10.1.2.3:5678/webhook-waiting/77', credentials: { ...credentials } },
		);
		expect(harness.waits).toHaveLength(0);
		expect(output[0].json).toMatchObject({ status: 'completed', terminal: true });
	}, 60_000);

	it('in a command-line run (n8n execute) automatic waiting polls, and webhook waiting is refused before submitting', async () => {
		const params = {
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'list',
			emails: 'valid.cli@example.com',
			waitForCompletion: true,
			waitMethod: 'webhook',
			timeoutMinutes: 5,
			pollIntervalSeconds: 10,
			waitOutput: 'job',
			options: {},
		};
		const harness = executeContext({
			params,
			credentials,
			resumeUrl: 'https://n8n.example.com/webhook-waiting/1',
			mode: 'cli',
		});
		const bulkBefore = sandbox.requests.filter((r) => r.path === '/v1/verify/bulk').length;
		await expect(node.execute.call(harness.context)).rejects.toThrow(/command-line/);
		expect(sandbox.requests.filter((r) => r.path === '/v1/verify/bulk').length).toBe(bulkBefore);
	});

	it('refuses to wait by webhook without a signing secret, before submitting', async () => {
		const before = sandbox.requests.length;
		const failing = run(
			{
				resource: 'bulkJob',
				operation: 'submit',
				emailSource: 'list',
				emails: 'valid.w@example.com',
				waitForCompletion: true,
				waitMethod: 'webhook',
				timeoutMinutes: 5,
				pollIntervalSeconds: 10,
				waitOutput: 'job',
				options: {},
			},
			undefined,
			{
				resumeUrl: 'https://n8n.example.com/webhook-waiting/5',
				credentials: { apiKey: credentials.apiKey, baseUrl: credentials.baseUrl },
			},
		);
		await expect(failing).rejects.toThrow(/Signing Secret/);
		expect(sandbox.requests.filter((r) => r.path === '/v1/verify/bulk').length).toBe(
			sandbox.requests.slice(0, before).filter((r) => r.path === '/v1/verify/bulk').length,
		);
	});
});

describe('Bulk Job > Get, Get Many, Get Results, Wait for Completion', () => {
	let jobId: string;
	beforeAll(async () => {
		jobId = await finishedJob([
			'valid.1@example.com',
			'invalid.2@example.com',
			'temp.3@example.com',
			'catchall.4@example.com',
			'valid.5@example.com',
		]);
	});

	it('Get returns the job by ID from the resource locator', async () => {
		const { output } = await run({
			resource: 'bulkJob',
			operation: 'get',
			jobId: { __rl: true, mode: 'id', value: jobId },
		});
		expect(output[0].json).toMatchObject({
			job_id: jobId,
			status: 'completed',
			terminal: true,
			total_emails: 5,
		});
		expect(output[0].pairedItem).toEqual({ item: 0 });
	});

	it('Get of an unknown job is a 404 with a clear message', async () => {
		const failing = run({
			resource: 'bulkJob',
			operation: 'get',
			jobId: { __rl: true, mode: 'id', value: 'job_does_not_exist' },
		});
		await expect(failing).rejects.toMatchObject({ httpCode: '404' });
	});

	it('Get Many honours the limit, Return All and the status filter', async () => {
		const limited = await run({
			resource: 'bulkJob',
			operation: 'getMany',
			returnAll: false,
			limit: 2,
			filters: {},
		});
		expect(limited.output).toHaveLength(2);
		const all = await run({
			resource: 'bulkJob',
			operation: 'getMany',
			returnAll: true,
			filters: { status: 'completed' },
		});
		expect(all.output.length).toBeGreaterThanOrEqual(1);
		expect(all.output.every((o) => o.json.status === 'completed')).toBe(true);
		expect(jsonOf(all.output).map((j) => j.job_id)).toContain(jobId);
	});

	it('Get Results returns all rows, a limit, a group filter, and a simplified shape', async () => {
		const all = await run({
			resource: 'bulkJob',
			operation: 'getResults',
			jobId: { mode: 'id', value: jobId },
			returnAll: true,
			groups: [],
			simplify: false,
		});
		expect(all.output).toHaveLength(5);
		expect(all.output[0].json).toMatchObject({
			job_id: jobId,
			email: 'valid.1@example.com',
			group: 'safe_to_send',
			category: 'Valid',
		});
		expect(all.output[2].json).toMatchObject({
			email: 'temp.3@example.com',
			category: 'Disposable',
			group: 'invalid',
		});

		const limited = await run({
			resource: 'bulkJob',
			operation: 'getResults',
			jobId: { mode: 'id', value: jobId },
			returnAll: false,
			limit: 2,
			groups: [],
			simplify: false,
		});
		expect(limited.output).toHaveLength(2);

		const safe = await run({
			resource: 'bulkJob',
			operation: 'getResults',
			jobId: { mode: 'id', value: jobId },
			returnAll: true,
			groups: ['safe_to_send'],
			simplify: true,
		});
		expect(jsonOf(safe.output)).toEqual([
			expect.objectContaining({ email: 'valid.1@example.com', group: 'safe_to_send' }),
			expect.objectContaining({ email: 'valid.5@example.com', group: 'safe_to_send' }),
		]);
		expect(Object.keys(safe.output[0].json).sort()).toEqual([
			'category',
			'email',
			'group',
			'reason',
			'safe_to_send',
			'score',
			'status',
		]);

		// Only Sheet Fields: what a sheet needs and nothing else, whatever Simplify says.
		const sheet = await run({
			resource: 'bulkJob',
			operation: 'getResults',
			jobId: { mode: 'id', value: jobId },
			returnAll: true,
			groups: [],
			simplify: true,
			sheetFields: true,
		});
		expect(sheet.output.length).toBeGreaterThan(2);
		for (const item of sheet.output)
			expect(Object.keys(item.json).sort()).toEqual([
				'category',
				'email',
				'group',
				'reason',
				'safe_to_send',
			]);
	});

	it('Wait for Completion answers at once for a finished job, by polling and by webhook', async () => {
		const polled = await run({
			resource: 'bulkJob',
			operation: 'waitForCompletion',
			jobId: { mode: 'id', value: jobId },
			waitMethod: 'polling',
			timeoutMinutes: 1,
			pollIntervalSeconds: 10,
			waitOutput: 'job',
		});
		expect(polled.output[0].json).toMatchObject({ job_id: jobId, status: 'completed' });
		const hooked = await run(
			{
				resource: 'bulkJob',
				operation: 'waitForCompletion',
				jobId: { mode: 'id', value: jobId },
				waitMethod: 'webhook',
				timeoutMinutes: 1,
				pollIntervalSeconds: 10,
				waitOutput: 'results',
				resultOptions: { groups: ['invalid'] },
			},
			undefined,
			{ resumeUrl: 'https://n8n.example.com/webhook-waiting/9' },
		);
		expect(hooked.harness.waits).toHaveLength(0);
		expect(jsonOf(hooked.output).map((j) => j.email)).toEqual([
			'invalid.2@example.com',
			'temp.3@example.com',
		]);
	});

	it('Wait for Completion on Automatic polls a running job even when this n8n could be called back (a job submitted elsewhere never calls this execution)', async () => {
		const slow = await startSandbox({ port: 0, timeScale: 1, queueDelayMs: 2_000 });
		try {
			const slowCredentials = {
				apiKey: slow.apiKey,
				baseUrl: slow.baseUrl,
				webhookSecret: slow.webhookSecret,
			};
			const submitted = await run(
				{
					resource: 'bulkJob',
					operation: 'submit',
					emailSource: 'list',
					emails: 'valid.auto@example.com',
					waitForCompletion: false,
					options: {},
				},
				undefined,
				{ credentials: slowCredentials },
			);
			const pending = submitted.output[0].json.job_id as string;
			const waited = await run(
				{
					resource: 'bulkJob',
					operation: 'waitForCompletion',
					jobId: { mode: 'id', value: pending },
					waitMethod: 'auto',
					timeoutMinutes: 5,
					pollIntervalSeconds: 10,
					waitOutput: 'job',
				},
				undefined,
				{ credentials: slowCredentials, resumeUrl: 'https://n8n.example.com/webhook-waiting/9' },
			);
			expect(waited.harness.waits).toHaveLength(0);
			expect(waited.output[0].json).toMatchObject({ job_id: pending, status: 'completed' });
		} finally {
			await slow.close();
		}
	}, 60_000);

	it('Wait for Completion fails clearly at the timeout when polling', async () => {
		// A sandbox whose job stays queued for a minute of real time: on the fast shared one even a
		// 5,000-address job finishes within a fraction of a second, before the wait may have started.
		// Here one address is enough.
		const slow = await startSandbox({ port: 0, timeScale: 1, queueDelayMs: 60_000 });
		try {
			const slowCredentials = { apiKey: slow.apiKey, baseUrl: slow.baseUrl };
			const { output } = await run(
				{
					resource: 'bulkJob',
					operation: 'submit',
					emailSource: 'list',
					emails: 'valid.slow@example.com',
					waitForCompletion: false,
					options: {},
				},
				undefined,
				{ credentials: slowCredentials },
			);
			const pending = String(output[0].json.job_id);
			const failing = run(
				{
					resource: 'bulkJob',
					operation: 'waitForCompletion',
					jobId: { mode: 'id', value: pending },
					waitMethod: 'polling',
					timeoutMinutes: 0.0001,
					pollIntervalSeconds: 10,
					waitOutput: 'job',
				},
				undefined,
				{ continueOnFail: true, credentials: slowCredentials },
			);
			const result = await failing;
			expect(result.output[0].json.error).toMatch(/still (queued|processing)/);
			expect(result.output[0].pairedItem).toEqual({ item: 0 });
		} finally {
			await slow.close();
		}
	});

	it('the job picker lists recent jobs and filters by the typed text', async () => {
		const harness = loadOptionsContext(credentials);
		const all = await searchJobs.call(harness.context);
		expect(all.results.map((r) => r.value)).toContain(jobId);
		const filtered = await searchJobs.call(harness.context, jobId.slice(-6));
		expect(filtered.results.map((r) => r.value)).toEqual([jobId]);
	});
});

describe('Account and API Key', () => {
	it('Get Credits, Get Account and Get Subscription return the service objects', async () => {
		const credits = await run({ resource: 'account', operation: 'getCredits' });
		expect(typeof credits.output[0].json.credits).toBe('number');
		const account = await run({ resource: 'account', operation: 'getAccount' });
		expect(account.output[0].json).toHaveProperty('plan');
		const subscription = await run({ resource: 'account', operation: 'getSubscription' });
		expect(subscription.output[0].json).toHaveProperty('status');
	});

	it('Revoke returns { deleted: true }, the revoked key stops working, an unknown key ID is a 404, and an API key pasted as ID is refused', async () => {
		const extra = sandbox.addAccount({ id: 'acct_revoke', plan: 'pro', credits: 10 });
		const creds = { ...credentials, apiKey: extra.apiKey };
		const { output } = await run(
			{ resource: 'apiKey', operation: 'revoke', keyId: extra.keyId },
			undefined,
			{ credentials: creds },
		);
		expect(output).toEqual([{ json: { deleted: true }, pairedItem: { item: 0 } }]);
		const again = run({ resource: 'apiKey', operation: 'revoke', keyId: extra.keyId }, undefined, {
			credentials: creds,
		});
		await expect(again).rejects.toMatchObject({ httpCode: '401' });
		const unknown = run({
			resource: 'apiKey',
			operation: 'revoke',
			keyId: `${sandbox.keyId}_unknown`,
		});
		await expect(unknown).rejects.toMatchObject({ httpCode: '404' });
		const pasted = run({ resource: 'apiKey', operation: 'revoke', keyId: sandbox.apiKey });
		await expect(pasted).rejects.toThrow(/not a key ID|key ID/);
	});
});
