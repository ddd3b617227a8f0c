/**
 * The package inside a real n8n 2.8.4 (installed by scripts/ensure-n8n.cjs, cached outside the repo),
 * loaded through N8N_CUSTOM_EXTENSIONS, against the sandbox on loopback:
 * - headless: `n8n execute` runs workflows that verify, submit and wait, and read results;
 * - server: `n8n start` serves the trigger; every shared signature vector is delivered to it at the
 *   vectors' receiver clock (n8n runs under libfaketime), a duplicate starts nothing, a job the sandbox
 *   finishes calls the trigger for real, and a waiting execution resumes on the job's webhook.
 * Run by `npm run check` in packages/n8n (the root jest config leaves *.e2e-n8n.test.ts out).
 */
import { sleep } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { createClient } from '@evf/client/node';
import vectors from '../../../shared/test-vectors/webhook-vectors.json';
import * as runner from '../scripts/n8n-runner.cjs';
import { startReceiver, type Receiver } from './support/receiver.cjs';
import { waitFor } from './support/timing.cjs';
import { exists, listDir, readText } from './support/files.cjs';

const examplesDir = `${runner.DIST_DIR}/../examples`;
const exampleFiles = listDir(examplesDir).filter((file) => file.endsWith('.json'));

jest.setTimeout(20 * 60_000);

type Row = Record<string, unknown>;
interface Vector {
	name: string;
	secrets: string[];
	headers: Record<string, string>;
	rawBody: string;
	now: number;
	expect: 'accept' | 'reject';
}

const EVF = runner.CUSTOM_PREFIX;

function id16(prefix: string): string {
	return `${prefix}${crypto.randomUUID().replace(/-/g, '')}`.slice(0, 16);
}

function start(): Row {
	return {
		id: crypto.randomUUID(),
		name: 'Start',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

function evfNode(name: string, parameters: Row, credentialId: string, x: number): Row {
	return {
		id: crypto.randomUUID(),
		name,
		type: `${EVF}.emailVerification`,
		typeVersion: 1,
		position: [x, 0],
		parameters,
		credentials: { emailVerificationApi: { id: credentialId, name: credentialId } },
	};
}

function chain(names: string[]): Row {
	const connections: Row = {};
	for (let i = 0; i < names.length - 1; i++) {
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

function workflow(id: string, name: string, nodes: Row[]): Row {
	return {
		id,
		name,
		nodes,
		connections: chain(nodes.map((n) => String(n.name))),
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

function rows(run: unknown, node: string): Row[] {
	const out = runner.nodeOutput(run, node);
	if (!Array.isArray(out))
		throw new Error(`node "${node}" gave no items: ${JSON.stringify(out)?.slice(0, 2000)}`);
	return out;
}

beforeAll(async () => {
	await runner.ensureN8n();
	runner.buildPackage();
});

describe('headless: n8n execute', () => {
	let sandbox: Sandbox;
	let instance: runner.Instance;
	const credentialId = id16('evfcred');
	const ids = { verify: id16('wfverify'), submitWait: id16('wfsubmit'), pipeline: id16('wfpipe') };

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, timeScale: 0.01, allowInsecureWebhooks: true });
		instance = await runner.createInstance();
		await runner.importCredentials(instance, [
			{
				id: credentialId,
				name: credentialId,
				type: 'emailVerificationApi',
				data: {
					apiKey: sandbox.apiKey,
					baseUrl: sandbox.baseUrl,
					webhookSecret: sandbox.webhookSecret,
				},
			},
			// The credential the example workflows refer to.
			{
				id: 'evfSandboxCred01',
				name: 'Email Verification (local sandbox)',
				type: 'emailVerificationApi',
				data: {
					apiKey: sandbox.apiKey,
					baseUrl: sandbox.baseUrl,
					webhookSecret: sandbox.webhookSecret,
				},
			},
		]);
		await runner.importWorkflows(
			instance,
			exampleFiles.map((file) =>
				runner.forCustomExtensions(JSON.parse(readText(`${examplesDir}/${file}`))),
			),
		);
		await runner.importWorkflows(instance, [
			workflow(ids.verify, 'E2E verify', [
				start(),
				evfNode(
					'Verify Valid',
					{ resource: 'email', operation: 'verify', email: 'valid.e2e@example.com', options: {} },
					credentialId,
					200,
				),
				evfNode(
					'Verify Slow',
					{
						resource: 'email',
						operation: 'verify',
						email: 'slow.e2e@example.com',
						options: { onTimeout: 'output' },
					},
					credentialId,
					400,
				),
				evfNode('Get Credits', { resource: 'account', operation: 'getCredits' }, credentialId, 600),
			]),
			workflow(ids.submitWait, 'E2E submit and wait', [
				start(),
				evfNode(
					'Submit And Wait',
					{
						resource: 'bulkJob',
						operation: 'submit',
						emailSource: 'list',
						emails:
							'valid.a@example.com\nVALID.A@example.com\nbroken@\ncatchall.b@example.com\ninfo@example.com',
						waitForCompletion: true,
						waitMethod: 'polling',
						pollIntervalSeconds: 10,
						timeoutMinutes: 5,
						waitOutput: 'results',
						options: { name: 'E2E list' },
					},
					credentialId,
					200,
				),
			]),
			workflow(ids.pipeline, 'E2E submit, wait, results', [
				start(),
				evfNode(
					'Submit',
					{
						resource: 'bulkJob',
						operation: 'submit',
						emailSource: 'list',
						emails: 'valid.c@example.com, invalid.d@example.com, valid.e@example.com',
						waitForCompletion: false,
						options: {},
					},
					credentialId,
					200,
				),
				evfNode(
					'Wait',
					{
						resource: 'bulkJob',
						operation: 'waitForCompletion',
						jobId: { __rl: true, mode: 'id', value: '={{ $json.job_id }}' },
						waitMethod: 'polling',
						pollIntervalSeconds: 10,
						timeoutMinutes: 5,
						waitOutput: 'job',
					},
					credentialId,
					400,
				),
				evfNode(
					'Results',
					{
						resource: 'bulkJob',
						operation: 'getResults',
						jobId: { __rl: true, mode: 'id', value: '={{ $json.job_id }}' },
						returnAll: true,
						groups: ['safe_to_send'],
						simplify: true,
					},
					credentialId,
					600,
				),
			]),
		]);
	});
	afterAll(async () => {
		await sandbox?.close();
		if (instance) runner.removeInstance(instance);
	});

	it('verifies single addresses, with the 408 as an item, and reads the credit balance', async () => {
		const { run } = await runner.executeWorkflow(instance, ids.verify);
		expect(rows(run, 'Verify Valid')[0]).toMatchObject({
			email: 'valid.e2e@example.com',
			category: 'Valid',
			group: 'safe_to_send',
			safe_to_send: true,
		});
		expect(rows(run, 'Verify Slow')[0]).toMatchObject({
			email: 'slow.e2e@example.com',
			timed_out: true,
		});
		expect(typeof rows(run, 'Get Credits')[0].credits).toBe('number');
	});

	it('submits a list with duplicates and a malformed address, waits by polling and outputs the rows', async () => {
		const charged = sandbox.ledger(sandbox.apiKey).charged;
		const { run } = await runner.executeWorkflow(instance, ids.submitWait);
		const out = rows(run, 'Submit And Wait');
		expect(out.map((r) => [r.email, r.group])).toEqual([
			['valid.a@example.com', 'safe_to_send'],
			['catchall.b@example.com', 'risky'],
			['info@example.com', 'risky'],
		]);
		expect(sandbox.ledger(sandbox.apiKey).charged - charged).toBe(3);
	});

	it('runs the sample-rows example: one job for all rows, routed by group (Code node, Switch)', async () => {
		const { run } = await runner.executeWorkflow(instance, 'evfExampleRows01');
		const emails = (node: string) => rows(run, node).map((r) => r.email);
		expect(emails('Send: Add to Campaign')).toEqual(['valid.anna@acme-corp.com']);
		expect(emails('Hold: Review Later')).toEqual([
			'info@acme-corp.com',
			'catchall.bob@bigco.com',
			'full.erik@example.com',
		]);
		expect(emails('Drop: Remove From List')).toEqual([
			'invalid.carl@nowhere.org',
			'temp.dora@mailinator.com',
		]);
	});

	it('imported every example workflow (n8n import:workflow accepted them)', () => {
		expect(exampleFiles.sort()).toEqual([
			'ai-agent-email-tool.json',
			'google-sheets-bulk-verify.json',
			'sample-rows-bulk-verify.json',
			'trigger-results-crm-update.json',
		]);
	});

	it('chains Submit, Wait for Completion and Get Results through expressions', async () => {
		const { run } = await runner.executeWorkflow(instance, ids.pipeline);
		expect(rows(run, 'Submit')[0]).toMatchObject({ status: 'queued', total_emails: 3 });
		expect(rows(run, 'Wait')[0]).toMatchObject({ status: 'completed', terminal: true });
		expect(rows(run, 'Results')).toEqual([
			expect.objectContaining({ email: 'valid.c@example.com', group: 'safe_to_send' }),
			expect.objectContaining({ email: 'valid.e@example.com', group: 'safe_to_send' }),
		]);
	});
});

describe("server: n8n start at the signature vectors' clock", () => {
	const all = vectors as unknown as Vector[];
	const frozen = all[0].now * 1000;
	let sandbox: Sandbox;
	let receiver: Receiver;
	let instance: runner.Instance;
	let server: runner.Server;
	/** One trigger workflow per set of signing secrets in the vectors, plus one for the sandbox. */
	const triggers = new Map<
		string,
		{ webhookId: string; workflowId: string; credentialId: string; label: string }
	>();
	const resume = { workflowId: id16('wfresume'), path: `start-${crypto.randomUUID().slice(0, 8)}` };

	function triggerWorkflow(entry: {
		webhookId: string;
		workflowId: string;
		credentialId: string;
		label: string;
	}): Row {
		return workflow(entry.workflowId, `E2E trigger ${entry.label}`, [
			{
				id: crypto.randomUUID(),
				name: 'On Bulk Job Finished',
				type: `${EVF}.emailVerificationTrigger`,
				typeVersion: 1,
				position: [0, 0],
				webhookId: entry.webhookId,
				parameters: { output: 'job' },
				credentials: { emailVerificationApi: { id: entry.credentialId, name: entry.credentialId } },
			},
			{
				id: crypto.randomUUID(),
				name: 'Report',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [200, 0],
				parameters: {
					method: 'POST',
					url: `${receiver.url}/ran/${entry.label}`,
					sendBody: true,
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify($json) }}',
					options: {},
				},
			},
		]);
	}

	beforeAll(async () => {
		// Real time: the service's 10 s acknowledgement window applies to n8n as it would in production.
		sandbox = await startSandbox({
			port: 0,
			timeScale: 1,
			allowInsecureWebhooks: true,
			now: () => frozen,
		});
		receiver = await startReceiver();
		const port = await runner.freePort();
		instance = await runner.createInstance({ port });
		const credentials: Row[] = [];
		for (const vector of all) {
			const key = vector.secrets.join('|');
			if (triggers.has(key)) continue;
			const entry = {
				webhookId: crypto.randomUUID(),
				workflowId: id16('wftrig'),
				credentialId: id16('vcred'),
				label: `set${triggers.size}`,
			};
			triggers.set(key, entry);
			credentials.push({
				id: entry.credentialId,
				name: entry.credentialId,
				type: 'emailVerificationApi',
				data: {
					apiKey: sandbox.apiKey,
					baseUrl: sandbox.baseUrl,
					webhookSecret: vector.secrets[0],
					previousWebhookSecret: vector.secrets[1] ?? '',
				},
			});
		}
		const sandboxEntry = {
			webhookId: crypto.randomUUID(),
			workflowId: id16('wfsbx'),
			credentialId: id16('sbxcred'),
			label: 'sandbox',
		};
		triggers.set('sandbox', sandboxEntry);
		credentials.push({
			id: sandboxEntry.credentialId,
			name: sandboxEntry.credentialId,
			type: 'emailVerificationApi',
			data: {
				apiKey: sandbox.apiKey,
				baseUrl: sandbox.baseUrl,
				webhookSecret: sandbox.webhookSecret,
			},
		});
		await runner.importCredentials(instance, credentials);
		const workflows = [...triggers.values()].map(triggerWorkflow);
		workflows.push(
			workflow(resume.workflowId, 'E2E resume on webhook', [
				{
					id: crypto.randomUUID(),
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: crypto.randomUUID(),
					parameters: {
						httpMethod: 'POST',
						path: resume.path,
						responseMode: 'onReceived',
						options: {},
					},
				},
				evfNode(
					'Submit And Wait',
					{
						resource: 'bulkJob',
						operation: 'submit',
						emailSource: 'list',
						emails: 'valid.w1@example.com\nfull.w2@example.com',
						waitForCompletion: true,
						waitMethod: 'webhook',
						timeoutMinutes: 30,
						pollIntervalSeconds: 10,
						waitOutput: 'results',
						resultOptions: {},
						options: {},
					},
					sandboxEntry.credentialId,
					200,
				),
				{
					id: crypto.randomUUID(),
					name: 'Report',
					type: 'n8n-nodes-base.httpRequest',
					typeVersion: 4.2,
					position: [400, 0],
					parameters: {
						method: 'POST',
						url: `${receiver.url}/resumed`,
						sendBody: true,
						specifyBody: 'json',
						jsonBody: '={{ JSON.stringify($json) }}',
						options: {},
					},
				},
			]),
		);
		await runner.importWorkflows(instance, workflows);
		for (const wf of workflows) await runner.publishWorkflow(instance, String(wf.id));
		server = await runner.startServer(instance, { frozenTime: frozen });
		// Published workflows are activated after the server answers: wait until each trigger path exists.
		for (const entry of triggers.values()) {
			const url = `${server.url}/webhook/${entry.webhookId}/bulk-job-finished`;
			await waitFor(async () => (await fetch(url, { method: 'POST', body: '{}' })).status !== 404, {
				timeoutMs: 60_000,
				what: `trigger ${entry.label} active`,
			});
		}
	});
	afterAll(async () => {
		await server?.stop();
		await receiver?.close();
		await sandbox?.close();
		if (instance) runner.removeInstance(instance);
	});

	function triggerUrl(secrets: string[] | 'sandbox'): string {
		const entry = triggers.get(secrets === 'sandbox' ? 'sandbox' : secrets.join('|'))!;
		return `${server.url}/webhook/${entry.webhookId}/bulk-job-finished`;
	}

	it('answers 401 to every bad vector and 200 to every good one, and each job starts one execution', async () => {
		const outcomes: string[] = [];
		for (const vector of all) {
			const response = await fetch(triggerUrl(vector.secrets), {
				method: 'POST',
				headers: vector.headers,
				body: vector.rawBody,
			});
			await response.text();
			outcomes.push(`${vector.name}: ${response.status}`);
		}
		expect(outcomes).toEqual(all.map((v) => `${v.name}: ${v.expect === 'accept' ? 200 : 401}`));

		// Accepted deliveries start one execution per job ID and set of secrets; repeats start nothing.
		const expected = new Set(
			all
				.filter((v) => v.expect === 'accept')
				.map((v) => `${triggers.get(v.secrets.join('|'))!.label}:${JSON.parse(v.rawBody).job_id}`),
		);
		await waitFor(
			() => receiver.deliveries.filter((d) => d.url.startsWith('/ran/set')).length >= expected.size,
			{ timeoutMs: 60_000, what: 'trigger executions' },
		);
		const again = all.find((v) => v.name === 'valid_completed')!;
		const repeat = await fetch(triggerUrl(again.secrets), {
			method: 'POST',
			headers: again.headers,
			body: again.rawBody,
		});
		expect(repeat.status).toBe(200);
		expect(await repeat.json()).toEqual({ received: true, duplicate: true });
		await sleep(2000);
		const ran = receiver.deliveries
			.filter((d) => d.url.startsWith('/ran/set'))
			.map((d) => `${d.url.slice(5)}:${JSON.parse(d.rawBody).job_id}`);
		expect(ran.sort()).toEqual([...expected].sort());
	});

	it('n8n loaded the action node, its AI tool variant and both triggers from the custom extension folder', async () => {
		// n8n writes the node types it loaded for its editor into the instance's static cache.
		const file = `${instance.folder}/.cache/n8n/public/types/nodes.json`;
		await waitFor(() => exists(file), { timeoutMs: 60_000, what: 'node types written' });
		const types = JSON.parse(readText(file)) as Array<{ name: string; usableAsTool?: boolean }>;
		const names = types.map((t) => t.name);
		for (const type of [
			'emailVerification',
			'emailVerificationTool',
			'emailVerificationTrigger',
			'emailVerificationPollTrigger',
		]) {
			expect(names).toContain(`${EVF}.${type}`);
		}
	});

	it('runs the workflow when the sandbox finishes a job and calls the trigger with a signed webhook', async () => {
		const client = createClient({
			apiKey: sandbox.apiKey,
			baseUrl: sandbox.baseUrl,
			webhookUrl: { allowLoopbackHttp: true },
		});
		const job = await client.submitBulk({
			emails: ['valid.s1@example.com', 'invalid.s2@example.com'],
			webhook_url: triggerUrl('sandbox'),
		});
		await waitFor(() => receiver.deliveries.some((d) => d.url === '/ran/sandbox'), {
			timeoutMs: 60_000,
			what: 'trigger run from the sandbox webhook',
		});
		const report = JSON.parse(receiver.deliveries.find((d) => d.url === '/ran/sandbox')!.rawBody);
		expect(report).toMatchObject({
			job_id: job.job_id,
			event: 'job.completed',
			status: 'completed',
			total_emails: 2,
		});
		// The sandbox logs the attempt once n8n's answer is in: acknowledged at the first attempt.
		await waitFor(() => sandbox.webhookAttempts.some((a) => a.jobId === job.job_id), {
			what: 'delivery logged',
		});
		expect(
			sandbox.webhookAttempts.filter((a) => a.jobId === job.job_id).map((a) => a.outcome),
		).toEqual(['acknowledged']);
	});

	it("pauses an execution on Submit and resumes it when the job's webhook calls the resume URL", async () => {
		const started = await fetch(`${server.url}/webhook/${resume.path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{}',
		});
		expect(started.status).toBe(200);
		await waitFor(() => receiver.deliveries.filter((d) => d.url === '/resumed').length >= 2, {
			timeoutMs: 90_000,
			what: 'resumed execution',
		});
		const reported = receiver.deliveries
			.filter((d) => d.url === '/resumed')
			.map((d) => JSON.parse(d.rawBody));
		expect(reported.map((r) => [r.email, r.category])).toEqual([
			['valid.w1@example.com', 'Valid'],
			['full.w2@example.com', 'Inbox Full'],
		]);
		// The sandbox job that called the resume URL got its 2xx at the first attempt.
		const resumedJobs = sandbox.webhookAttempts.filter((a) => a.outcome === 'acknowledged');
		expect(resumedJobs.length).toBeGreaterThanOrEqual(2);
	});
});
