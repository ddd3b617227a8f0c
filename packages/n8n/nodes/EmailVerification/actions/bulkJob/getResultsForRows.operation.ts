/**
 * Bulk Job > Get Results for Rows: the input items (a sheet's rows) each come out with the five result
 * columns beside their own fields, paired to themselves, by the client's write-back rule (rowVerdicts):
 * the verdict, a duplicate's first copy's verdict, "Not sent (not charged)" for a malformed or empty
 * cell, "Not sent yet" for an address a stopped list left for a later run, or why no answer came back.
 * Rows already settled by an earlier run (their Verification cell says so: the client's isOpenRow) pass
 * through as they are, so a rerun reads and writes only the rows still open. An Unknown or Not Verified
 * answer is open again once its verify_again_after time has come (the client's verify-again rule): each
 * answered row gets verify_again_after, verify_attempts and verify_again_reason beside its five columns.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import {
	addressesByItem,
	answeredRowFields,
	isJobStopped,
	isOpenRow,
	isRowDueAgain,
	preflightEmails,
	rowVerdicts,
	RESULT_COLUMNS,
	type EmailVerificationClient,
	type ResultRow,
} from '@evf/client';
import { itemFor, readField } from '../../helpers/items';

const properties: INodeProperties[] = [
	{
		displayName: 'Job IDs',
		name: 'jobIds',
		type: 'string',
		default: '',
		placeholder: "e.g. {{ $('Submit').all().map(item => item.json.job_id) }}",
		description:
			'The jobs that verified these rows: a list, or IDs separated by commas. Empty or null IDs (a run that made no job) are skipped, and the rows say why they have no answer.',
	},
	{
		displayName: 'Email Field',
		name: 'emailField',
		type: 'string',
		default: 'email',
		required: true,
		description:
			'Name of the field that holds the address in each input item, as Submit read it. Use dots for nested fields.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Continue After',
				name: 'continueAfter',
				type: 'string',
				default: '',
				placeholder: "e.g. {{ $('Submit').first().json.continue_after }}",
				description:
					"When the unsent addresses can go (Submit's continue_after), written in their rows' Reason",
			},
			{
				displayName: 'Unsent Addresses',
				name: 'unsent',
				type: 'string',
				default: '',
				placeholder: "e.g. {{ $('Submit').first().json.unsent }}",
				description:
					'Addresses a list stopped part way left for a later run (Submit\'s unsent): their rows say "Not sent yet" and stay open',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['bulkJob'], operation: ['getResultsForRows'] } },
	properties,
);

/**
 * A row to read an answer for: never answered (the client's isOpenRow), or answered Unknown and due to
 * be verified again (its verify_again_after time has come; a definite answer or a capped row has none).
 */
export function isRowOpen(json: IDataObject, now: number): boolean {
	return isOpenRow(json[RESULT_COLUMNS[RESULT_COLUMNS.length - 1]]) || isRowDueAgain(json, now);
}

/** IDs or addresses as n8n may hand them: an array (with nulls for runs with no job) or text. */
function listOf(raw: unknown): string[] {
	if (raw === undefined || raw === null) return [];
	const list = Array.isArray(raw) ? raw : String(raw ?? '').split(/[\s,;]+/);
	const ids = list
		.filter((id) => typeof id === 'string' && id.trim() !== '')
		.map((id) => id.trim());
	return [...new Set(ids)];
}

export async function execute(
	this: IExecuteFunctions,
	client: EmailVerificationClient,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const jobIds = listOf(this.getNodeParameter('jobIds', 0, ''));
	const field = this.getNodeParameter('emailField', 0) as string;
	const options = this.getNodeParameter('options', 0, {}) as {
		continueAfter?: string;
		unsent?: unknown;
	};
	const signal = this.getExecutionCancelSignal();
	// Only the open rows were sent, so only they are matched: a settled row keeps what it has.
	const now = Date.now();
	const open = items.flatMap((item, index) => (isRowOpen(item.json, now) ? [index] : []));
	const preflight = preflightEmails(open.map((index) => readField(items[index].json, field)));

	const results: ResultRow[] = [];
	const stopped: string[] = [];
	for (const jobId of jobIds) {
		const job = await client.getJob(jobId, { signal });
		if (job.status !== 'completed') {
			stopped.push(
				isJobStopped(job)
					? `job ${jobId} ${job.status}: ${job.error ?? 'no reason given'}`
					: `job ${jobId} is still ${job.status}`,
			);
		}
		for await (const row of client.results(jobId, { signal })) results.push(row);
	}
	const unsent = listOf(options.unsent);
	const verdicts = rowVerdicts(preflight, results, open.length, {
		notVerifiedReason: stopped.length
			? `${stopped.join('; ')}, before this row was verified`
			: jobIds.length
				? 'no result came back for this address'
				: 'no job was given for this row',
		// The sheet's own row number where it has one (Google Sheets' row_number), else the item's place.
		rowName: (k) => {
			const json = items[open[k]].json;
			return typeof json.row_number === 'number' ? json.row_number : open[k] + 1;
		},
		// The next run sends the open rows: a copy of a row without an answer must be among them.
		keepCopiesOpen: true,
		notSent: unsent.length
			? { emails: unsent, after: options.continueAfter || undefined }
			: undefined,
	});

	const sentBy = addressesByItem(preflight, open.length);
	const answerOf = new Map<string, ResultRow>();
	for (const row of results) answerOf.set(String(row.email).toLowerCase(), row);
	const out: INodeExecutionData[] = items.map((item, index) => itemFor(item.json, index));
	open.forEach((index, k) => {
		const cells = verdicts.cellsOf(k);
		const json: IDataObject = { ...items[index].json };
		RESULT_COLUMNS.forEach((column, c) => (json[column] = cells[c]));
		const [address] = sentBy[k];
		const answer = address === undefined ? undefined : answerOf.get(address.toLowerCase());
		if (answer !== undefined) {
			// An answer came: the count goes on from the row's own cell (empty the first time).
			Object.assign(json, answeredRowFields(items[index].json.verify_attempts, answer, now));
		}
		out[index] = itemFor(json, index);
	});
	return out;
}
