import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { isJobStopped, type EmailVerificationClient } from '@evf/client';
import {
	groupFilter,
	jobIdLocator,
	sheetFieldsOption,
	simplifyOption,
	waitProperties,
} from '../common.descriptions';
import { forEachItem, itemFor } from '../../helpers/items';
import {
	outputStoppedJob,
	pollAndOutput,
	readRowOptions,
	readWaitSettings,
	usableResumeUrl,
} from '../../helpers/waiting';

const [waitMethod, ...waitDetails] = waitProperties({}, { forExistingJob: true });

const properties: INodeProperties[] = [
	jobIdLocator,
	waitMethod,
	{
		// Shown only once the user picks Webhook: the one choice that needs a step taken earlier.
		displayName:
			"Waiting by webhook works only for a job submitted earlier in this same execution with this execution's resume URL as its Webhook URL (see Submit's Options). For any other job, choose Polling.",
		name: 'resumeNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { waitMethod: ['webhook'] } },
	},
	...waitDetails,
	{
		displayName: 'Result Options',
		name: 'resultOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: { waitOutput: ['results'] } },
		options: [groupFilter, simplifyOption, sheetFieldsOption],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['bulkJob'], operation: ['waitForCompletion'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	client: EmailVerificationClient,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const read = (name: string, fallback: unknown) => this.getNodeParameter(name, 0, fallback);
	const settings = readWaitSettings(read);
	const rows = readRowOptions(read);
	const signal = this.getExecutionCancelSignal();
	const jobIds = items.map(
		(_, i) => this.getNodeParameter('jobId', i, '', { extractValue: true }) as string,
	);
	// A job submitted elsewhere never calls this execution's resume URL, so only an explicit Webhook
	// choice (the job was submitted with that URL) pauses here; Automatic polls.
	const resumeUrl =
		settings.method !== 'webhook' || items.length !== 1
			? undefined
			: await usableResumeUrl(this, settings);
	if (resumeUrl) {
		// A job that already stopped will not call back again: answer now instead of pausing.
		const job = await client.getJob(jobIds[0], { signal });
		if (isJobStopped(job)) {
			const out: INodeExecutionData[] = [];
			await outputStoppedJob(client, job, settings, rows, 0, out, signal);
			return out;
		}
		await this.putExecutionToWait(new Date(Date.now() + settings.timeoutMs));
		return [itemFor({ ...(job as unknown as IDataObject), waiting_by: 'webhook' }, 0)];
	}
	return await forEachItem(this, items, async (i) =>
		pollAndOutput(this, client, [jobIds[i]], settings, rows, i),
	);
}
