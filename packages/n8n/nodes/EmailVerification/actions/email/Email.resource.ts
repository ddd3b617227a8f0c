import type { INodeProperties } from 'n8n-workflow';
import * as verify from './verify.operation';

export { verify };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['email'] } },
		options: [
			{
				name: 'Verify',
				value: 'verify',
				description: 'Verify one address now and get its category and group',
				action:
					'Verify one email address for 1 credit given the address and get its category and group and whether it is safe to send',
			},
		],
		default: 'verify',
	},
	...verify.description,
];
