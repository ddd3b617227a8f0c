import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { VerificationTimeoutError, withCategory, type EmailVerificationClient } from '@evf/client';
import { toNodeError } from '../../helpers/errors';
import { itemFor } from '../../helpers/items';

const properties: INodeProperties[] = [
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'name@example.com',
		default: '',
		required: true,
		description: 'The address to verify (costs 1 credit)',
		hint: "For an AI agent, let the model fill it with $fromAI('email', 'The email address to verify', 'string')",
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Check Mail Server (SMTP)',
				name: 'checkSmtp',
				type: 'boolean',
				default: true,
				description: 'Whether to ask the mail server. Turning it off is faster but less certain.',
			},
			{
				displayName: 'On Timeout',
				name: 'onTimeout',
				type: 'options',
				default: 'output',
				description:
					'What to do when the mail server gives no answer within 30 seconds (the credit is refunded)',
				options: [
					{
						name: 'Output an Item',
						value: 'output',
						description: 'Output the address with timed_out set to true and keep going',
					},
					{ name: 'Fail', value: 'fail', description: 'Stop with an error (or continue on fail)' },
				],
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['email'], operation: ['verify'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	client: EmailVerificationClient,
	itemIndex: number,
): Promise<INodeExecutionData[]> {
	const email = this.getNodeParameter('email', itemIndex) as string;
	const options = this.getNodeParameter('options', itemIndex, {}) as {
		checkSmtp?: boolean;
		onTimeout?: 'output' | 'fail';
	};
	try {
		const result = await client.verifySingle(
			{ email, check_smtp: options.checkSmtp },
			{ signal: this.getExecutionCancelSignal() },
		);
		return [
			itemFor({ ...withCategory(result), timed_out: false } as unknown as IDataObject, itemIndex),
		];
	} catch (error) {
		if (error instanceof VerificationTimeoutError && (options.onTimeout ?? 'output') === 'output') {
			return [
				itemFor(
					{
						email: email.trim(),
						timed_out: true,
						credits_refunded: true,
						message: error.message,
					},
					itemIndex,
				),
			];
		}
		throw toNodeError(this.getNode(), error, itemIndex);
	}
}
