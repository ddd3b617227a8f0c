import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { EmailVerificationClient } from '@evf/client';
import { itemFor } from '../../helpers/items';

export async function execute(
	this: IExecuteFunctions,
	client: EmailVerificationClient,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const subscription = await client.getSubscription({ signal: this.getExecutionCancelSignal() });
	return [itemFor(subscription as unknown as IDataObject, itemIndex)];
}
