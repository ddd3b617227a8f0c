import type { INodeProperties } from 'n8n-workflow';
import * as revoke from './revoke.operation';

export { revoke };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['apiKey'] } },
		options: [
			{
				name: 'Revoke',
				value: 'revoke',
				description: 'Revoke an API key of the account (for key rotation)',
				action: 'Revoke an API key given its key ID which cannot be undone',
			},
		],
		default: 'revoke',
	},
	...revoke.description,
];
