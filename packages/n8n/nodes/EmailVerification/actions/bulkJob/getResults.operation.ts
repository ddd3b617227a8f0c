import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { EmailVerificationClient } from '@evf/client';
import {
	groupFilter,
	jobIdLocator,
	limitOption,
	sheetFieldsOption,
	simplifyOption,
} from '../common.descriptions';
import { appendResultRows } from '../../helpers/waiting';

const properties: INodeProperties[] = [
	jobIdLocator,
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: true,
		description: 'Whether to return all results or only up to a given limit',
	},
	{ ...limitOption },
	{ ...groupFilter },
	{ ...simplifyOption },
	{ ...sheetFieldsOption },
];

export const description = updateDisplayOptions(
	{ show: { resource: ['bulkJob'], operation: ['getResults'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	client: EmailVerificationClient,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const jobId = this.getNodeParameter('jobId', itemIndex, '', { extractValue: true }) as string;
	const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex) as number);
	const groups = this.getNodeParameter('groups', itemIndex, []) as string[];
	const simplify = this.getNodeParameter('simplify', itemIndex, false) as boolean;
	const sheetFields = this.getNodeParameter('sheetFields', itemIndex, false) as boolean;
	const out: INodeExecutionData[] = [];
	await appendResultRows(
		client,
		jobId,
		{ groups, simplify, sheetFields, limit },
		itemIndex,
		out,
		this.getExecutionCancelSignal(),
	);
	return out;
}
