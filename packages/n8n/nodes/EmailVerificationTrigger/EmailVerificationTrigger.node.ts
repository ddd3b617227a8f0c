import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { verifyWebhook, WebhookVerificationError } from '@evf/client';
import { appendResultRows } from '../EmailVerification/actions/bulkJob/waiting';
import { groupFilter, simplifyOption } from '../EmailVerification/actions/common.descriptions';
import { toNodeError } from '../EmailVerification/helpers/errors';
import { itemFor } from '../EmailVerification/helpers/items';
import { createClient, getCredentialsOf, signingSecrets } from '../EmailVerification/transport';
import { rememberJob } from './seenJobs';
import { noWebhookLifecycle } from '../EmailVerification/helpers/webhookLifecycle';

export class EmailVerificationTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Email Verification Trigger',
		name: 'emailVerificationTrigger',
		icon: {
			light: 'file:../../icons/emailVerification.svg',
			dark: 'file:../../icons/emailVerification.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: 'On Bulk Job Finished',
		description:
			'Starts the workflow when a bulk job finishes, from the signed webhook the service sends once per job',
		defaults: { name: 'On Bulk Job Finished' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'emailVerificationApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: 'bulk-job-finished',
			},
		],
		properties: [
			{
				displayName:
					'Copy the production URL above into the Webhook URL option of Bulk Job > Submit. Every delivery is checked against the Webhook Signing Secret of the credential; others get 401.',
				name: 'setupNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Output',
				name: 'output',
				type: 'options',
				default: 'job',
				options: [
					{
						name: 'Job Summary',
						value: 'job',
						description: 'One item with the job ID, status, counts and results URL',
					},
					{
						name: 'Result Rows',
						value: 'results',
						description: 'One item per verified address, read from the results URL',
					},
				],
			},
			{
				displayName: 'Result Options',
				name: 'resultOptions',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				displayOptions: { show: { output: ['results'] } },
				options: [groupFilter, simplifyOption],
			},
			{
				// n8n skips its own body parsing for version-1 webhook nodes whose options.binaryData is set,
				// so a body that is not JSON reaches the signature check (and gets 401) instead of n8n's 422.
				displayName: 'Raw Body',
				name: 'options',
				type: 'hidden',
				default: { binaryData: true },
			},
		],
	};

	webhookMethods = { default: noWebhookLifecycle };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject() as ReturnType<IWebhookFunctions['getRequestObject']> & {
			rawBody?: Buffer;
			readRawBody?: () => Promise<void>;
		};
		const response = this.getResponseObject();
		if (request.rawBody === undefined && typeof request.readRawBody === 'function')
			await request.readRawBody();
		const credentials = await getCredentialsOf(this);
		let verified: ReturnType<typeof verifyWebhook>;
		try {
			verified = verifyWebhook({
				rawBody: request.rawBody ?? '',
				headers: request.headers,
				secrets: signingSecrets(credentials),
			});
		} catch (error) {
			if (!(error instanceof WebhookVerificationError)) throw toNodeError(this.getNode(), error);
			response.status(401).json({ error: 'invalid_signature', code: error.code });
			return { noWebhookResponse: true };
		}

		// Static data, not memory: it is saved with the workflow, so every worker sees the same list.
		if (!rememberJob(this.getWorkflowStaticData('node'), verified.jobId)) {
			response.status(200).json({ received: true, duplicate: true });
			return { noWebhookResponse: true };
		}

		const items: INodeExecutionData[] = [];
		if (this.getNodeParameter('output', 'job') === 'results') {
			const options = this.getNodeParameter('resultOptions', {}) as {
				groups?: string[];
				simplify?: boolean;
			};
			const client = await createClient(this);
			await appendResultRows(
				client,
				verified.jobId,
				{ groups: options.groups ?? [], simplify: options.simplify ?? false },
				0,
				items,
			);
		} else {
			items.push(
				itemFor(
					{
						...(verified.body as unknown as IDataObject),
						event: verified.event,
						timestamp: verified.timestamp,
					},
					0,
				),
			);
		}
		return { workflowData: [items] };
	}
}
