import type { INodeProperties } from 'n8n-workflow';
import * as account from './account/Account.resource';
import * as apiKey from './apiKey/ApiKey.resource';
import * as bulkJob from './bulkJob/BulkJob.resource';
import * as email from './email/Email.resource';

/** Every parameter of version 1: the resource selector, then each resource's operations. */
export const versionProperties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Account', value: 'account' },
			{ name: 'API Key', value: 'apiKey' },
			{ name: 'Bulk Job', value: 'bulkJob' },
			{ name: 'Email', value: 'email' },
		],
		default: 'email',
	},
	...email.description,
	...bulkJob.description,
	...account.description,
	...apiKey.description,
];
