import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { EmailVerificationClient } from '@evf/client';
import { jobIdLocator } from '../common.descriptions';
import { itemFor } from '../../helpers/items';

export const description = updateDisplayOptions(
	{ show: { resource: ['bulkJob'], operation: ['get'] } },
	[jobIdLocator],
);

export async function execute(
	this: IExecuteFunctions,
	client: EmailVerificationClient,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const jobId = this.getNodeParameter('jobId', itemIndex, '', { extractValue: true }) as string;
	const job = await client.getJob(jobId, { signal: this.getExecutionCancelSignal() });
	return [itemFor(job as unknown as IDataObject, itemIndex)];
}
