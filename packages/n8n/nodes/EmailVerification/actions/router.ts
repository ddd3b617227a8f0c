import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { EmailVerificationClient } from '@evf/client';
import * as account from './account/Account.resource';
import * as apiKey from './apiKey/ApiKey.resource';
import * as bulkJob from './bulkJob/BulkJob.resource';
import * as email from './email/Email.resource';
import type { EmailVerificationType } from './node.type';
import { errorJson, toNodeError } from '../helpers/errors';
import { forEachItem, itemFor } from '../helpers/items';
import { clientFor } from '../transport';

type PerItem = (
	this: IExecuteFunctions,
	client: EmailVerificationClient,
	itemIndex: number,
) => Promise<INodeExecutionData[]>;

type WholeInput = (
	this: IExecuteFunctions,
	client: EmailVerificationClient,
	items: INodeExecutionData[],
) => Promise<INodeExecutionData[]>;

const perItem: Record<string, PerItem> = {
	'bulkJob.get': bulkJob.get.execute,
	'bulkJob.getMany': bulkJob.getMany.execute,
	'bulkJob.getResults': bulkJob.getResults.execute,
	'account.getAccount': account.getAccount.execute,
	'account.getCredits': account.getCredits.execute,
	'account.getSubscription': account.getSubscription.execute,
	'apiKey.revoke': apiKey.revoke.execute,
};

/**
 * Operations that read all input items at once (one job from a whole sheet; one pause per execution;
 * Verify, whose stop part way keeps the items already answered).
 */
const wholeInput: Record<string, WholeInput> = {
	'email.verify': email.verify.execute,
	'bulkJob.submit': bulkJob.submit.execute,
	'bulkJob.getResultsForRows': bulkJob.getResultsForRows.execute,
	'bulkJob.waitForCompletion': bulkJob.waitForCompletion.execute,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as EmailVerificationType['resource'];
	const operation = this.getNodeParameter('operation', 0) as EmailVerificationType['operation'];
	const key = `${resource}.${operation}`;

	let client: EmailVerificationClient;
	try {
		client = await clientFor(this);
	} catch (error) {
		// A bad credential fails every item; with Continue On Fail each item says so, rather than the
		// engine passing the input on as if nothing went wrong.
		const nodeError = toNodeError(this.getNode(), error);
		if (!this.continueOnFail()) throw nodeError;
		return [items.map((_, i) => itemFor(errorJson(nodeError), [i]))];
	}

	const single = perItem[key];
	if (single) {
		return [await forEachItem(this, items, async (i) => await single.call(this, client, i))];
	}
	const whole = wholeInput[key];
	if (!whole) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	}
	try {
		return [await whole.call(this, client, items)];
	} catch (error) {
		const nodeError = toNodeError(this.getNode(), error);
		if (!this.continueOnFail()) throw nodeError;
		return [
			[
				itemFor(
					errorJson(nodeError),
					items.map((_, i) => i),
				),
			],
		];
	}
}
