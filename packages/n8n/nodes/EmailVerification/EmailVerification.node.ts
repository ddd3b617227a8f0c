import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { router } from './actions/router';
import { versionProperties } from './actions/versionDescription';
import { NODE_DESCRIPTION } from './actions/common.descriptions';
import { resumeOnWebhook } from './helpers/waiting';
import { searchJobs } from './methods/listSearch';
import { noWebhookLifecycle } from './helpers/webhookLifecycle';

export class EmailVerification implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Email Verification',
		name: 'emailVerification',
		icon: {
			light: 'file:../../icons/emailVerification.svg',
			dark: 'file:../../icons/emailVerification.dark.svg',
		},
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description: NODE_DESCRIPTION,
		defaults: { name: 'Email Verification' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'emailVerificationApi', required: true }],
		// Called through $execution.resumeUrl by the job's webhook when the node waits by webhook.
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				path: '',
				restartWebhook: true,
				isFullPath: true,
			},
		],
		properties: versionProperties,
	};

	methods = { listSearch: { searchJobs } };

	webhookMethods = { default: noWebhookLifecycle };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await resumeOnWebhook.call(this);
	}
}
