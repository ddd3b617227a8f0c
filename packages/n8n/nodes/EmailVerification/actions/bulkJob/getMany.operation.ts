import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { JOB_STATUSES, type EmailVerificationClient } from '@evf/client';
import { itemFor } from '../../helpers/items';
import { limitOption } from '../common.descriptions';

const properties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{ ...limitOption },
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				default: 'completed',
				options: JOB_STATUSES.map((status) => ({
					name: status.charAt(0).toUpperCase() + status.slice(1),
					value: status,
				})),
				description: 'Only jobs with this status',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['bulkJob'], operation: ['getMany'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	client: EmailVerificationClient,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex) as number);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as { status?: string };
	const out: INodeExecutionData[] = [];
	for await (const job of client.jobs({
		status: filters.status || undefined,
		maxItems: limit,
		signal: this.getExecutionCancelSignal(),
	})) {
		out.push(itemFor(job as unknown as IDataObject, itemIndex));
	}
	return out;
}
