import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import {
	addressesByItem,
	isJobStopped,
	summarizePreflight,
	type EmailVerificationClient,
	type ListSubmission,
	type PreflightReport,
	type Priority,
} from '@evf/client';
import {
	groupFilter,
	sheetFieldsOption,
	simplifyOption,
	waitProperties,
} from '../common.descriptions';
import { itemFor, readField } from '../../helpers/items';
import {
	outputStoppedJob,
	pollAndOutput,
	readRowOptions,
	readWaitSettings,
	failureAfterSubmission,
	usableResumeUrl,
	type WaitSettings,
} from '../../helpers/waiting';

const waiting = { waitForCompletion: [true] };

const properties: INodeProperties[] = [
	{
		displayName: 'Addresses From',
		name: 'emailSource',
		type: 'options',
		noDataExpression: true,
		default: 'field',
		options: [
			{
				name: 'A Field of Every Input Item',
				value: 'field',
				description:
					'All input items become one job (a sheet of 10,000 rows is one job, not 10,000 calls)',
			},
			{
				name: 'A List or Text',
				value: 'list',
				description:
					'Each input item gives a list: text with one address per line, or a list field',
			},
		],
	},
	{
		displayName: 'Email Field',
		name: 'emailField',
		type: 'string',
		default: 'email',
		required: true,
		displayOptions: { show: { emailSource: ['field'] } },
		description:
			'Name of the field that holds the address in each input item. Use dots for nested fields, e.g. contact.email.',
	},
	{
		displayName: 'Emails',
		name: 'emails',
		type: 'string',
		typeOptions: { rows: 5 },
		default: '',
		required: true,
		displayOptions: { show: { emailSource: ['list'] } },
		description:
			'Addresses separated by new lines, commas or semicolons, or an expression that returns a list',
		hint: "For an AI agent, let the model fill it with $fromAI('emails', 'The addresses to verify, one per line', 'string')",
	},
	{
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: false,
		description: 'Whether to wait until the job finishes and output its results instead of the job',
	},
	...waitProperties(waiting),
	{
		displayName: 'Result Options',
		name: 'resultOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { waitForCompletion: [true], waitOutput: ['results'] } },
		options: [groupFilter, simplifyOption, sheetFieldsOption],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Check Mail Server (SMTP)',
				name: 'checkSmtp',
				type: 'boolean',
				default: true,
				description: 'Whether to ask each mail server',
			},
			{
				displayName: 'If No Address Is Valid',
				name: 'nothingToSend',
				type: 'options',
				default: 'error',
				description:
					'What to do when pre-flight leaves nothing to send (every address malformed or missing): nothing is sent or charged either way',
				options: [
					{
						name: 'Fail',
						value: 'error',
						description: 'Stop with an error that names a malformed address',
					},
					{
						name: 'Output the Pre-Flight Report',
						value: 'report',
						description:
							'Output one item with no job ID (status nothing_to_send) and the report, e.g. for a flow that writes every row back marked skipped',
					},
				],
			},
			{
				displayName: 'List Name',
				name: 'name',
				type: 'string',
				default: '',
				description: 'Shown in the dashboard, up to 255 characters',
			},
			{
				displayName: 'Priority',
				name: 'priority',
				type: 'options',
				default: 'normal',
				options: [
					{ name: 'Normal', value: 'normal' },
					{ name: 'High', value: 'high' },
					{ name: 'Urgent', value: 'urgent' },
				],
			},
			{
				displayName: 'Webhook URL',
				name: 'webhookUrl',
				type: 'string',
				default: '',
				placeholder: 'https://your-n8n.example.com/webhook/...',
				description:
					'Called once when the job finishes: the production URL of an "On Bulk Job Finished" trigger, or {{ $execution.resumeUrl }} for a later Wait for Completion by webhook. Must be https and public. Not used when this node waits by webhook itself.',
				// A webhook wait gives the job this execution's resume URL instead, so the field would do nothing.
				displayOptions: { hide: { '/waitMethod': ['webhook'] } },
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['bulkJob'], operation: ['submit'] } },
	properties,
);

interface SubmitOptions {
	checkSmtp?: boolean;
	nothingToSend?: 'error' | 'report';
	name?: string;
	priority?: Priority;
	webhookUrl?: string;
}

/**
 * What pre-flight found. With one address per input item (Addresses From: a field), `addresses_by_item`
 * gives, for each input item in order, the addresses it sent after unwrapping `Name <address>` and
 * `mailto:` cells: a flow merges results back to its rows by these, lowercased, never by the cell as typed.
 */
function preflightReport(
	preflight: PreflightReport,
	rejectedByService: ListSubmission['rejectedByService'],
	itemCount: number | undefined,
): IDataObject {
	return {
		received: preflight.received,
		unique: preflight.unique.length,
		duplicates: preflight.duplicates.length,
		malformed: preflight.malformed.length,
		summary: summarizePreflight(preflight),
		malformed_addresses: preflight.malformed as unknown as IDataObject[],
		duplicate_addresses: preflight.duplicates as unknown as IDataObject[],
		rejected_by_service: rejectedByService as unknown as IDataObject[],
		...(itemCount === undefined
			? {}
			: { addresses_by_item: addressesByItem(preflight, itemCount) }),
	};
}

function submissionItems(
	submission: ListSubmission,
	pairing: number | readonly number[],
	itemCount: number | undefined,
	waitingBy?: string,
): INodeExecutionData[] {
	const report = preflightReport(submission.preflight, submission.rejectedByService, itemCount);
	return submission.jobs.map((job, index) =>
		itemFor(
			{
				...(job as unknown as IDataObject),
				part: index + 1,
				parts: submission.jobs.length,
				credits_used_total: submission.creditsUsed,
				...(waitingBy ? { waiting_by: waitingBy } : {}),
				preflight: report,
			},
			pairing,
		),
	);
}

async function submitOne(
	context: IExecuteFunctions,
	client: EmailVerificationClient,
	emails: string | unknown[],
	options: SubmitOptions,
	pairing: number | readonly number[],
	itemIndex: number,
	submitted: string[],
	/** The number of input items when each gave one address (Addresses From: a field). */
	itemCount?: number,
): Promise<INodeExecutionData[]> {
	const read = (name: string, fallback: unknown) =>
		context.getNodeParameter(name, itemIndex, fallback);
	const wait = read('waitForCompletion', false) as boolean;
	const settings: WaitSettings | undefined = wait ? readWaitSettings(read) : undefined;
	const signal = context.getExecutionCancelSignal();
	// The client plans the list once (pre-flight, jobs); the node only decides how to wait for it.
	let plan = await client.planList(
		{
			emails,
			name: options.name || undefined,
			priority: options.priority,
			check_smtp: options.checkSmtp,
			webhook_url: options.webhookUrl || undefined,
		},
		{ signal, allowNothingToSend: options.nothingToSend === 'report' },
	);
	if (plan.chunks.length === 0) {
		// Only with "Output the Pre-Flight Report": nothing to send, charge or wait for.
		const report = preflightReport(plan.preflight, [], itemCount);
		return [
			itemFor(
				{
					job_id: null,
					status: 'nothing_to_send',
					parts: 0,
					credits_used_total: 0,
					preflight: report,
				},
				pairing,
			),
		];
	}
	let resumeUrl: string | undefined;
	// Only a list that stays one job can resume on its webhook: the execution resumes once.
	if (settings && plan.chunks.length === 1) {
		resumeUrl = await usableResumeUrl(context, settings);
		if (resumeUrl) plan = await client.withJobFields(plan, { webhook_url: resumeUrl });
	}
	const submission = await client.submitPlan(plan, { signal });
	for (const job of submission.jobs) submitted.push(job.job_id);
	if (!settings) return submissionItems(submission, pairing, itemCount);
	if (resumeUrl) {
		// A job that finished already called the resume URL while this execution was still running, and
		// n8n refused that call: answer now, or the execution would wait for the service's retry.
		const [onlyJob] = submission.jobs;
		// A failed check is no reason to fail the step: the job still calls back, and the wait gets it.
		const job = await client.getJob(onlyJob.job_id, { signal }).catch(() => undefined);
		if (job && isJobStopped(job)) {
			const out: INodeExecutionData[] = [];
			await outputStoppedJob(client, job, settings, readRowOptions(read), pairing, out, signal);
			return out;
		}
		// The job posts to this execution's resume URL; n8n then calls this node's webhook method.
		await context.putExecutionToWait(new Date(Date.now() + settings.timeoutMs));
		return submissionItems(submission, pairing, itemCount, 'webhook');
	}
	return await pollAndOutput(
		context,
		client,
		submission.jobs.map((job) => job.job_id),
		settings,
		readRowOptions(read),
		pairing,
	);
}

export async function execute(
	this: IExecuteFunctions,
	client: EmailVerificationClient,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	// Every job the service accepted in this run, so any later failure can name what was charged.
	const submitted: string[] = [];
	let itemIndex: number | undefined;
	try {
		const source = this.getNodeParameter('emailSource', 0) as 'field' | 'list';
		if (source === 'field') {
			const field = this.getNodeParameter('emailField', 0) as string;
			const options = this.getNodeParameter('options', 0, {}) as SubmitOptions;
			const values = items.map((item) => readField(item.json, field));
			const all = items.map((_, index) => index);
			return await submitOne(this, client, values, options, all, 0, submitted, items.length);
		}
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			itemIndex = i;
			const raw = this.getNodeParameter('emails', i) as unknown;
			const emails = Array.isArray(raw) ? raw : String(raw ?? '');
			const options = this.getNodeParameter('options', i, {}) as SubmitOptions;
			const made = await submitOne(this, client, emails, options, i, i, submitted);
			for (const item of made) out.push(item);
		}
		return out;
	} catch (error) {
		throw failureAfterSubmission(this.getNode(), error, submitted, itemIndex);
	}
}
