/**
 * Waiting for a bulk job, shared by Submit (when it waits) and Wait for Completion: either the
 * execution pauses until the service's signed webhook calls $execution.resumeUrl, or the node polls
 * with n8n's sleep. Reading and categorising rows is the client's work; this only shapes n8n items.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import {
	checkWebhookUrl,
	withCategory,
	createRowSharer,
	isLoopbackUrl,
	type EmailVerificationClient,
	type Group,
	type Job,
} from '@evf/client';
import { verifiedDelivery } from './delivery';
import { toNodeError } from './errors';
import {
	itemFor,
	pairedItemFor,
	pickFields,
	SHEET_RESULT_FIELDS,
	SIMPLE_RESULT_FIELDS,
} from './items';
import { clientFor, getCredentialsOf, signingSecrets } from '../transport';

export type WaitMethod = 'auto' | 'webhook' | 'polling';

export interface WaitSettings {
	method: WaitMethod;
	timeoutMs: number;
	intervalMs: number;
	output: 'results' | 'job';
}

export interface RowOptions {
	groups: string[];
	simplify: boolean;
	/** Only the fields a sheet needs (email, category, group, safe_to_send, reason): the least memory. */
	sheetFields?: boolean;
	/** Stop after this many output rows (after the group filter). */
	limit?: number;
}

type ParameterReader = (name: string, fallback: unknown) => unknown;

/**
 * An error after the service accepted jobs: they are charged and keep running whatever failed here
 * (a wait, a pause, reading rows). Running the step again would submit and charge the list a second
 * time, so the error names every accepted job and says what to do instead.
 */
export function failureAfterSubmission(
	node: INode,
	error: unknown,
	jobIds: readonly string[],
	itemIndex?: number,
): Error {
	const cause = toNodeError(node, error, itemIndex);
	if (jobIds.length === 0) return cause;
	const jobs = jobIds.length === 1 ? `job ${jobIds[0]} was` : `jobs ${jobIds.join(', ')} were`;
	const them = jobIds.length === 1 ? 'it' : 'them';
	const causeDescription = (cause as { description?: string | null }).description;
	return new NodeOperationError(
		node,
		`The bulk ${jobs} submitted and charged and still running on the service, but then this step failed: ${cause.message}`,
		{
			itemIndex,
			description: [
				`Running this step again does not submit ${them} again while Remember Sent Lists is on (the list is remembered, and a manual or retried run checks the service first). Use Bulk Job > Wait for Completion or Get Results with the job ID${jobIds.length === 1 ? '' : 's'} above to get ${them}.`,
				causeDescription,
			]
				.filter(Boolean)
				.join(' '),
		},
	);
}

function positiveOr(value: number, fallback: number): number {
	return Number.isFinite(value) && value > 0 ? value : fallback;
}

export function readWaitSettings(read: ParameterReader): WaitSettings {
	return {
		method: read('waitMethod', 'auto') as WaitMethod,
		timeoutMs: positiveOr(Number(read('timeoutMinutes', 60)), 60) * 60_000,
		intervalMs: Number(read('pollIntervalSeconds', 15)) * 1000,
		output: read('waitOutput', 'results') as 'results' | 'job',
	};
}

export function readRowOptions(read: ParameterReader): RowOptions {
	const options = read('resultOptions', {}) as {
		groups?: string[];
		simplify?: boolean;
		sheetFields?: boolean;
	};
	return {
		groups: options.groups ?? [],
		simplify: options.simplify ?? false,
		sheetFields: options.sheetFields ?? false,
	};
}

/**
 * Appends a job's rows to `out` page by page, so memory holds the output items and one page, never
 * a second copy of the whole job. The rows' repeated parts are shared and every row carries the same
 * pairedItem object: n8n keeps all the items, then serializes the execution (at the resume and at the
 * end), and in a 512 MiB container that copy is what decides whether a 50,000-row job finishes.
 */
export async function appendResultRows(
	client: EmailVerificationClient,
	jobId: string,
	options: RowOptions,
	pairing: number | readonly number[],
	out: INodeExecutionData[],
	signal?: AbortSignal,
): Promise<number> {
	if (options.limit !== undefined && options.limit <= 0) return 0;
	const share = createRowSharer();
	const pairedItem = pairedItemFor(pairing);
	let added = 0;
	for await (const row of client.results(jobId, {
		groups: options.groups as Group[],
		maxRows: options.limit,
		signal,
	})) {
		const full = withCategory({ job_id: jobId, ...row }) as unknown as IDataObject;
		const json = options.sheetFields
			? pickFields(full, SHEET_RESULT_FIELDS)
			: options.simplify
				? pickFields(full, SIMPLE_RESULT_FIELDS)
				: full;
		out.push({ json: share(json), pairedItem });
		added++;
	}
	return added;
}

export function jobItem(
	job: Job | IDataObject,
	pairing: number | readonly number[],
): INodeExecutionData {
	return itemFor(job as unknown as IDataObject, pairing);
}

/**
 * The resume URL when the service can call it: the credential must hold a signing secret (an
 * unsigned resume would let anyone continue the workflow) and the URL must pass the webhook_url rules.
 */
export async function usableResumeUrl(
	context: IExecuteFunctions,
	settings: WaitSettings,
): Promise<string | undefined> {
	if (settings.method === 'polling') return undefined;
	// `n8n execute` ends the process when the execution pauses: nothing would be there to resume it.
	if (context.getMode() === 'cli') {
		if (settings.method === 'auto') return undefined;
		throw new NodeOperationError(
			context.getNode(),
			'Cannot wait by webhook in a command-line run (n8n execute).',
			{
				description: 'Choose the Polling or Automatic wait method.',
			},
		);
	}
	const credentials = await getCredentialsOf(context);
	const resumeUrl = String(context.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
	const problems = checkWebhookUrl(resumeUrl, {
		allowLoopbackHttp: isLoopbackUrl(credentials.baseUrl),
	});
	const hasSecret = signingSecrets(credentials).length > 0;
	if (problems.length === 0 && hasSecret) return resumeUrl;
	if (settings.method === 'auto') return undefined;
	const why = hasSecret
		? `this n8n's resume URL cannot be called by the service: ${problems.map((p) => p.message).join('; ')}. Set WEBHOOK_URL to a public https address of this n8n`
		: 'the credential has no Webhook Signing Secret, so the webhook could not be checked';
	throw new NodeOperationError(context.getNode(), `Cannot wait by webhook: ${why}.`, {
		description: 'Choose the Polling wait method, or fix the setting named above.',
	});
}

/** A stopped job as output: its summary, or its rows. */
export async function outputStoppedJob(
	client: EmailVerificationClient,
	job: Job,
	settings: WaitSettings,
	rows: RowOptions,
	pairing: number | readonly number[],
	out: INodeExecutionData[],
	signal?: AbortSignal,
): Promise<void> {
	if (settings.output === 'job') out.push(jobItem(job, pairing));
	else await appendResultRows(client, job.job_id, rows, pairing, out, signal);
}

/** Polls each job until it stops, then outputs its summary or its rows. */
export async function pollAndOutput(
	context: IExecuteFunctions,
	client: EmailVerificationClient,
	jobIds: readonly string[],
	settings: WaitSettings,
	rows: RowOptions,
	pairing: number | readonly number[],
): Promise<INodeExecutionData[]> {
	const out: INodeExecutionData[] = [];
	const signal = context.getExecutionCancelSignal();
	for (const jobId of jobIds) {
		const job = await client.waitForJob(jobId, {
			intervalMs: settings.intervalMs,
			timeoutMs: settings.timeoutMs,
			signal,
		});
		await outputStoppedJob(client, job, settings, rows, pairing, out, signal);
	}
	return out;
}

/**
 * Called by n8n when the service posts to this execution's resume URL. A delivery that fails the
 * signature or timestamp check gets 401 and the execution keeps waiting. A signed one is answered at
 * once, before the job or its rows are read: the service counts a delivery as failed after 10 s and
 * sends it again, and the answer must not depend on the size of the job. n8n resumes the execution
 * with what this returns, after the answer went out.
 */
export async function resumeOnWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const verified = await verifiedDelivery(this);
	if (!verified) return { noWebhookResponse: true };
	const jobId = verified.jobId;
	const response = this.getResponseObject();
	response.status(200).json({ received: true });
	const read: ParameterReader = (name, fallback) => this.getNodeParameter(name, fallback);
	const settings = readWaitSettings(read);
	const items: INodeExecutionData[] = [];
	try {
		const client = await clientFor(this);
		if (settings.output === 'job') items.push(jobItem(await client.getJob(jobId), 0));
		else await appendResultRows(client, jobId, readRowOptions(read), 0, items);
	} catch (error) {
		throw failureAfterCompletion(this.getNode(), error, jobId);
	}
	return { workflowData: [items], noWebhookResponse: true };
}

/**
 * Reading a finished job failed after its delivery was acknowledged: the service will not call again,
 * so the error names the job and how to read it.
 */
function failureAfterCompletion(node: INode, error: unknown, jobId: string): Error {
	const cause = toNodeError(node, error);
	return new NodeOperationError(
		node,
		`Bulk job ${jobId} finished, but reading it failed: ${cause.message}`,
		{
			description: `The job is finished and charged. Read it with Bulk Job > Get Results and the job ID ${jobId}; do not submit the list again.`,
		},
	);
}
