/**
 * The trigger's webhook method against the shared signature vectors (at their receiver clock), the
 * duplicate rule, and both outputs; the resume path of the action node with a real delivery from the
 * sandbox; and the polling trigger.
 */
import type { IDataObject } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import vectors from '../../../shared/test-vectors/webhook-vectors.json';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { EmailVerificationTrigger } from '../nodes/EmailVerificationTrigger/EmailVerificationTrigger.node';
import { EmailVerificationPollTrigger } from '../nodes/EmailVerificationPollTrigger/EmailVerificationPollTrigger.node';
import {
	executeContext,
	pollContext,
	webhookContext,
	type TestCredentials,
} from './support/context';
import { startReceiver } from './support/receiver';
import { waitFor } from './support/timing';

interface Vector {
	name: string;
	secrets: string[];
	headers: Record<string, string>;
	rawBody: string;
	now: number;
	expect: 'accept' | 'reject';
}

const trigger = new EmailVerificationTrigger();
const baseCredentials = {
	apiKey: 'evf_unused_for_signature_checks',
	baseUrl: 'http://127.0.0.1:9/api',
};

describe('On Bulk Job Finished (webhook trigger) with the shared signature vectors', () => {
	afterEach(() => jest.restoreAllMocks());

	it.each((vectors as unknown as Vector[]).map((v) => [v.name, v] as const))(
		'%s',
		async (_name, vector) => {
			jest.spyOn(Date, 'now').mockReturnValue(vector.now * 1000);
			// The credential holds the current secret and, during a rotation, the previous one.
			const harness = webhookContext({
				params: { output: 'job' },
				credentials: {
					...baseCredentials,
					webhookSecret: vector.secrets[0],
					previousWebhookSecret: vector.secrets[1],
				},
				delivery: { rawBody: vector.rawBody, headers: vector.headers },
			});
			const result = await trigger.webhook.call(harness.context);
			if (vector.expect === 'accept') {
				expect(harness.answered.status).toBeUndefined();
				const item = result.workflowData?.[0]?.[0];
				expect(item?.json).toMatchObject({ job_id: JSON.parse(vector.rawBody).job_id });
				expect(item?.pairedItem).toEqual({ item: 0 });
			} else {
				expect(harness.answered.status).toBe(401);
				expect(result).toEqual({ noWebhookResponse: true });
				expect(harness.staticData.seenJobIds).toBeUndefined();
			}
			expect(harness.sent).toHaveLength(0);
		},
	);

	it('starts the workflow once per job: a repeated delivery is acknowledged and ignored', async () => {
		const vector = (vectors as unknown as Vector[]).find((v) => v.name === 'valid_completed')!;
		jest.spyOn(Date, 'now').mockReturnValue(vector.now * 1000);
		const staticData: IDataObject = {};
		const workflowId = crypto.randomUUID();
		const deliver = async () => {
			const harness = webhookContext({
				params: { output: 'job' },
				credentials: { ...baseCredentials, webhookSecret: vector.secrets[0] },
				delivery: { rawBody: vector.rawBody, headers: vector.headers },
				staticData,
				workflowId,
			});
			return { result: await trigger.webhook.call(harness.context), harness };
		};
		const first = await deliver();
		expect(first.result.workflowData?.[0]).toHaveLength(1);
		const second = await deliver();
		expect(second.result).toEqual({ noWebhookResponse: true });
		expect(second.harness.answered).toEqual({
			status: 200,
			body: { received: true, duplicate: true },
		});
		expect(staticData.seenJobIds).toEqual([JSON.parse(vector.rawBody).job_id]);
	});
});

describe('On Bulk Job Finished: copies of one delivery at the same moment', () => {
	afterEach(() => jest.restoreAllMocks());
	const vector = (vectors as unknown as Vector[]).find((v) => v.name === 'valid_failed')!;

	// n8n reads a webhook's static data per request and saves it after the node answers, so copies that
	// arrive together each see their own copy without the job (measured in real n8n's queue mode).
	function copyArriving(workflowId: string) {
		return webhookContext({
			params: { output: 'job' },
			credentials: { ...baseCredentials, webhookSecret: vector.secrets[0] },
			delivery: { rawBody: vector.rawBody, headers: vector.headers },
			staticData: {},
			workflowId,
		});
	}

	it('starts one run when four copies reach the same n8n process together, each with fresh static data', async () => {
		jest.spyOn(Date, 'now').mockReturnValue(vector.now * 1000);
		const workflowId = crypto.randomUUID();
		const copies = [1, 2, 3, 4].map(() => copyArriving(workflowId));
		const results = await Promise.all(copies.map((c) => trigger.webhook.call(c.context)));
		expect(results.filter((r) => r.workflowData)).toHaveLength(1);
		expect(copies.filter((c) => c.answered.status === 200)).toHaveLength(3);
		expect(copies.map((c) => c.answered.body).filter(Boolean)).toEqual([
			{ received: true, duplicate: true },
			{ received: true, duplicate: true },
			{ received: true, duplicate: true },
		]);
	});

	it('keeps a test event in the editor apart: the first production delivery of that job still starts a run', async () => {
		jest.spyOn(Date, 'now').mockReturnValue(vector.now * 1000);
		const workflowId = crypto.randomUUID();
		const inEditor = webhookContext({
			params: { output: 'job' },
			credentials: { ...baseCredentials, webhookSecret: vector.secrets[0] },
			delivery: { rawBody: vector.rawBody, headers: vector.headers },
			workflowId,
			mode: 'manual',
		});
		expect((await trigger.webhook.call(inEditor.context)).workflowData).toBeDefined();
		const production = copyArriving(workflowId);
		expect((await trigger.webhook.call(production.context)).workflowData).toBeDefined();
	});

	it('keeps each workflow separate: the same job starts one run in every workflow with the trigger', async () => {
		jest.spyOn(Date, 'now').mockReturnValue(vector.now * 1000);
		const [a, b] = [copyArriving(crypto.randomUUID()), copyArriving(crypto.randomUUID())];
		const results = await Promise.all([a, b].map((c) => trigger.webhook.call(c.context)));
		expect(results.map((r) => r.workflowData?.[0]).map((items) => items?.length)).toEqual([1, 1]);
	});
});

describe('with the sandbox', () => {
	let sandbox: Sandbox;
	let credentials: TestCredentials;
	let receiver: Awaited<ReturnType<typeof startReceiver>>;

	beforeAll(async () => {
		// Jobs stay queued for 200 ms of real time: Submit has paused before its job finishes.
		sandbox = await startSandbox({
			port: 0,
			timeScale: 0.01,
			queueDelayMs: 20_000,
			allowInsecureWebhooks: true,
		});
		credentials = {
			apiKey: sandbox.apiKey,
			baseUrl: sandbox.baseUrl,
			webhookSecret: sandbox.webhookSecret,
		};
		receiver = await startReceiver();
	});
	afterAll(async () => {
		await receiver.close();
		await sandbox.close();
	});

	it('the trigger emits one item per result row, filtered by group, from a real delivery', async () => {
		const action = new EmailVerification();
		const submit = executeContext({
			params: {
				resource: 'bulkJob',
				operation: 'submit',
				emailSource: 'list',
				emails: 'valid.t1@example.com\ninvalid.t2@example.com\nvalid.t3@example.com',
				waitForCompletion: false,
				options: { webhookUrl: `${receiver.url}/hook` },
			},
			credentials,
		});
		const [[job]] = await action.execute.call(submit.context);
		// Taken by job id: the delivery may already be in when the submission returns.
		const delivery = await receiver.next(
			10_000,
			(d) => d.headers['x-service-job'] === job.json.job_id,
		);
		expect(delivery.url).toBe('/hook');
		const harness = webhookContext({
			params: { output: 'results', resultOptions: { groups: ['safe_to_send'], simplify: true } },
			credentials,
			delivery,
		});
		const result = await trigger.webhook.call(harness.context);
		expect(result.workflowData?.[0].map((i) => i.json.email)).toEqual([
			'valid.t1@example.com',
			'valid.t3@example.com',
		]);
		const tampered = webhookContext({
			params: { output: 'job' },
			credentials,
			delivery: { ...delivery, rawBody: delivery.rawBody.replace('"completed"', '"failed"') },
		});
		expect(await trigger.webhook.call(tampered.context)).toEqual({ noWebhookResponse: true });
		expect(tampered.answered.status).toBe(401);
	});

	it('Submit waiting by webhook resumes from the service call with the result rows', async () => {
		const action = new EmailVerification();
		const params = {
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'list',
			emails: 'valid.r1@example.com, full.r2@example.com',
			waitForCompletion: true,
			waitMethod: 'webhook',
			timeoutMinutes: 10,
			pollIntervalSeconds: 10,
			waitOutput: 'results',
			resultOptions: {},
			options: {},
		};
		const submit = executeContext({
			params,
			credentials,
			resumeUrl: `${receiver.url}/webhook-waiting/42`,
		});
		const [[waiting]] = await action.execute.call(submit.context);
		expect(waiting.json).toMatchObject({ waiting_by: 'webhook' });
		expect(submit.waits).toHaveLength(1);
		const delivery = await receiver.next(
			10_000,
			(d) => d.headers['x-service-job'] === waiting.json.job_id,
		);
		expect(delivery.url).toBe('/webhook-waiting/42');
		const resume = webhookContext({
			params,
			credentials,
			delivery,
			nodeType: 'n8n-nodes-evf.emailVerification',
		});
		const resumed = await action.webhook.call(resume.context);
		expect(resumed.workflowData?.[0].map((i) => [i.json.email, i.json.category])).toEqual([
			['valid.r1@example.com', 'Valid'],
			['full.r2@example.com', 'Inbox Full'],
		]);
		// The delivery was answered before anything was read from the service, and n8n sends no second answer.
		expect(resume.answered).toEqual({ status: 200, body: { received: true } });
		expect(resume.requestsBeforeAnswer.count).toBe(0);
		expect(resume.sent.length).toBeGreaterThan(0);
		expect(resumed.noWebhookResponse).toBe(true);

		// When reading the finished job fails after that answer, the error names the job and how to read it.
		const unreachable = webhookContext({
			params,
			credentials: { ...credentials, baseUrl: 'http://127.0.0.1:9/api' },
			delivery,
			nodeType: 'n8n-nodes-evf.emailVerification',
		});
		const failure = action.webhook.call(unreachable.context);
		await expect(failure).rejects.toThrow(
			`Bulk job ${String(waiting.json.job_id)} finished, but reading it failed`,
		);
		await expect(failure).rejects.toMatchObject({
			description: expect.stringContaining('Bulk Job > Get Results'),
		});
		expect(unreachable.answered.status).toBe(200);
		const forged = webhookContext({
			params,
			credentials: { ...credentials, webhookSecret: 'whsec_someone_else' },
			delivery,
		});
		expect(await action.webhook.call(forged.context)).toEqual({ noWebhookResponse: true });
		expect(forged.answered.status).toBe(401);
	});

	it('the polling trigger learns old jobs on its first run, then emits each newly finished job once', async () => {
		const poller = new EmailVerificationPollTrigger();
		const staticData: IDataObject = {};
		const first = pollContext({ params: {}, credentials, staticData });
		expect(await poller.poll.call(first.context)).toBeNull();
		const action = new EmailVerification();
		const submit = executeContext({
			params: {
				resource: 'bulkJob',
				operation: 'submit',
				emailSource: 'list',
				emails: 'valid.p1@example.com',
				waitForCompletion: false,
				options: {},
			},
			credentials,
		});
		const [[job]] = await action.execute.call(submit.context);
		const jobId = String(job.json.job_id);
		await waitFor(() => sandbox.job(jobId)?.terminal === true, { what: `job ${jobId} finished` });
		const second = await poller.poll.call(
			pollContext({ params: {}, credentials, staticData }).context,
		);
		expect(second?.[0].map((i) => i.json.job_id)).toEqual([jobId]);
		expect(second?.[0][0].json).toMatchObject({
			status: 'completed',
			total_emails: 1,
			progress_percent: 100,
		});
		expect(
			await poller.poll.call(pollContext({ params: {}, credentials, staticData }).context),
		).toBeNull();
		const manual = await poller.poll.call(
			pollContext({ params: {}, credentials, mode: 'manual', staticData: {} }).context,
		);
		expect(manual?.[0][0].json.job_id).toBe(jobId);
	});
	it('Credit Balance Below fires once per drop through the threshold, and again after a rise', async () => {
		const poller = new EmailVerificationPollTrigger();
		const staticData: IDataObject = {};
		const low = sandbox.addAccount({ id: 'acct_low', plan: 'pro', credits: 1001 });
		const high = sandbox.addAccount({ id: 'acct_high', plan: 'pro', credits: 5000 });
		const params = { watchFor: 'creditBalanceBelow', threshold: 1000 };
		const poll = async (apiKey: string, mode: 'trigger' | 'manual' = 'trigger') =>
			poller.poll.call(
				pollContext({ params, credentials: { ...credentials, apiKey }, staticData, mode }).context,
			);
		const spend = async (n: number) => {
			const action = new EmailVerification();
			for (let k = 0; k < n; k++) {
				await action.execute.call(
					executeContext({
						params: {
							resource: 'email',
							operation: 'verify',
							email: `valid.low${k}@example.com`,
							options: {},
						},
						credentials: { ...credentials, apiKey: low.apiKey },
					}).context,
				);
			}
		};
		expect(await poll(low.apiKey)).toBeNull();
		await spend(3);
		const fired = await poll(low.apiKey);
		expect(fired?.[0]).toHaveLength(1);
		expect(fired?.[0][0].json).toMatchObject({ threshold: 1000, credits: 998, credits_short: 2 });
		const id = String(fired?.[0][0].json.id);
		expect(id).toMatch(/^below:1000:/);
		await spend(1);
		expect(await poll(low.apiKey)).toBeNull();
		expect(await poll(low.apiKey)).toBeNull();
		// A test run shows the item without touching the memory.
		expect((await poll(low.apiKey, 'manual'))?.[0][0].json.credits_short).toBe(3);
		// The balance rises (another account's balance stands in for a top-up), then drops again.
		expect(await poll(high.apiKey)).toBeNull();
		const again = await poll(low.apiKey);
		expect(again?.[0]).toHaveLength(1);
		expect(again?.[0][0].json.id).not.toBe(id);
		expect(sandbox.ledger(low.apiKey)).toMatchObject({ credits: 997 });
	});
});
