import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import {
	addressesByItem,
	coverList,
	InputError,
	isJobStopped,
	isRowDueAgain,
	runList,
	summarizePreflight,
	type HeldReason,
	type ListRunResult,
	type EmailVerificationClient,
	type ListSubmission,
	type PreflightReport,
	type Priority,
	type ShortCreditChoice,
	type SubmissionPlan,
} from '@evf/client';
import {
	groupFilter,
	sheetFieldsOption,
	simplifyOption,
	waitProperties,
} from '../common.descriptions';
import { itemFor, readField } from '../../helpers/items';
import { isRowOpen } from './getResultsForRows.operation';
import { listStore, type ListStore } from '../../helpers/listMemory';
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
				displayName: 'Forget a Finished List After (Days)',
				name: 'forgetFinishedDays',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 0 },
				default: 0,
				description:
					'A list every address of which was sent stays remembered while it keeps being given (a schedule over the same sheet sends nothing again), and is forgotten 30 days after the last run given it. Set a number of days to verify the same list again that long after it finished. 0: never before.',
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
				displayName: 'If the Balance Is Short',
				name: 'onShortCredit',
				type: 'options',
				default: 'sendNothing',
				description:
					'What to do when the credits left (read first, for free) cannot cover the addresses to send: either way the step says how many credits are missing before anything is charged',
				options: [
					{
						name: 'Fail Before Sending',
						value: 'sendNothing',
						description:
							'Stop with an error that says how many credits are missing; nothing is sent or charged',
					},
					{
						name: 'Send What the Balance Covers',
						value: 'sendWhatFits',
						description:
							'Send as many addresses as there are credits; the rest stay unsent (unsent) for a run after a top-up, and credit_note says how many credits are missing',
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
					"Whether a rerun, retry or replay of a list sends only what earlier runs did not (nothing once all of it went), never before continue_after, and settles a submission whose answer was lost by reading the service's job list before sending anything again. Kept in the workflow's static data, which n8n saves after every execution except manual ones. Turn off to verify the same list again at once.",
			},
			{
				displayName: 'Send Again in Manual or Retried Runs',
				name: 'sendAgain',
				type: 'boolean',
				default: false,
				description:
					'Whether a manual (or retried) execution sends a list even though the service shows a job of the same size made in the last 30 days. Off: such a run sends nothing and says which job it found, since n8n keeps no memory of manual executions.',
			},
			{
				displayName: 'Skip Rows Already Answered',
				name: 'skipAnswered',
				type: 'boolean',
				default: false,
				description:
					'Whether to leave out input items whose Verification field (written by Get Results for Rows) says verified, duplicate or skipped, so a rerun of a sheet sends only its open rows. A row answered Unknown is open again once its verify_again_after time has come (6 hours, then 24; two more tries at most).',
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
	forgetFinishedDays?: number;
	sendAgain?: boolean;
	nothingToSend?: 'error' | 'report';
	onStop?: 'output' | 'fail';
	onShortCredit?: ShortCreditChoice;
	/** Set by the step, not the user: rows answered Unknown are due again since this time. */
	againSince?: string;
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
 * What every output item of a run carries about the list: the unsent addresses (map them into the next
 * run), why, and when they can go, as an ISO 8601 date (what a Wait node's "At Specified Time" and n8n's
 * date expressions read); what earlier runs sent; and, where n8n keeps no memory, that it does not.
 */
function stopFields(result: ListRunResult, store: ListStore | undefined): IDataObject {
	const earlier = result.earlierJobs.length
		? {
				sent_before: result.alreadySent,
				earlier_jobs: result.earlierJobs.map((job) => job.job_id),
			}
		: {};
	const recovered = result.recovered.length
		? { recovered_jobs: result.recovered.map((job) => job.job_id) }
		: {};
	const memory = store && !store.kept ? { memory_kept: false, memory_note: store.whyNotKept } : {};
	const common = { note: result.note, ...earlier, ...recovered, ...memory };
	if (result.unsent.length === 0) return { unsent: [], ...common };
	return {
		unsent: result.unsent,
		unsent_count: result.unsent.length,
		stopped_by: result.stoppedBy ?? null,
		continue_after: result.unsentAfter ?? null,
		...(result.outcome.kind === 'sent' && result.outcome.submission.leftToday !== undefined
			? { left_today: result.outcome.submission.leftToday }
			: {}),
		...common,
	};
}

function submissionItems(
	submission: ListSubmission,
	stop: IDataObject,
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
				...stop,
				preflight: report,
			},
			pairing,
		),
	);
}

/** The status of a run that made no job, by why it sent nothing. */
const HELD_STATUS: Record<HeldReason, string> = {
	finished: 'already_sent',
	not_yet: 'not_sent_yet',
	in_doubt: 'in_doubt',
	earlier_on_service: 'possibly_sent_before',
	busy: 'being_sent',
};

/** The one item of a run that made no job: nothing fits now, an earlier run sent it all, or it waits. */
function notSentItem(
	status: string,
	stop: IDataObject,
	pairing: number | readonly number[],
	extra: IDataObject = {},
): INodeExecutionData {
	return itemFor(
		{ job_id: null, status, parts: 0, credits_used_total: 0, ...stop, ...extra },
		pairing,
	);
}

/**
 * The balance read first (free) against the addresses about to be sent: a list it covers goes whole;
 * otherwise, before anything is charged, the step fails saying how many credits are missing, or sends
 * what the balance covers (the rest stay unsent in the list memory). A failed read changes nothing:
 * the service still refuses what the balance cannot pay for.
 */
async function withinBalance(
	client: EmailVerificationClient,
	plan: SubmissionPlan,
	choice: ShortCreditChoice | undefined,
	signal: AbortSignal | undefined,
): Promise<{ plan: SubmissionPlan; note?: string }> {
	const size = plan.chunks.reduce((n, chunk) => n + chunk.length, 0);
	const credits = await client
		.getCredits({ signal })
		.then((balance) => balance.credits)
		.catch(() => undefined);
	if (typeof credits !== 'number') return { plan };
	const cover = coverList(size, credits, choice ?? 'sendNothing');
	if (cover.covered) return { plan };
	if (cover.send === 0) throw new InputError('credits', 'balance', cover.message ?? '');
	let left = cover.send;
	const chunks: string[][] = [];
	for (const chunk of plan.chunks) {
		if (left <= 0) break;
		chunks.push(chunk.slice(0, left));
		left -= chunk.length;
	}
	return { plan: { ...plan, chunks }, note: cover.message ?? undefined };
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
	// The client's list run decides, records the doubt before the charge, sends and settles; the node
	// only says where the book lives (static data) and how to wait for the jobs.
	const store = options.rememberLists === false ? undefined : listStore(context);
	let resumeUrl: string | undefined;
	let creditNote: string | undefined;
	const days = Number(options.forgetFinishedDays ?? 0);
	const result = await runList(client, {
		list: {
			emails,
			name: options.name || undefined,
			priority: options.priority,
			check_smtp: options.checkSmtp,
			webhook_url: options.webhookUrl || undefined,
		},
		options: { signal, allowNothingToSend: options.nothingToSend === 'report' },
		...(store ? { load: store.read } : {}),
		store: (book) => store?.write(book),
		now: Date.now(),
		memoryKept: store ? store.kept : false,
		checkService: store ? store.checkService : false,
		sendAgain: options.sendAgain === true,
		...(options.againSince ? { againSince: options.againSince } : {}),
		failOnStop: options.onStop === 'fail',
		...(days > 0 ? { keepFinishedMs: days * 86_400_000 } : {}),
		beforeSend: async (planned) => {
			const { plan, note } = await withinBalance(client, planned, options.onShortCredit, signal);
			creditNote = note;
			// Only a list that stays one job, and that the allowance takes whole, can resume on its
			// webhook: the execution resumes once, and the addresses left unsent must be in its output.
			const fitsWhole = !plan.fitsNow || plan.fitsNow.left >= plan.preflight.unique.length;
			if (!settings || plan.chunks.length !== 1 || !fitsWhole) return plan;
			resumeUrl = await usableResumeUrl(context, settings);
			return resumeUrl ? await client.withJobFields(plan, { webhook_url: resumeUrl }) : plan;
		},
	});
	const stop = { ...stopFields(result, store), ...(creditNote ? { credit_note: creditNote } : {}) };
	const { outcome } = result;
	if (outcome.kind === 'nothing_to_send') {
		// Only with "Output the Pre-Flight Report": nothing to send, charge or wait for.
		const report = preflightReport(outcome.plan.preflight, [], itemCount);
		return [notSentItem('nothing_to_send', {}, pairing, { preflight: report })];
	}
	if (outcome.kind === 'held') {
		const found = outcome.matchingJobs?.map((job) => job as unknown as IDataObject);
		return [
			notSentItem(
				HELD_STATUS[outcome.reason],
				stop,
				pairing,
				found ? { matching_jobs: found } : {},
			),
		];
	}
	const { submission } = outcome;
	for (const job of submission.jobs) submitted.push(job.job_id);
	// A remembered list sends only its unsent addresses: the report then covers those, not the items.
	const perItem = result.earlierJobs.length || result.recovered.length ? undefined : itemCount;
	if (submission.jobs.length === 0) return [notSentItem('not_sent_yet', stop, pairing)];
	if (!settings) return submissionItems(submission, stop, pairing, perItem);
	if (resumeUrl && submission.jobs.length === 1 && result.recovered.length === 0) {
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
		return submissionItems(submission, stop, pairing, perItem, 'webhook');
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
	if (result.unsent.length) out.push(notSentItem('not_sent_yet', stop, pairing));
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
			const now = Date.now();
			// A settled row gives an empty cell: skipped silently, and every item keeps its place. A row
			// answered Unknown whose verify_again_after time has come is open again (isRowOpen).
			const values = items.map((item) =>
				options.skipAnswered && !isRowOpen(item.json, now) ? '' : readField(item.json, field),
			);
			// The earliest time a row sent again was due: the list's finished run before it is forgotten.
			const dueTimes = options.skipAnswered
				? items
						.filter((item) => isRowDueAgain(item.json, now))
						.map((item) => Date.parse(String(item.json.verify_again_after)))
				: [];
			const sheetOptions: SubmitOptions = dueTimes.length
				? { ...options, againSince: new Date(Math.min(...dueTimes)).toISOString() }
				: options;
			const all = items.map((_, index) => index);
			if (options.skipAnswered && items.length && values.every((value) => value === '')) {
				// A finished sheet: every row is answered. Nothing to send is the expected end of a schedule.
				return [
					itemFor(
						{
							job_id: null,
							status: 'all_rows_answered',
							parts: 0,
							credits_used_total: 0,
							unsent: [],
							note: `Nothing sent or charged: all ${items.length} rows are already answered.`,
						},
						all,
					),
				];
			}
			return await submitOne(this, client, values, sheetOptions, all, 0, submitted, items.length);
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
