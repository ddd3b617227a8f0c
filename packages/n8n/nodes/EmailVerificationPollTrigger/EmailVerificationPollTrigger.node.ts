import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { isJobStopped } from '@evf/client';
import { toNodeError } from '../EmailVerification/helpers/errors';
import { itemFor } from '../EmailVerification/helpers/items';
import { clientFor } from '../EmailVerification/transport';
import { rememberJob } from '../EmailVerification/helpers/seenJobs';

/** Jobs looked at per poll: the newest ones, where a job that just finished is. */
const JOBS_PER_POLL = 100;

export class EmailVerificationPollTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Email Verification Poll Trigger',
		name: 'emailVerificationPollTrigger',
		icon: {
			light: 'file:../../icons/emailVerification.svg',
			dark: 'file:../../icons/emailVerification.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		// The canvas shows it under the node name, so it says how, not what again.
		subtitle: 'Checks the newest jobs',
		description:
			'Starts the workflow when a bulk job finishes, by checking the job list. For n8n instances the service cannot reach.',
		defaults: { name: 'On Bulk Job Finished (Polling)' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'emailVerificationApi', required: true }],
		properties: [
			{
				displayName: `At the Poll Times set above, checks the ${JOBS_PER_POLL} newest jobs and starts the workflow once for each job that has finished since the last check. Reading jobs costs no credits.`,
				name: 'pollNotice',
				type: 'notice',
				default: '',
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const staticData = this.getWorkflowStaticData('node');
		const firstRun = staticData.seenJobIds === undefined;
		const manual = this.getMode() === 'manual';
		try {
			const client = await clientFor(this);
			const finished: IDataObject[] = [];
			for await (const job of client.jobs({ maxItems: JOBS_PER_POLL })) {
				// List items carry no terminal flag: isJobStopped then goes by the status.
				if (isJobStopped(job)) finished.push(job as unknown as IDataObject);
			}
			if (manual) {
				// A test run shows the newest finished job without marking anything as seen.
				const newest = finished[0];
				if (!newest) return null;
				return [
					[itemFor((await client.getJob(String(newest.job_id))) as unknown as IDataObject, 0)],
				];
			}
			const fresh = finished.filter((job) => rememberJob(staticData, String(job.job_id)));
			// The first run only learns which jobs had finished before the workflow was activated.
			if (firstRun || fresh.length === 0) {
				if (firstRun) staticData.seenJobIds ??= [];
				return null;
			}
			const items: INodeExecutionData[] = [];
			// Oldest first, so downstream steps see jobs in the order they finished.
			for (const job of fresh.reverse()) {
				items.push(itemFor((await client.getJob(String(job.job_id))) as unknown as IDataObject, 0));
			}
			return [items];
		} catch (error) {
			throw toNodeError(this.getNode(), error);
		}
	}
}
