import type { INodeProperties } from 'n8n-workflow';
import * as submit from './submit.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as getResults from './getResults.operation';
import * as getResultsForRows from './getResultsForRows.operation';
import * as waitForCompletion from './waitForCompletion.operation';

export { submit, get, getMany, getResults, getResultsForRows, waitForCompletion };

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
				action: 'Get the status and counts of a bulk job given its job ID for free',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				description: 'List recent jobs, newest first',
				action: 'Get many bulk jobs newest first with each job ID and status for free',
			},
			{
				name: 'Get Results',
				value: 'getResults',
				description: 'Get the verified rows of a job, with category and group',
				action: 'Get the verified rows of a finished bulk job given its job ID for free',
			},
			{
				name: 'Get Results for Rows',
				value: 'getResultsForRows',
				description:
					"Put each row's result beside it: every input item comes out with Category, Group, Safe to Send, Reason and Verification",
				action:
					'Get the results of bulk jobs beside the input rows given the job ID list and the address field for free',
			},
			{
				name: 'Submit',
				value: 'submit',
				description:
					'Verify a list in the background: all input items become one job (split above 50,000)',
				action:
					'Submit a list of email addresses as one bulk job given the addresses for 1 credit per unique address and get its job ID',
			},
			{
				name: 'Wait for Completion',
				value: 'waitForCompletion',
				description: 'Wait until a job finishes, by webhook or by polling',
				action: 'Wait for a bulk job to finish given its job ID and get its rows for free',
			},
		],
		default: 'submit',
	},
	...submit.description,
	...get.description,
	...getMany.description,
	...getResults.description,
	...getResultsForRows.description,
	...waitForCompletion.description,
];
