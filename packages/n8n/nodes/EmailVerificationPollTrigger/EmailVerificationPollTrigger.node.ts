import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import {
	creditBelow,
	creditThreshold,
	isJobStopped,
	readFinishedFeed,
	type BelowMemory,
	type FeedState,
} from '@evf/client';
import { toNodeError } from '../EmailVerification/helpers/errors';
import { itemFor } from '../EmailVerification/helpers/items';
import { clientFor } from '../EmailVerification/transport';

/**
 * The time one poll may spend reading. n8n's shortest poll interval is one minute ('everyMinute', the
 * smallest of Poll Times in n8n-workflow's node-helpers): 50 s of reads, each cut to what is left, end
 * the poll before the next one is due even at 9 s per answer (pages start at 0, 9, ... 45 s).
 */
export const POLL_BUDGET_MS = 50_000;

const FEED_KEY = 'finishedFeed';
/** Per threshold, when the balance was first seen below it: `{ since }`, as the client's rule keeps it. */
const belowKey = (threshold: number) => `creditBelow:${threshold}`;

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
		subtitle:
			'={{$parameter["watchFor"] === "creditBalanceBelow" ? "Checks the credit balance" : "Checks the job list"}}',
		description:
			'Starts the workflow when a bulk job finishes, by checking the job list (for n8n instances the service cannot reach), or when the credits left drop below a threshold.',
		defaults: { name: 'On Bulk Job Finished (Polling)' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'emailVerificationApi', required: true }],
		properties: [
			{
				// Not named "event": n8n's node creator lists an "event" option's values as separate actions,
				// and this node is added as one node whose details page describes it.
				displayName: 'Watch For',
				name: 'watchFor',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Bulk Job Finished',
						value: 'jobFinished',
						description: 'Once for each bulk job that has finished since the last check',
					},
					{
						name: 'Credit Balance Below',
						value: 'creditBalanceBelow',
						description:
							'Once when the credits left drop below Threshold; again only after they rose to Threshold or more and dropped once more',
					},
				],
				default: 'jobFinished',
			},
			{
				displayName: 'Threshold',
				name: 'threshold',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 0 },
				required: true,
				default: 1000,
				description:
					'The workflow starts when fewer credits than this are left (e.g. 1000). Each address verified costs 1 credit; reading the balance is free.',
				displayOptions: { show: { watchFor: ['creditBalanceBelow'] } },
			},
			{
				displayName:
					"At the Poll Times set above, reads the credit balance (free) and starts the workflow once each time it falls under Threshold, with the credits short of it (credits_short) and the balance's fields.",
				name: 'belowNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { watchFor: ['creditBalanceBelow'] } },
			},
			{
				displayName:
					'At the Poll Times set above, reads the job list back to the oldest job still running at the last check, and starts the workflow once for each job that has finished since, with the fields of the job list (job_id, status, total_emails, processed, progress_percent, created_at). Reading jobs costs no credits.',
				name: 'pollNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { watchFor: ['jobFinished'] } },
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const staticData = this.getWorkflowStaticData('node');
		const manual = this.getMode() === 'manual';
		try {
			const client = await clientFor(this);
			const now = () => Date.now();
			if (this.getNodeParameter('watchFor', 'jobFinished') === 'creditBalanceBelow') {
				const threshold = creditThreshold(this.getNodeParameter('threshold', 1000));
				const balance = await client.getCredits();
				const key = belowKey(threshold);
				const stored = staticData[key] as unknown as BelowMemory | undefined;
				// A test run shows what a drop would give, without remembering it.
				const { item, memory } = creditBelow(
					manual ? undefined : stored,
					balance.credits,
					threshold,
					now(),
				);
				if (!manual) staticData[key] = memory as unknown as IDataObject;
				if (!item) return null;
				// The same drop is one item: later polls while the balance stays low emit nothing.
				if (!manual && stored?.since === memory.since) return null;
				return [[itemFor({ ...item, ...balance } as unknown as IDataObject, 0)]];
			}
			if (manual) {
				// A test run shows the newest finished job without marking anything as seen.
				for await (const job of client.jobs({ maxItems: 100 })) {
					if (isJobStopped(job)) return [[itemFor(job as unknown as IDataObject, 0)]];
				}
				return null;
			}
			const stored = staticData[FEED_KEY] as unknown as FeedState | undefined;
			const feed = await readFinishedFeed(client, stored?.since ? stored : undefined, {
				now,
				deadline: now() + POLL_BUDGET_MS,
			});
			staticData[FEED_KEY] = feed.state as unknown as IDataObject;
			// The first poll only learns which jobs had finished before the workflow was activated.
			if (feed.fresh.length === 0) return null;
			// Oldest first, so downstream steps see jobs in the order they were made.
			return [feed.fresh.map((job) => itemFor(job as unknown as IDataObject, 0))];
		} catch (error) {
			throw toNodeError(this.getNode(), error);
		}
	}
}
