import type { INodeProperties } from 'n8n-workflow';
import * as submit from './submit.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as getResults from './getResults.operation';
import * as waitForCompletion from './waitForCompletion.operation';

export { submit, get, getMany, getResults, waitForCompletion };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['bulkJob'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get the status and counts of a job',
				action: 'Get a bulk job',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List recent jobs, newest first',
				action: 'Get many bulk jobs',
			},
			{
				name: 'Get Results',
				value: 'getResults',
				description: 'Get the verified rows of a job, with category and group',
				action: 'Get results of a bulk job',
			},
			{
				name: 'Submit',
				value: 'submit',
				description:
					'Verify a list in the background: all input items become one job (split above 50,000)',
				action: 'Submit a bulk job',
			},
			{
				name: 'Wait for Completion',
				value: 'waitForCompletion',
				description: 'Wait until a job finishes, by webhook or by polling',
				action: 'Wait for a bulk job to finish',
			},
		],
		default: 'submit',
	},
	...submit.description,
	...get.description,
	...getMany.description,
	...getResults.description,
	...waitForCompletion.description,
];
