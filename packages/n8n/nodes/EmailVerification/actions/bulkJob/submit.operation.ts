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
	isOpenRow,
	RESULT_COLUMNS,
	PartialSubmissionError,
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
import { toNodeError } from '../../helpers/errors';
import { itemFor, readField } from '../../helpers/items';
import { recall, record, type Remembered } from '../../helpers/listMemory';
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
				displayName: 'If the Allowance or a Pause Stops the List',
				name: 'onStop',
				type: 'options',
				default: 'output',
				description:
					"What to do when the account's API allowance (shared by all its keys) or paused new jobs leave part of the list unsent",
				options: [
					{
						name: 'Output What Was Sent and the Rest',
						value: 'output',
						description:
							'Send what fits today; output the jobs made, the unsent addresses (unsent) and when they can go (continue_after, an ISO date for a Wait node)',
					},
					{
						name: 'Fail',
						value: 'fail',
						description:
							'Stop with an error that names the jobs already made and charged and the addresses not sent',
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
				displayName: 'Remember Sent Lists',
				name: 'rememberLists',
				type: 'boolean',
				default: true,
				description:
					"Whether a rerun or replay of a list sends only what earlier runs did not (nothing once all of it went, for a day after), never before continue_after. Turn off to verify the same list again at once. Kept in the workflow's static data, which n8n saves only for an active workflow started by its trigger, when the execution succeeds: manual test runs are not remembered.",
			},
			{
				displayName: 'Skip Rows Already Answered',
				name: 'skipAnswered',
				type: 'boolean',
				default: false,
				description:
					'Whether to leave out input items whose Verification field (written by Get Results for Rows) says verified, duplicate or skipped, so a rerun of a sheet sends only its open rows',
				displayOptions: { show: { '/emailSource': ['field'] } },
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
	onStop?: 'output' | 'fail';
	rememberLists?: boolean;
	skipAnswered?: boolean;
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

/**
 * A list stopped part way, as every output item of the run carries it: the unsent addresses (map them
 * into the next run), why, and when they can go, as an ISO 8601 date (what a Wait node's "At Specified
 * Time" and n8n's date expressions read). Empty when the whole list went.
 */
function stopFields(
	submission: Pick<ListSubmission, 'unsent' | 'unsentAfter' | 'stoppedBy' | 'leftToday' | 'note'>,
	remembered: Remembered | undefined,
): IDataObject {
	const earlier = remembered
		? {
				sent_before: remembered.next.alreadySent,
				earlier_jobs: remembered.next.jobs.map((job) => job.job_id),
			}
		: {};
	if (submission.unsent.length === 0)
		return { unsent: [], ...(submission.note ? { note: submission.note } : {}), ...earlier };
	return {
		unsent: submission.unsent,
		unsent_count: submission.unsent.length,
		stopped_by: submission.stoppedBy ?? null,
		continue_after: submission.unsentAfter ?? null,
		...(submission.leftToday === undefined ? {} : { left_today: submission.leftToday }),
		note: submission.note ?? null,
		...earlier,
	};
}

function submissionItems(
	submission: ListSubmission,
	pairing: number | readonly number[],
	itemCount: number | undefined,
	remembered: Remembered | undefined,
	waitingBy?: string,
): INodeExecutionData[] {
	const report = preflightReport(submission.preflight, submission.rejectedByService, itemCount);
	const stop = stopFields(submission, remembered);
	if (submission.jobs.length === 0) return [notSentItem(stop, pairing, report)];
	return submission.jobs.map((job, index) =>
		itemFor(
			{
				...(job as unknown as IDataObject),
				part: index + 1,
				parts: submission.jobs.length,
				credits_used_total: submission.creditsUsed,
				...(waitingBy ? { waiting_by: waitingBy } : {}),
				...stop,
				preflight: report,
			},
			pairing,
		),
	);
}

/** The one item of a run that made no job: nothing fits now, or an earlier run sent it all. */
function notSentItem(
	stop: IDataObject,
	pairing: number | readonly number[],
	report?: IDataObject,
): INodeExecutionData {
	const status = (stop.unsent as unknown[]).length ? 'not_sent_yet' : 'already_sent';
	return itemFor(
		{
			job_id: null,
			status,
			parts: 0,
			credits_used_total: 0,
			...stop,
			...(report ? { preflight: report } : {}),
		},
		pairing,
	);
}

/**
 * What a remembered list sends now, when that is nothing: the earlier run said when the rest can go, or
 * sent it all. Nothing is planned, sent or charged.
 */
function heldBack(remembered: Remembered, pairing: number | readonly number[]): INodeExecutionData {
	const { next, memory } = remembered;
	const jobs = next.jobs.map((job) => job.job_id).join(', ');
	const unsent = next.done ? [] : memory.unsent;
	const note = next.done
		? `Nothing sent or charged: earlier runs sent every address of this list (${next.alreadySent}, jobs ${jobs}).`
		: `Nothing sent or charged: earlier runs sent ${next.alreadySent} addresses of this list (jobs ${jobs}); the other ${unsent.length} can be sent after ${next.notBefore}.`;
	return notSentItem(
		stopFields(
			{
				unsent,
				unsentAfter: next.notBefore,
				stoppedBy: next.done ? undefined : memory.stoppedBy,
				note,
			},
			remembered,
		),
		pairing,
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
	const sendWhatFits = options.onStop !== 'fail';
	// The client's replay memory, kept in the node's static data rather than only read back from the last
	// output: a scheduled rerun starts from its trigger and has no earlier output to map, and a replay of
	// an old execution would map a stale one. The output still carries `unsent` for flows that continue
	// a list in the same execution (a Wait node, then this node again).
	const staticData =
		options.rememberLists === false ? undefined : context.getWorkflowStaticData('node');
	const now = Date.now();
	const remembered = staticData ? recall(staticData, emails, now) : undefined;
	if (remembered && remembered.next.send.length === 0) return [heldBack(remembered, pairing)];
	// A remembered list sends only its unsent addresses: the report then covers those, not the items.
	const sending = remembered ? remembered.next.send : emails;
	const perItem = remembered ? undefined : itemCount;
	// The client plans the list once (pre-flight, allowance, jobs); the node only decides how to wait for it.
	let plan = await client.planList(
		{
			emails: sending,
			name: options.name || undefined,
			priority: options.priority,
			check_smtp: options.checkSmtp,
			webhook_url: options.webhookUrl || undefined,
		},
		{ signal, allowNothingToSend: options.nothingToSend === 'report', sendWhatFits },
	);
	if (plan.chunks.length === 0) {
		// Only with "Output the Pre-Flight Report": nothing to send, charge or wait for.
		const report = preflightReport(plan.preflight, [], perItem);
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
	// Only a list that stays one job, and that the allowance takes whole, can resume on its webhook: the
	// execution resumes once, and the addresses left unsent must be in this execution's output.
	const fitsWhole = !plan.fitsNow || plan.fitsNow.left >= plan.preflight.unique.length;
	if (settings && plan.chunks.length === 1 && fitsWhole) {
		resumeUrl = await usableResumeUrl(context, settings);
		if (resumeUrl) plan = await client.withJobFields(plan, { webhook_url: resumeUrl });
	}
	let submission: ListSubmission;
	try {
		submission = await client.submitPlan(plan, { signal, sendWhatFits });
	} catch (error) {
		// "Fail" still remembers what was charged, so the rerun after the error sends only the rest.
		if (staticData && error instanceof PartialSubmissionError && !error.uncertain) {
			record(
				staticData,
				emails,
				remembered?.memory,
				{
					jobs: error.accepted as ListSubmission['jobs'],
					unsent: error.unsent,
					unsentAfter: error.retryAt,
					stoppedBy: error.stoppedBy,
				},
				now,
			);
		}
		throw toNodeError(context.getNode(), error, itemIndex);
	}
	for (const job of submission.jobs) submitted.push(job.job_id);
	if (staticData) record(staticData, emails, remembered?.memory, submission, now);
	if (!settings || submission.jobs.length === 0) {
		return submissionItems(submission, pairing, perItem, remembered);
	}
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
		return submissionItems(submission, pairing, perItem, remembered, 'webhook');
	}
	const out = await pollAndOutput(
		context,
		client,
		submission.jobs.map((job) => job.job_id),
		settings,
		readRowOptions(read),
		pairing,
	);
	// The rows of the jobs made, then one item for the addresses left for a later run.
	if (submission.unsent.length) out.push(notSentItem(stopFields(submission, remembered), pairing));
	return out;
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
			const verification = RESULT_COLUMNS[RESULT_COLUMNS.length - 1];
			// A settled row gives an empty cell: skipped silently, and every item keeps its place.
			const values = items.map((item) =>
				options.skipAnswered && !isOpenRow(item.json[verification])
					? ''
					: readField(item.json, field),
			);
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
