import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { EmailVerificationClient } from '@evf/client';
import { itemFor } from '../../helpers/items';

const properties: INodeProperties[] = [
	{
		displayName: 'Key ID',
		name: 'keyId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. key_3f9a',
		description:
			'The ID of the API key to revoke, as shown in the app (not the key itself). Revoking the key this credential uses stops this workflow.',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['apiKey'], operation: ['revoke'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	client: EmailVerificationClient,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const keyId = this.getNodeParameter('keyId', itemIndex) as string;
	await client.revokeKey(keyId.trim(), { signal: this.getExecutionCancelSignal() });
	return [itemFor({ deleted: true }, itemIndex)];
}
