import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

/**
 * The action node's description. n8n's node creator merges the webhook trigger into the action's entry
 * and shows the trigger's description for it, so the trigger carries this same text.
 */
export const NODE_DESCRIPTION =
	'Verify email addresses one by one or whole sheets as one bulk job, wait for jobs and route rows by group';

export const jobIdLocator: INodeProperties = {
	displayName: 'Job',
	name: 'jobId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The bulk job to use',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchJobs', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. job_8f2c1a',
			hint: "Map the job_id field of a submitted job. For an AI agent, let the model fill it with $fromAI('job_id', 'The job ID that Submit or Get Many gave', 'string')",
		},
	],
};

export const groupFilter: INodeProperties = {
	displayName: 'Groups',
	name: 'groups',
	type: 'multiOptions',
	default: [],
	description:
		'Only output rows in these groups. Leave empty for all rows. Groups come from details, never from the row status.',
	options: [
		{ name: 'Safe to Send', value: 'safe_to_send' },
		{ name: 'Risky', value: 'risky' },
		{ name: 'Invalid', value: 'invalid' },
	],
};

export const simplifyOption: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: false,
	description:
		'Whether to return only email, category, group, safe_to_send, status, score and reason instead of every field',
};

export const sheetFieldsOption: INodeProperties = {
	displayName: 'Only Sheet Fields',
	name: 'sheetFields',
	type: 'boolean',
	default: false,
	description:
		'Whether to return only email, category, group, safe_to_send and reason: what a sheet needs, and the least memory for large jobs (n8n on a small container). Overrides Simplify.',
};

/**
 * Wait settings shared by Submit (when it waits) and Wait for Completion. `forExistingJob` is Wait for
 * Completion: the job was submitted before this node, so a webhook wait only works when that submission
 * named this execution's resume URL, and the option texts say so.
 */
export function waitProperties(
	show: NonNullable<IDisplayOptions['show']>,
	{ forExistingJob = false }: { forExistingJob?: boolean } = {},
): INodeProperties[] {
	return [
		{
			displayName: 'Wait Method',
			name: 'waitMethod',
			type: 'options',
			default: 'auto',
			displayOptions: { show },
			options: [
				{
					name: 'Automatic',
					value: 'auto',
					description: forExistingJob
						? "Poll the job. Only a job submitted with this execution's resume URL as its Webhook URL can call back here: for that, choose Webhook."
						: 'Wait by webhook when this n8n can be reached from the service, else poll',
				},
				{
					name: 'Webhook (Resume This Execution)',
					value: 'webhook',
					description:
						'The execution pauses and resumes when the service reports the finished job. Needs a public n8n address and the Webhook Signing Secret in the credential.',
				},
				{
					name: 'Polling',
					value: 'polling',
					description: 'Ask the service every 10 to 30 seconds while the execution keeps running',
				},
			],
		},
		{
			displayName: 'Timeout (Minutes)',
			name: 'timeoutMinutes',
			type: 'number',
			default: 60,
			typeOptions: { minValue: 1 },
			displayOptions: { show },
			description:
				"How long to wait for the job. Polling fails with a clear error after it; a webhook wait continues with this node's input items.",
		},
		{
			displayName: 'Poll Interval (Seconds)',
			name: 'pollIntervalSeconds',
			type: 'number',
			default: 15,
			typeOptions: { minValue: 10, maxValue: 30 },
			// A webhook wait never polls, so the interval would only mislead there.
			displayOptions: { show: { ...show, waitMethod: ['auto', 'polling'] } },
			description: 'Seconds between status checks when polling (the service recommends 10 to 30)',
		},
		{
			displayName: 'Output',
			name: 'waitOutput',
			type: 'options',
			default: 'results',
			displayOptions: { show },
			options: [
				{
					name: 'Result Rows',
					value: 'results',
					description: 'One item per verified address, with category and group',
				},
				{ name: 'Job Summary', value: 'job', description: 'One item per job with its counts' },
			],
		},
	];
}

/** The Limit shown when Return All is off, for every list operation (whole numbers of items only). */
export const limitOption: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	default: 50,
	typeOptions: { minValue: 1, numberPrecision: 0 },
	displayOptions: { show: { returnAll: [false] } },
	description: 'Max number of results to return',
};
