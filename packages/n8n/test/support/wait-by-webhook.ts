/**
 * What the real-n8n suites share to test Submit And Wait waiting by webhook: the node as they run it,
 * starting a webhook-started workflow, and what a workflow reports when the service finished its job
 * before the execution could wait.
 */
import type { DeliveryAttempt, Sandbox } from '@evf/sandbox';
import { sleep } from 'n8n-workflow';
import type { Receiver } from './receiver';
import { waitFor } from './timing';
import { evfNode, type Row } from './workflows';

/** Submit And Wait that waits for the job's completion call and outputs the result rows. */
export function submitAndWaitByWebhook(emails: string, credentialId: string): Row {
	return evfNode(
		'Submit And Wait',
		{
			resource: 'bulkJob',
			operation: 'submit',
			emailSource: 'list',
			emails,
			waitForCompletion: true,
			waitMethod: 'webhook',
			timeoutMinutes: 30,
			pollIntervalSeconds: 10,
			waitOutput: 'results',
			resultOptions: {},
			options: {},
		},
		credentialId,
		200,
	);
}

/** POSTs `body` (JSON) to a webhook-started workflow's path on `baseUrl`; n8n's answer status. */
export async function startByWebhook(baseUrl: string, path: string, body = '{}'): Promise<number> {
	const response = await fetch(`${baseUrl}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body,
	});
	return response.status;
}

/**
 * Starts a webhook-started workflow as soon as n8n serves its path: published workflows are activated
 * after the server answers, and n8n answers 404 until then. The status of the start.
 */
export async function startWhenActive(baseUrl: string, path: string): Promise<number> {
	let status = 0;
	await waitFor(
		async () => {
			status = await startByWebhook(baseUrl, path);
			return status !== 404;
		},
		{ timeoutMs: 120_000, what: 'the workflow active' },
	);
	return status;
}

/** A Submit And Wait workflow's run whose job the service finished before the execution could wait. */
export interface FinishedBeforeWait {
	/** The service's delivery attempts for the job when the workflow reported its first row. */
	attemptsAtFirstRow: DeliveryAttempt[];
	/** Every row the workflow reported, read once the service had tried its delivery again. */
	reported: Row[];
	/** The service's delivery attempts for the job by then. */
	attempts: DeliveryAttempt[];
}

/**
 * Reads the two rows a started workflow reports to `url` on the receiver (the first within
 * `firstRowTimeoutMs`), waits for the service's second delivery attempt of the job, and gives any
 * second execution 3 s to report before collecting what was reported.
 */
export async function rowsOfJobFinishedBeforeWait(
	receiver: Receiver,
	service: Sandbox,
	url: string,
	firstRowTimeoutMs: number,
): Promise<FinishedBeforeWait> {
	const first = JSON.parse(
		(await receiver.next(firstRowTimeoutMs, (d) => d.url === url)).rawBody,
	) as Row;
	const jobId = String(first.job_id);
	const ofJob = () => service.webhookAttempts.filter((a) => a.jobId === jobId);
	const attemptsAtFirstRow = ofJob();
	await receiver.next(30_000, (d) => d.url === url);
	// Later attempts of the delivery resume nothing: n8n answers that the execution finished.
	await waitFor(() => ofJob().length >= 2, {
		timeoutMs: 60_000,
		what: 'a second delivery attempt',
	});
	await sleep(3000);
	const reported = receiver.deliveries
		.filter((d) => d.url === url)
		.map((d) => JSON.parse(d.rawBody) as Row);
	return { attemptsAtFirstRow, reported, attempts: ofJob() };
}
