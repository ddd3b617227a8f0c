import type { INodeProperties } from 'n8n-workflow';
import * as getAccount from './getAccount.operation';
import * as getCredits from './getCredits.operation';
import * as getSubscription from './getSubscription.operation';

export { getAccount, getCredits, getSubscription };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['account'] } },
		options: [
			{
				name: 'Get Account',
				value: 'getAccount',
				description: 'Get plan and credit details of the account',
				action: 'Get the account and its plan for free',
			},
			{
				name: 'Get Credits',
				value: 'getCredits',
				description: 'Get the credit balance and recent usage',
				action: 'Get the credit balance and recent usage for free',
			},
			{
				name: 'Get Subscription',
				value: 'getSubscription',
				description: 'Get the subscription status and renewal date',
				action: 'Get the subscription and its renewal date for free',
			},
		],
		default: 'getCredits',
	},
];
