/**
 * The package inside real n8n, installed the way a self-hosted user installs it: `npm pack`, then
 * `npm install <tarball>` in the user folder's .n8n/nodes, with the published node types
 * (`n8n-nodes-evf.*`) in every workflow. Against the sandbox on loopback, for each n8n version of the
 * run (the pinned 2.8.4 on Node.js 20 always; the newest proven n8n on Node.js 24 in CI or with
 * EVF_N8N_MATRIX=1; see test/harness/ensure-n8n.ts):
 * - headless: `n8n execute` runs workflows that verify, submit and wait by polling, and read results;
 * - server: `n8n start` serves the trigger; every shared signature vector, signed at the current time,
 *   is answered as the vector says, a duplicate starts nothing, a job the sandbox finishes calls the
 *   trigger for real, and a waiting execution resumes on the job's webhook (and on nothing else).
 * Run by `npm run check` in packages/n8n (the root jest config leaves the real-n8n *.e2e.test.ts out).
 */
import { sleep } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { createClient } from '@evf/client/node';
import vectors from '../../../shared/test-vectors/webhook-vectors.json';
import * as runner from './harness/n8n-runner';
import { startReceiver, type Receiver } from './support/receiver';
import { runMcpSession, type McpStepAnswer, type McpTool } from './support/mcp-client';
import { waitFor } from './support/timing';
import { listDir, readText } from './support/files';
import {
	EVF,
	atCurrentTime,
	credential,
	evfNode,
	evfToolNode,
	id16,
	mcpTriggerNode,
	mcpWorkflow,
	manualStart,
	report,
	sandboxCredential,
	triggerNode,
	webhookStart,
	workflow,
	type Row,
	type Vector,
} from './support/workflows';
import {
	rowsOfJobFinishedBeforeWait,
	startByWebhook,
	startWhenActive,
	submitAndWaitByWebhook,
} from './support/wait-by-webhook';

const examplesDir = `${runner.PACKAGE_DIR}/examples`;
const exampleFiles = listDir(examplesDir).filter((file) => file.endsWith('.json'));

// A first run installs n8n (5-10 minutes per version); every step of n8n is slow on a loaded machine.
jest.setTimeout(30 * 60_000);

/** n8n versions whose `$execution.resumeUrl` carries `?signature=` (n8n answers 401 without it). */
const SIGNED_RESUME_URL: Record<string, boolean> = { '2.8.4': false, '2.41.3': true };

function rows(run: runner.RunData, node: string): Row[] {
	const out = runner.nodeOutput(run, node);
	if (!Array.isArray(out))
		throw new Error(`node "${node}" gave no items: ${JSON.stringify(out)?.slice(0, 2000)}`);
	return out;
}

let tarball: string;
beforeAll(() => {
	tarball = runner.packTarball();
});
afterAll(() => runner.discardTarball());

describe.each(runner.matrixVersions())(
	'n8n %s with n8n-nodes-evf installed from its tarball',
	(version) => {
		beforeAll(async () => {
			await runner.ensureN8n(version);
		});

		describe('headless: n8n execute', () => {
			let sandbox: Sandbox;
			let instance: runner.Instance;
			const credentialId = id16('evfcred');
			const ids = {
				verify: id16('wfverify'),
				submitWait: id16('wfsubmit'),
				pipeline: id16('wfpipe'),
				changedRows: id16('wfchange'),
			};

			beforeAll(async () => {
				sandbox = await startSandbox({ port: 0, timeScale: 0.01, allowInsecureWebhooks: true });
				instance = await runner.createInstance({ version });
				runner.installPackage(instance.folder, tarball);
				const data = {
					apiKey: sandbox.apiKey,
					baseUrl: sandbox.baseUrl,
					webhookSecret: sandbox.webhookSecret,
				};
				await runner.importCredentials(instance, [
					credential(credentialId, data),
					// The credential the example workflows refer to.
					{ ...credential('evfSandboxCred01', data), name: 'Email Verification (local sandbox)' },
				]);
				await runner.importWorkflows(instance, [
					// The examples exactly as shipped: they name the published node types.
					...exampleFiles.map((file) => JSON.parse(readText(`${examplesDir}/${file}`)) as Row),
					workflow(ids.verify, 'E2E verify', [
						manualStart(),
						evfNode(
							'Verify Valid',
							{
								resource: 'email',
								operation: 'verify',
								email: 'valid.e2e@example.com',
								options: {},
							},
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
						// A cell a sheet may hold: real n8n hands the node what the expression gives (here nothing).
						evfNode(
							'Verify Empty Cell',
							{
								resource: 'email',
								operation: 'verify',
								email: '={{ $json.no_such_column }}',
								options: {},
							},
							credentialId,
							500,
						),
						evfNode(
							'Get Credits',
							{ resource: 'account', operation: 'getCredits' },
							credentialId,
							600,
						),
					]),
					workflow(ids.submitWait, 'E2E submit and wait', [
						manualStart(),
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
					workflow(ids.changedRows, 'E2E rows changed by later steps', [
						manualStart(),
						evfNode(
							'Rows',
							{
								resource: 'bulkJob',
								operation: 'submit',
								emailSource: 'list',
								emails: 'valid.s1@example.com, valid.s2@example.com, valid.s3@example.com',
								waitForCompletion: true,
								waitMethod: 'polling',
								pollIntervalSeconds: 10,
								timeoutMinutes: 5,
								waitOutput: 'results',
								options: {},
							},
							credentialId,
							200,
						),
						{
							id: crypto.randomUUID(),
							name: 'Change In Code',
							type: 'n8n-nodes-base.code',
							typeVersion: 2,
							position: [400, 0],
							parameters: {
								jsCode:
									"return $input.all().map((item, i) => {\n  item.json.details.label_reasons.push('code ' + i);\n  item.json.details.domain = 'code-' + i;\n  return item;\n});",
							},
						},
						{
							id: crypto.randomUUID(),
							name: 'Change In Set',
							type: 'n8n-nodes-base.set',
							typeVersion: 3.4,
							position: [600, 0],
							parameters: {
								assignments: {
									assignments: [
										{
											id: crypto.randomUUID(),
											name: 'details.domain',
											value: '=set-{{ $itemIndex }}',
											type: 'string',
										},
									],
								},
								includeOtherFields: true,
								options: {},
							},
						},
					]),
					workflow(ids.pipeline, 'E2E submit, wait, results', [
						manualStart(),
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

			it('verifies single addresses, with the 408 as an item and an empty cell as a free verdict, and reads the credit balance', async () => {
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
				expect(rows(run, 'Verify Empty Cell')[0]).toMatchObject({
					category: 'Invalid',
					group: 'invalid',
					credits_used: 0,
					sent: false,
					problem: 'empty',
				});
				expect(typeof rows(run, 'Get Credits')[0].credits).toBe('number');
			});

			it("submits a list with duplicates and a malformed address, waits by polling (n8n-workflow's sleep) and outputs the rows", async () => {
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
					'file-bulk-verify-write-back.json',
					'google-sheets-bulk-verify.json',
					'sample-rows-bulk-verify.json',
					'trigger-results-crm-update.json',
				]);
			});

			it("rows share their repeated parts read-only, yet n8n's Code and Edit Fields nodes change each row on its own copy", async () => {
				const { run } = await runner.executeWorkflow(instance, ids.changedRows);
				const reasons = ['Mail server accepted the recipient', 'Domain has valid MX records'];
				const details = (node: string) =>
					rows(run, node).map((r) => r.details as { domain: string; label_reasons: string[] });
				// What the node gave stays as it was: no later step's change reached it.
				expect(details('Rows')).toEqual(
					[0, 1, 2].map(() =>
						expect.objectContaining({ domain: 'example.com', label_reasons: reasons }),
					),
				);
				expect(details('Change In Code')).toEqual(
					[0, 1, 2].map((i) =>
						expect.objectContaining({
							domain: `code-${i}`,
							label_reasons: [...reasons, `code ${i}`],
						}),
					),
				);
				expect(details('Change In Set').map((d) => d.domain)).toEqual(['set-0', 'set-1', 'set-2']);
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

		describe('server: n8n start', () => {
			const all = vectors as unknown as Vector[];
			let sandbox: Sandbox;
			let receiver: Receiver;
			let instance: runner.Instance;
			let server: runner.N8nProcess;
			/** One trigger workflow per set of signing secrets in the vectors, plus one for the sandbox. */
			const triggers = new Map<
				string,
				{ webhookId: string; workflowId: string; credentialId: string; label: string }
			>();
			const resume = {
				workflowId: id16('wfresume'),
				path: `start-${crypto.randomUUID().slice(0, 8)}`,
			};
			/** A service that finishes every job the moment it is submitted. */
			let instant: Sandbox;
			const instantCredentialId = id16('instcred');
			const failedRead = {
				workflowId: id16('wffail'),
				path: `failed-read-${crypto.randomUUID().slice(0, 8)}`,
			};
			const instantResume = {
				workflowId: id16('wfinst'),
				path: `instant-${crypto.randomUUID().slice(0, 8)}`,
			};
			const mcp = {
				workflowId: id16('wfmcp'),
				path: `evf-${crypto.randomUUID().slice(0, 8)}`,
				token: `mcp-${crypto.randomUUID()}`,
				credentialId: id16('mcpbear'),
			};

			beforeAll(async () => {
				// Real time, so the service's 10 s acknowledgement window applies to n8n as in production; each
				// job stays queued for 10 s, so a test can act while an execution waits for it.
				sandbox = await startSandbox({
					port: 0,
					timeScale: 1,
					queueDelayMs: 10_000,
					allowInsecureWebhooks: true,
				});
				receiver = await startReceiver();
				instant = await startSandbox({
					port: 0,
					timeScale: 0.01,
					queueDelayMs: 0,
					rowsPerSecond: 1_000_000,
					allowInsecureWebhooks: true,
				});
				const port = await runner.freePort();
				instance = await runner.createInstance({ version, port });
				runner.installPackage(instance.folder, tarball);
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
					credentials.push(
						credential(entry.credentialId, {
							apiKey: sandbox.apiKey,
							baseUrl: sandbox.baseUrl,
							webhookSecret: vector.secrets[0],
							previousWebhookSecret: vector.secrets[1] ?? '',
						}),
					);
				}
				const sandboxEntry = {
					webhookId: crypto.randomUUID(),
					workflowId: id16('wfsbx'),
					credentialId: id16('sbxcred'),
					label: 'sandbox',
				};
				triggers.set('sandbox', sandboxEntry);
				credentials.push(sandboxCredential(sandboxEntry.credentialId, sandbox));
				credentials.push(
					sandboxCredential(instantCredentialId, instant),
					credential(mcp.credentialId, { token: mcp.token }, 'httpBearerAuth'),
				);
				await runner.importCredentials(instance, credentials);
				const workflows = [...triggers.values()].map((entry) =>
					workflow(entry.workflowId, `E2E trigger ${entry.label}`, [
						triggerNode(entry.webhookId, entry.credentialId),
						report('Report', `${receiver.url}/ran/${entry.label}`, 200),
					]),
				);
				workflows.push(
					workflow(resume.workflowId, 'E2E resume on webhook', [
						webhookStart(resume.path),
						// Tells the test the URL the job will be given, so it can try it without the service.
						report(
							'Tell Resume URL',
							`${receiver.url}/resume-url`,
							100,
							'={{ JSON.stringify({ resumeUrl: $execution.resumeUrl }) }}',
						),
						submitAndWaitByWebhook(
							'valid.w1@example.com\nfull.w2@example.com',
							sandboxEntry.credentialId,
						),
						report('Report', `${receiver.url}/resumed`, 400),
					]),
					workflow(failedRead.workflowId, 'E2E rows unreadable after the completion call', [
						webhookStart(failedRead.path),
						submitAndWaitByWebhook('valid.fr1@example.com', sandboxEntry.credentialId),
						report('Report', `${receiver.url}/failed-read-continued`, 400),
					]),
				);
				workflows.push(
					workflow(instantResume.workflowId, 'E2E job finished before the wait', [
						webhookStart(instantResume.path),
						submitAndWaitByWebhook(
							'valid.n1@example.com\nfull.n2@example.com',
							instantCredentialId,
						),
						report('Report', `${receiver.url}/instant`, 400),
					]),
				);
				// The tools an agent gets: Verify and the bulk-job reads, their inputs filled by $fromAI.
				const jobIdFromAi = {
					__rl: true,
					mode: 'id',
					value: "={{ $fromAI('job_id', 'The job ID that Submit or list_jobs gave', 'string') }}",
				};
				workflows.push(
					mcpWorkflow(
						mcp.workflowId,
						'E2E MCP server',
						mcpTriggerNode(mcp.path, mcp.credentialId),
						[
							evfToolNode(
								'verify_email',
								{
									resource: 'email',
									operation: 'verify',
									email: "={{ $fromAI('email', 'The email address to verify', 'string') }}",
									options: {},
								},
								instantCredentialId,
								0,
							),
							evfToolNode(
								'get_job',
								{ resource: 'bulkJob', operation: 'get', jobId: jobIdFromAi },
								instantCredentialId,
								200,
							),
							evfToolNode(
								'list_jobs',
								{
									resource: 'bulkJob',
									operation: 'getMany',
									returnAll: false,
									limit: 5,
									filters: {},
								},
								instantCredentialId,
								400,
							),
							evfToolNode(
								'get_results',
								{
									resource: 'bulkJob',
									operation: 'getResults',
									jobId: jobIdFromAi,
									returnAll: true,
									sheetFields: true,
								},
								instantCredentialId,
								600,
							),
						],
					),
				);
				await runner.importWorkflows(instance, workflows);
				for (const wf of workflows) await runner.publishWorkflow(instance, String(wf.id));
				server = await runner.startN8n({ instance });
				// Published workflows are activated after the server answers: wait until each trigger path exists.
				for (const entry of triggers.values()) {
					const url = `${server.url}/webhook/${entry.webhookId}/bulk-job-finished`;
					await waitFor(
						async () => (await fetch(url, { method: 'POST', body: '{}' })).status !== 404,
						{
							timeoutMs: 120_000,
							what: `trigger ${entry.label} active`,
						},
					);
				}
			});
			afterAll(async () => {
				await server?.stop();
				await receiver?.close();
				await sandbox?.close();
				await instant?.close();
				if (instance) runner.removeInstance(instance);
			});

			function triggerUrl(secrets: string[] | 'sandbox'): string {
				const entry = triggers.get(secrets === 'sandbox' ? 'sandbox' : secrets.join('|'))!;
				return `${server.url}/webhook/${entry.webhookId}/bulk-job-finished`;
			}

			it('answers 401 to every bad vector and 200 to every good one (signed now), and each job starts one execution', async () => {
				const outcomes: string[] = [];
				for (const original of all) {
					const vector = atCurrentTime(original, Math.floor(Date.now() / 1000));
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
						.map(
							(v) => `${triggers.get(v.secrets.join('|'))!.label}:${JSON.parse(v.rawBody).job_id}`,
						),
				);
				await waitFor(
					() =>
						receiver.deliveries.filter((d) => d.url.startsWith('/ran/set')).length >= expected.size,
					{ timeoutMs: 120_000, what: 'trigger executions' },
				);
				const again = atCurrentTime(
					all.find((v) => v.name === 'valid_completed')!,
					Math.floor(Date.now() / 1000),
				);
				const repeat = await fetch(triggerUrl(again.secrets), {
					method: 'POST',
					headers: again.headers,
					body: again.rawBody,
				});
				expect(repeat.status).toBe(200);
				expect(await repeat.json()).toEqual({ received: true, duplicate: true });
				await sleep(3000);
				const ran = receiver.deliveries
					.filter((d) => d.url.startsWith('/ran/set'))
					.map((d) => `${d.url.slice(5)}:${JSON.parse(d.rawBody).job_id}`);
				expect(ran.sort()).toEqual([...expected].sort());
			});

			it('loaded the action node, its AI tool variant and both triggers from .n8n/nodes under the published names', async () => {
				let types: string[] | undefined;
				await waitFor(() => (types = runner.loadedNodeTypes(instance)) !== undefined, {
					timeoutMs: 120_000,
					what: 'node types written',
				});
				for (const type of [
					'emailVerification',
					'emailVerificationTool',
					'emailVerificationTrigger',
					'emailVerificationPollTrigger',
				]) {
					expect(types).toContain(`${EVF}.${type}`);
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
				const delivery = await receiver.next(120_000, (d) => d.url === '/ran/sandbox');
				expect(JSON.parse(delivery.rawBody)).toMatchObject({
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

			it("pauses on Submit and resumes when the job's webhook calls $execution.resumeUrl as n8n gave it; a forged call does not resume it", async () => {
				expect(await startByWebhook(server.url, resume.path)).toBe(200);
				const told = await receiver.next(120_000, (d) => d.url === '/resume-url');
				const resumeUrl = new URL(JSON.parse(told.rawBody).resumeUrl as string);
				expect(resumeUrl.searchParams.has('signature')).toBe(SIGNED_RESUME_URL[version]);

				// While the job is queued, a call without the service's signature (and, where n8n signs its
				// resume URLs, without n8n's) is refused and the execution keeps waiting.
				const forged = resumeUrl.origin + resumeUrl.pathname;
				let status = 0;
				await waitFor(
					async () => {
						status = (await fetch(forged, { method: 'POST', body: '{"job_id":"forged"}' })).status;
						return status !== 404 && status !== 409;
					},
					{ timeoutMs: 60_000, what: 'the execution waiting for its webhook' },
				);
				expect(status).toBe(401);

				const reported = [
					await receiver.next(120_000, (d) => d.url === '/resumed'),
					await receiver.next(30_000, (d) => d.url === '/resumed'),
				].map((d) => JSON.parse(d.rawBody));
				expect(reported.map((r) => [r.email, r.category])).toEqual([
					['valid.w1@example.com', 'Valid'],
					['full.w2@example.com', 'Inbox Full'],
				]);
				// The job's one delivery to the resume URL was acknowledged at the first attempt.
				const acknowledged = sandbox.webhookAttempts.filter((a) => a.outcome === 'acknowledged');
				expect(acknowledged.length).toBeGreaterThanOrEqual(2);
			});

			it('when the rows cannot be read after the completion call was answered, the error names the job, no row reaches the next node, and n8n keeps serving', async () => {
				const client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
				expect(await startWhenActive(server.url, failedRead.path)).toBe(200);
				// The job is queued for 10 s: every read of its rows fails from now on.
				let jobId = '';
				await waitFor(
					async () => {
						const { jobs } = await client.listJobs();
						jobId = jobs.find((j) => j.total_emails === 1 && j.status === 'queued')?.job_id ?? '';
						return jobId !== '';
					},
					{ timeoutMs: 60_000, what: 'the submitted job' },
				);
				sandbox.faults.failNext({ path: new RegExp(`${jobId}/results`), status: 500, count: 100 });
				await waitFor(() => sandbox.webhookAttempts.some((a) => a.jobId === jobId), {
					timeoutMs: 120_000,
					what: 'the completion call',
				});
				// Answered at once, before the failing read: the service has its acknowledgement.
				expect(
					sandbox.webhookAttempts.filter((a) => a.jobId === jobId).map((a) => a.outcome),
				).toEqual(['acknowledged']);
				// n8n does not stop a resumed execution whose webhook method failed: it records the error
				// and hands the next node one empty item (n8n's webhook-helpers, both versions). No row
				// reaches it, and the error names the job.
				const continued = await receiver.next(60_000, (d) => d.url === '/failed-read-continued');
				expect(JSON.parse(continued.rawBody)).toEqual({});
				expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
				await waitFor(
					() => server.logs().includes(`Bulk job ${jobId} finished, but reading it failed`),
					{ timeoutMs: 30_000, what: "the node's error in n8n's log" },
				);
			});

			it('a job the service finishes at once, before the execution could wait for it, continues the execution exactly once', async () => {
				expect(await startWhenActive(server.url, instantResume.path)).toBe(200);
				const run = await rowsOfJobFinishedBeforeWait(receiver, instant, '/instant', 120_000);
				// The rows came without the service's second attempt (2 s later): n8n refused the first one
				// while the execution ran, and the node had read the finished job itself.
				expect(run.attemptsAtFirstRow.every((a) => a.attempt === 1)).toBe(true);
				expect(run.reported.map((r) => [r.email, r.category])).toEqual([
					['valid.n1@example.com', 'Valid'],
					['full.n2@example.com', 'Inbox Full'],
				]);
				// Later attempts of the delivery resume nothing: n8n answers that the execution finished.
				expect(run.attempts.map((a) => [a.outcome, a.status])).not.toContainEqual([
					'acknowledged',
					200,
				]);
			});

			it("serves this package's tools to a real MCP client through the MCP Server Trigger: described for agents, Verify and the bulk-job reads answer from the service, a malformed address is a free Invalid verdict and an unknown job a readable tool error", async () => {
				const url = `${server.url}/mcp/${mcp.path}`;
				const client = createClient({ apiKey: instant.apiKey, baseUrl: instant.baseUrl });
				// A finished job for the bulk-job reads.
				const submission = await client.submitList({
					emails: ['valid.m2@example.com', 'invalid.m3@example.com'],
				});
				const jobId = submission.jobs[0].job_id;
				await client.waitForJob(jobId, { intervalMs: 1000, timeoutMs: 60_000 });
				const creditsBefore = (await client.getCredits()).credits;

				// Bearer auth: without the token the endpoint refuses the client.
				const refused = await runMcpSession({
					url,
					token: 'wrong-token',
					transport: 'streamable-http',
					steps: [{ kind: 'list' }],
				});
				expect(refused.answers).toEqual([]);
				expect(refused.error).toBeDefined();

				const session = await runMcpSession({
					url,
					token: mcp.token,
					transport: 'streamable-http',
					steps: [
						{ kind: 'list' },
						{ kind: 'call', name: 'verify_email', args: { email: 'valid.m1@example.com' } },
						{ kind: 'call', name: 'verify_email', args: { email: 'not an address' } },
						{ kind: 'call', name: 'list_jobs', args: {} },
						{ kind: 'call', name: 'get_job', args: { job_id: jobId } },
						{ kind: 'call', name: 'get_results', args: { job_id: jobId } },
						{ kind: 'call', name: 'get_job', args: { job_id: 'job_does_not_exist' } },
					],
				});
				expect(session.error).toBeUndefined();
				const [listed, verified, bad, jobs, job, results, unknown] = session.answers as [
					Extract<McpStepAnswer, { kind: 'list' }>,
					...Array<Extract<McpStepAnswer, { kind: 'call' }>>,
				];
				const tools = new Map<string, McpTool>(listed.tools.map((t) => [t.name, t]));
				expect([...tools.keys()].sort()).toEqual([
					'get_job',
					'get_results',
					'list_jobs',
					'verify_email',
				]);
				// What each tool does, costs and needs, in the description the model reads.
				expect(tools.get('verify_email')?.description).toMatch(
					/^Verify one email address for 1 credit given the address/,
				);
				expect(tools.get('get_results')?.description).toMatch(/given its job ID for free/);
				expect(tools.get('list_jobs')?.description).toMatch(/^Get many bulk jobs .* for free/);
				// $fromAI makes the tool's input: the model sees the field and what to put in it.
				expect(tools.get('verify_email')?.inputSchema).toMatchObject({
					properties: { email: { type: 'string', description: 'The email address to verify' } },
				});
				expect(tools.get('get_job')?.inputSchema).toMatchObject({
					properties: { job_id: { type: 'string' } },
				});

				expect(verified).toMatchObject({ isError: false });
				expect(verified.text).toContain('"category":"Valid"');
				expect(verified.text).toContain('"group":"safe_to_send"');
				expect(verified.text).toContain('"safe_to_send":true');
				// What a sheet's cell may hold reaches the model as a verdict it can act on, not a failure.
				expect(bad.isError).toBe(false);
				expect(bad.text).toContain('"category":"Invalid"');
				expect(bad.text).toContain('"credits_used":0');
				expect(bad.text).toContain('not an address');
				// One credit for the one real verification; the malformed address cost nothing.
				expect((await client.getCredits()).credits).toBe(creditsBefore - 1);

				expect(jobs).toMatchObject({ isError: false });
				expect(jobs.text).toContain(jobId);
				expect(job.text).toContain('"status":"completed"');
				expect(results).toMatchObject({ isError: false });
				expect(results.text).toContain('"email":"valid.m2@example.com"');
				expect(results.text).toContain('"group":"invalid"');
				expect(unknown.isError).toBe(true);
				expect(unknown.text).toMatch(/job_does_not_exist|not found/i);

				// The same server over SSE, the transport older MCP hosts use.
				const sse = await runMcpSession({
					url,
					token: mcp.token,
					transport: 'sse',
					steps: [{ kind: 'call', name: 'verify_email', args: { email: 'valid.m4@example.com' } }],
				});
				expect(sse.error).toBeUndefined();
				expect(sse.answers[0]).toMatchObject({ kind: 'call', isError: false });
			});
		});
	},
);
