/**
 * The package in n8n's queue mode, the way n8n scales past one process: a main process, one worker
 * and one webhook process, each with its own user folder and the package installed there from the
 * tarball (n8n's queue-mode docs: install community nodes on every process), sharing one PostgreSQL
 * database, one Redis and one encryption key. The suite starts PostgreSQL and Redis itself
 * (test/harness/queue-services.ts). Every process is told its role in EVF_N8N_PROCESS, and the workflows
 * write `$env.EVF_N8N_PROCESS` into what they send, so the test sees where each step really ran.
 * Proven here:
 * - a webhook-started workflow's Submit runs on the worker, pauses, and the sandbox's completion call
 *   (to the resume URL, served by the webhook process) resumes it on the worker;
 * - the trigger starts exactly one execution per job, also when the same completion arrives twice at once;
 * - Get Results with Return All reads a 50,000-row job on the worker, default output (memory reported);
 * - a job the service finishes at once, before the execution could pause, continues it exactly once;
 * - Submit of 50,000 addresses waiting by webhook with Result Rows: the webhook process acknowledges
 *   the completion delivery within a second and reads the rows after (memory of each process reported);
 * - both 50,000-row cases finish with the worker and the webhook process each inside a 512 MiB
 *   container (a memory cgroup: Node.js sizes V8's heap from it as in Docker), and neither process runs
 *   out of memory, also while n8n saves the execution after its last node.
 */
import { buildWebhookDelivery, createClient, type WebhookBody } from '@evf/client/node';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { sleep } from 'n8n-workflow';
import * as runner from './harness/n8n-runner';
import * as services from './harness/queue-services';
import { createMemoryLimit, memoryLimitsForSuite, type MemoryLimit } from './harness/memory-limit';
import { startReceiver, type Receiver } from './support/receiver';
import { waitFor } from './support/timing';
import {
	evfNode,
	id16,
	report,
	sandboxCredential,
	triggerNode,
	webhookStart,
	workflow,
	type Row,
} from './support/workflows';
import {
	rowsOfJobFinishedBeforeWait,
	startByWebhook,
	submitAndWaitByWebhook,
} from './support/wait-by-webhook';

jest.setTimeout(30 * 60_000);

const available = services.queueModeAvailable();
const BIG_JOB_ROWS = 50_000;
/** The memory many self-hosted n8n containers get; the worker and the webhook process each run in one. */
const CONTAINER_MIB = 512;
/** Without a way to limit memory here the processes run unlimited (CI requires the limits). */
const noContainer =
	available &&
	!memoryLimitsForSuite(
		`queue mode, the worker's and webhook process's ${CONTAINER_MIB} MiB containers`,
	);

afterAll(() => runner.discardTarball());

/** n8n's Summarize node counting the rows and the distinct addresses. */
function countEmails(x: number): Row {
	return {
		id: crypto.randomUUID(),
		name: 'Count',
		type: 'n8n-nodes-base.summarize',
		typeVersion: 1.1,
		position: [x, 0],
		parameters: {
			fieldsToSummarize: {
				values: [
					{ aggregation: 'count', field: 'email' },
					{ aggregation: 'countUnique', field: 'email' },
				],
			},
			options: {},
		},
	};
}

/** The process a step ran on, as the workflow reports it. */
const WHERE = '$env.EVF_N8N_PROCESS';

/** Reports each row it gets to `url`: its job, address and category, and the process it ran on. */
function reportRows(url: string): Row {
	return report(
		'Report',
		url,
		400,
		`={{ JSON.stringify({ job_id: $json.job_id, email: $json.email, category: $json.category, process: ${WHERE} }) }}`,
	);
}

/** Reports the Count node's counts to `url`, and the process it ran on. */
function reportCounts(url: string): Row {
	return report(
		'Report',
		url,
		600,
		`={{ JSON.stringify({ rows: $json.count_email, unique: $json.unique_count_email, process: ${WHERE} }) }}`,
	);
}

(available ? describe.each(runner.matrixVersions()) : describe.skip.each(runner.matrixVersions()))(
	'queue mode on n8n %s: main + worker + webhook process, PostgreSQL, Redis',
	(version) => {
		let postgres: services.Postgres | undefined;
		let redis: services.Redis | undefined;
		let sandbox: Sandbox;
		let receiver: Receiver;
		const instances: runner.Instance[] = [];
		const processes: runner.N8nProcess[] = [];
		let worker: runner.N8nProcess;
		let webhookUrl: string;
		const credentialId = id16('qcred');
		const trigger = { workflowId: id16('wfqtrig'), webhookId: crypto.randomUUID() };
		const resume = {
			workflowId: id16('wfqres'),
			path: `q-submit-${crypto.randomUUID().slice(0, 8)}`,
		};
		const big = {
			workflowId: id16('wfqbig'),
			path: `q-results-${crypto.randomUUID().slice(0, 8)}`,
		};
		/** A service that finishes each job the moment it is submitted. */
		let instant: Sandbox;
		const instantCredentialId = id16('qinst');
		const instantResume = {
			workflowId: id16('wfqins'),
			path: `q-instant-${crypto.randomUUID().slice(0, 8)}`,
		};
		/** A service that keeps each job queued for 5 s: the execution pauses before the job finishes. */
		let queued: Sandbox;
		const queuedCredentialId = id16('qqueued');
		const bigResume = {
			workflowId: id16('wfqbsw'),
			path: `q-big-wait-${crypto.randomUUID().slice(0, 8)}`,
		};
		let webhookProcess: runner.N8nProcess;
		const limits: MemoryLimit[] = [];
		const limit = (): MemoryLimit | undefined => {
			if (noContainer) return undefined;
			const made = createMemoryLimit(CONTAINER_MIB);
			limits.push(made);
			return made;
		};

		/**
		 * n8n saves the execution after its last node reported, serializing all of it: waits until both
		 * processes' memory has settled (no move over 3 MiB in 6 s), then both must still be running and
		 * the kernel must have killed nothing in their containers.
		 */
		async function bothSurvivedTheSave(): Promise<void> {
			const rss = () =>
				[worker, webhookProcess].map((proc) => services.memoryOf(proc.pid)?.rssMiB ?? -1);
			const samples = [rss()];
			await waitFor(
				async () => {
					await sleep(2000);
					samples.push(rss());
					const last = samples.slice(-4);
					return (
						last.length === 4 &&
						[0, 1].every(
							(i) => Math.max(...last.map((s) => s[i]!)) - Math.min(...last.map((s) => s[i]!)) <= 3,
						)
					);
				},
				{ timeoutMs: 180_000, what: 'the worker and the webhook process to settle after the save' },
			);
			expect(services.memoryOf(worker.pid)).toBeDefined();
			expect(services.memoryOf(webhookProcess.pid)).toBeDefined();
			expect(limits.map((l) => l.oomKills())).toEqual(limits.map(() => 0));
		}

		beforeAll(async () => {
			await runner.ensureN8n(version);
			const tarball = runner.packTarball();
			[postgres, redis] = await Promise.all([services.startPostgres(), services.startRedis()]);
			// Fast bulk processing for the 50,000-row job; the acknowledgement window stays >= 2 s of real time.
			sandbox = await startSandbox({
				port: 0,
				timeScale: 0.05,
				rowsPerSecond: 100_000,
				allowInsecureWebhooks: true,
			});
			instant = await startSandbox({
				port: 0,
				timeScale: 0.05,
				queueDelayMs: 0,
				rowsPerSecond: 1_000_000,
				allowInsecureWebhooks: true,
			});
			queued = await startSandbox({
				port: 0,
				timeScale: 0.05,
				queueDelayMs: 100_000,
				rowsPerSecond: 100_000,
				allowInsecureWebhooks: true,
			});
			receiver = await startReceiver();
			const [mainPort, webhookPort] = [await runner.freePort(), await runner.freePort()];
			webhookUrl = `http://127.0.0.1:${webhookPort}`;
			const shared = {
				...services.queueEnv(postgres, redis),
				// Webhooks and resume URLs are served by the webhook process, as behind n8n's documented load balancer.
				WEBHOOK_URL: `${webhookUrl}/`,
				N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
			};
			const encryptionKey = crypto.randomUUID().replace(/-/g, '');
			for (const role of ['main', 'worker', 'webhook']) {
				const instance = await runner.createInstance({
					version,
					port: role === 'webhook' ? webhookPort : mainPort,
					encryptionKey,
					extra: { ...shared, EVF_N8N_PROCESS: role },
				});
				runner.installPackage(instance.folder, tarball);
				instances.push(instance);
			}
			const [main] = instances;
			await runner.importCredentials(main, [
				sandboxCredential(credentialId, sandbox),
				sandboxCredential(instantCredentialId, instant),
				sandboxCredential(queuedCredentialId, queued),
			]);
			const workflows: Row[] = [
				workflow(trigger.workflowId, 'Queue trigger', [
					triggerNode(trigger.webhookId, credentialId),
					report(
						'Report',
						`${receiver.url}/ran`,
						200,
						`={{ JSON.stringify({ job_id: $json.job_id, verdicts: $json.verdicts, process: ${WHERE} }) }}`,
					),
				]),
				workflow(resume.workflowId, 'Queue submit and wait by webhook', [
					webhookStart(resume.path),
					submitAndWaitByWebhook(
						// The first address names the process that evaluates Submit's parameters: where it runs.
						`={{ ['valid.' + ${WHERE} + '@example.com', 'full.q2@example.com', 'invalid.q3@example.com'].join(', ') }}`,
						// Its job stays queued for 5 s, so the execution has paused when the service calls.
						queuedCredentialId,
					),
					reportRows(`${receiver.url}/resumed`),
				]),
				workflow(big.workflowId, 'Queue Get Results Return All', [
					webhookStart(big.path),
					evfNode(
						'Get Results',
						{
							resource: 'bulkJob',
							operation: 'getResults',
							jobId: { __rl: true, mode: 'id', value: '={{ $json.body.jobId }}' },
							returnAll: true,
						},
						credentialId,
						200,
					),
					countEmails(400),
					reportCounts(`${receiver.url}/big`),
				]),
				workflow(instantResume.workflowId, 'Queue job finished before the wait', [
					webhookStart(instantResume.path),
					submitAndWaitByWebhook(
						'valid.qi1@example.com, full.qi2@example.com',
						instantCredentialId,
					),
					reportRows(`${receiver.url}/instant`),
				]),
				workflow(bigResume.workflowId, 'Queue 50,000 addresses, wait by webhook, Result Rows', [
					webhookStart(bigResume.path),
					submitAndWaitByWebhook('={{ $json.body.emails }}', queuedCredentialId),
					countEmails(400),
					reportCounts(`${receiver.url}/big-wait`),
				]),
			];
			await runner.importWorkflows(main, workflows);
			for (const wf of workflows) await runner.publishWorkflow(main, String(wf.id));
			processes.push(await runner.startN8n({ instance: main }));
			worker = await runner.startN8n({
				instance: instances[1],
				command: 'worker',
				memoryLimit: limit(),
			});
			processes.push(worker);
			webhookProcess = await runner.startN8n({
				instance: instances[2],
				command: 'webhook',
				memoryLimit: limit(),
			});
			processes.push(webhookProcess);
			// The main process records the published workflows' webhooks on activation; the webhook process
			// serves them from there. An unsigned POST to the trigger is answered 401 and starts nothing.
			const triggerUrl = `${webhookUrl}/webhook/${trigger.webhookId}/bulk-job-finished`;
			await waitFor(
				async () =>
					(await fetch(triggerUrl, { method: 'POST', body: '{}' }).catch(() => undefined))
						?.status === 401,
				{ timeoutMs: 180_000, what: 'the trigger served by the webhook process' },
			);
		});

		afterAll(async () => {
			for (const proc of processes.reverse()) await proc.stop();
			await receiver?.close();
			await sandbox?.close();
			await instant?.close();
			await queued?.close();
			await redis?.stop();
			await postgres?.stop();
			for (const instance of instances) runner.removeInstance(instance);
			for (const made of limits) made.remove();
		});

		it("runs Submit on the worker, waits by resume webhook, and the sandbox's completion call resumes it on the worker", async () => {
			expect(await startByWebhook(webhookUrl, resume.path)).toBe(200);
			const reported = [];
			for (let i = 0; i < 3; i++)
				reported.push(
					JSON.parse((await receiver.next(180_000, (d) => d.url === '/resumed')).rawBody) as Row,
				);
			expect(reported.map((r) => [r.email, r.category, r.process])).toEqual([
				['valid.worker@example.com', 'Valid', 'worker'],
				['full.q2@example.com', 'Inbox Full', 'worker'],
				['invalid.q3@example.com', 'Invalid / Disabled / No Mail Server', 'worker'],
			]);
			const jobId = String(reported[0].job_id);
			// Submitted on the worker (its address says so), and it waited: the job's one call to the
			// resume URL was acknowledged.
			expect(queued.job(jobId)).toMatchObject({ status: 'completed', total_emails: 3 });
			await waitFor(() => queued.webhookAttempts.some((a) => a.jobId === jobId), {
				what: 'resume delivery logged',
			});
			expect(queued.webhookAttempts.filter((a) => a.jobId === jobId).map((a) => a.outcome)).toEqual(
				['acknowledged'],
			);
		});

		it('starts one execution per job on the worker, also when the same completion arrives twice at once', async () => {
			const url = `${webhookUrl}/webhook/${trigger.webhookId}/bulk-job-finished`;
			// A real job the sandbox finishes and delivers to the trigger.
			const client = createClient({
				apiKey: sandbox.apiKey,
				baseUrl: sandbox.baseUrl,
				webhookUrl: { allowLoopbackHttp: true },
			});
			const job = await client.submitBulk({ emails: ['valid.t1@example.com'], webhook_url: url });
			const first = JSON.parse(
				(await receiver.next(180_000, (d) => d.url === '/ran' && d.rawBody.includes(job.job_id)))
					.rawBody,
			) as Row;
			expect(first).toMatchObject({ job_id: job.job_id, process: 'worker' });

			// The same completion of another job, delivered several times at the same moment (at-least-once
			// retries racing the first attempt), and then once more.
			const twin = buildWebhookDelivery({
				body: {
					event: 'job.completed',
					job_id: `job_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`,
					status: 'completed',
					total_emails: 1,
					processed_emails: 1,
					verdicts: first.verdicts as WebhookBody['verdicts'],
					created_at: new Date().toISOString(),
					completed_at: new Date().toISOString(),
					results_url: `${sandbox.baseUrl}/v1/jobs/twin/results`,
				},
				secret: sandbox.webhookSecret,
				timestamp: Math.floor(Date.now() / 1000),
			});
			const send = () =>
				fetch(url, { method: 'POST', headers: twin.headers, body: twin.rawBody }).then(
					async (r) => ({ status: r.status, body: await r.text() }),
				);
			const answers = await Promise.all([send(), send(), send(), send()]);
			expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
			expect(answers.filter((a) => a.body.includes('"duplicate":true'))).toHaveLength(3);
			const twinId = JSON.parse(twin.rawBody).job_id as string;
			await receiver.next(180_000, (d) => d.url === '/ran' && d.rawBody.includes(twinId));
			const later = await send();
			expect(later.status).toBe(200);
			expect(JSON.parse(later.body)).toEqual({ received: true, duplicate: true });
			// Time for any second execution to reach the receiver before counting.
			await sleep(10_000);
			const runs = receiver.deliveries.filter(
				(d) => d.url === '/ran' && d.rawBody.includes(twinId),
			);
			expect(runs.map((d) => JSON.parse(d.rawBody) as Row)).toEqual([
				expect.objectContaining({ job_id: twinId, process: 'worker' }),
			]);
		});

		it(`Get Results with Return All reads a ${BIG_JOB_ROWS.toLocaleString('en')}-row job on the worker with the default output, inside a ${CONTAINER_MIB} MiB container (memory reported)`, async () => {
			const client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
			const emails = Array.from({ length: BIG_JOB_ROWS }, (_, i) => `valid.big${i}@example.com`);
			const submission = await client.submitList({ emails });
			expect(submission.jobs).toHaveLength(1);
			const jobId = submission.jobs[0].job_id;
			await client.waitForJob(jobId, { intervalMs: 1000, timeoutMs: 600_000 });
			const before = services.memoryOf(worker.pid);
			expect(await startByWebhook(webhookUrl, big.path, JSON.stringify({ jobId }))).toBe(200);
			const done = JSON.parse(
				(await receiver.next(900_000, (d) => d.url === '/big')).rawBody,
			) as Row;
			const after = services.memoryOf(worker.pid);
			expect(done).toEqual({ rows: BIG_JOB_ROWS, unique: BIG_JOB_ROWS, process: 'worker' });
			await bothSurvivedTheSave();
			const saved = services.memoryOf(worker.pid);
			services.note(
				`queue mode, n8n ${version}: Get Results Return All of ${BIG_JOB_ROWS} rows on the worker, default output${noContainer ? '' : `, ${CONTAINER_MIB} MiB container`}; worker resident memory ${before?.rssMiB} MiB before, peak ${after?.peakMiB} MiB when the last node reported, ${saved?.peakMiB} MiB once the execution was saved`,
			);
		});

		it('a job the service finishes at once, before the execution could wait, continues it exactly once on the worker', async () => {
			expect(await startByWebhook(webhookUrl, instantResume.path)).toBe(200);
			const run = await rowsOfJobFinishedBeforeWait(receiver, instant, '/instant', 180_000);
			// The rows came without the service's second attempt: n8n refused the first one while the
			// execution ran, and the node read the finished job itself.
			expect(run.attemptsAtFirstRow.every((a) => a.attempt === 1)).toBe(true);
			expect(run.reported.map((r) => [r.email, r.category, r.process])).toEqual([
				['valid.qi1@example.com', 'Valid', 'worker'],
				['full.qi2@example.com', 'Inbox Full', 'worker'],
			]);
			expect(run.attempts.map((a) => a.outcome)).not.toContain('acknowledged');
		});

		it(`Submit of ${BIG_JOB_ROWS.toLocaleString('en')} addresses waiting by webhook with Result Rows: the delivery is acknowledged within a second, the rows are read after, inside ${CONTAINER_MIB} MiB containers (memory reported)`, async () => {
			const emails = Array.from({ length: BIG_JOB_ROWS }, (_, i) => `valid.w${i}@example.com`);
			// Each process's peak from here on (Linux: writing 5 to clear_refs resets VmHWM).
			for (const proc of [worker, webhookProcess]) services.resetPeakMemory(proc.pid);
			expect(await startByWebhook(webhookUrl, bigResume.path, JSON.stringify({ emails }))).toBe(
				200,
			);
			const done = JSON.parse(
				(await receiver.next(900_000, (d) => d.url === '/big-wait')).rawBody,
			) as Row;
			expect(done).toEqual({ rows: BIG_JOB_ROWS, unique: BIG_JOB_ROWS, process: 'worker' });
			// The account's one job of this size on this service.
			const { jobs } = await createClient({
				apiKey: queued.apiKey,
				baseUrl: queued.baseUrl,
			}).listJobs();
			const bigJobs = jobs.filter((j) => j.total_emails === BIG_JOB_ROWS);
			expect(bigJobs).toHaveLength(1);
			const jobId = bigJobs[0].job_id;
			const job = queued.job(jobId)!;
			const attempts = queued.webhookAttempts.filter((a) => a.jobId === jobId);
			expect(attempts.map((a) => [a.attempt, a.outcome])).toEqual([[1, 'acknowledged']]);
			// The attempt is logged once the answer is in: from the job's completion to n8n's answer.
			const answeredAfterMs = Date.parse(attempts[0].at) - Date.parse(String(job.completed_at));
			const workerMemory = services.memoryOf(worker.pid);
			const webhookMemory = services.memoryOf(webhookProcess.pid);
			services.note(
				`queue mode, n8n ${version}: Submit of ${BIG_JOB_ROWS} addresses waiting by webhook, Result Rows: delivery answered ${answeredAfterMs} ms after the job finished; peak resident memory: webhook process ${webhookMemory?.peakMiB} MiB, worker ${workerMemory?.peakMiB} MiB`,
			);
			expect(answeredAfterMs).toBeLessThan(1000);
			await bothSurvivedTheSave();
			services.note(
				`queue mode, n8n ${version}: the same once the execution was saved: peak webhook process ${services.memoryOf(webhookProcess.pid)?.peakMiB} MiB, worker ${services.memoryOf(worker.pid)?.peakMiB} MiB${noContainer ? '' : ` (${CONTAINER_MIB} MiB containers)`}`,
			);
		});
	},
);
