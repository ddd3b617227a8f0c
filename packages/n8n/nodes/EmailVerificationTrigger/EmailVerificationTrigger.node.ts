import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { appendResultRows } from '../EmailVerification/helpers/waiting';
import {
	groupFilter,
	NODE_DESCRIPTION,
	simplifyOption,
} from '../EmailVerification/actions/common.descriptions';
import { verifiedDelivery } from '../EmailVerification/helpers/delivery';
import { itemFor } from '../EmailVerification/helpers/items';
import { clientFor } from '../EmailVerification/transport';
import { claimJob } from '../EmailVerification/helpers/seenJobs';
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
		// The canvas shows the node name already; the subtitle says what the node outputs.
		subtitle: '={{ $parameter["output"] === "results" ? "Result rows" : "Job summary" }}',
		// n8n's node creator merges this trigger into the Email Verification node's entry and shows this
		// description for both: the action node's own, so its panel says what the action does.
		description: NODE_DESCRIPTION,
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
		// What n8n's trigger panel says instead of its generic "go to the service and create an event".
		triggerPanel: {
			header: "Submit a bulk job with this trigger's Test URL as its Webhook URL",
			executionsHelp: {
				inactive:
					"<b>While building your workflow</b>, click 'Execute step', then run an Email Verification node with Bulk Job > Submit whose <i>Webhook URL</i> option is this trigger's <b>Test URL</b> (shown under Webhook URLs above). When the job finishes, the service calls it and the job appears here.<br /><br /><b>Once your workflow is ready</b>, publish it and use the <b>Production URL</b> in Submit instead. Each finished job then starts one execution, which you can see in the <a data-key=\"executions\">list of executions</a>.",
				active:
					"<b>While building your workflow</b>, click 'Execute step', then submit a bulk job whose <i>Webhook URL</i> is this trigger's <b>Test URL</b>. When the job finishes, it appears here.<br /><br /><b>Your workflow is published</b>: every job submitted with the <b>Production URL</b> as its Webhook URL starts one execution when it finishes. You can see them in the <a data-key=\"executions\">list of executions</a>.",
			},
			activationHint:
				"Once you've finished building your workflow, publish it and put the <b>Production URL</b> into the Webhook URL option of Bulk Job > Submit.",
		},
		properties: [
			{
				// The option name is what n8n's node creator lists as this trigger's action ("On bulk job
				// finished") instead of a generic "On new Email Verification event".
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				default: 'bulkJobFinished',
				options: [
					{
						name: 'Bulk Job Finished',
						value: 'bulkJobFinished',
						description: 'A bulk job completed, failed or was cancelled',
					},
				],
			},
			{
				displayName:
					'Put the Production URL above into the Webhook URL option of Bulk Job > Submit. Every delivery is checked against the Webhook Signing Secret of the credential; others get 401.',
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
		const response = this.getResponseObject();
		const verified = await verifiedDelivery(this);
		if (!verified) return { noWebhookResponse: true };

		// Static data is saved with the workflow, so every n8n process sees the same list; the claim in
		// this process's memory also stops copies that arrive at the same moment (see claimJob).
		// Per mode too: a test event in the editor must not hide the first production delivery of that job.
		const scope = `${this.getWorkflow().id ?? ''}:${this.getNode().id}:${this.getMode()}`;
		if (!claimJob(scope, this.getWorkflowStaticData('node'), verified.jobId, Date.now())) {
			response.status(200).json({ received: true, duplicate: true });
			return { noWebhookResponse: true };
		}

		const items: INodeExecutionData[] = [];
		if (this.getNodeParameter('output', 'job') === 'results') {
			const options = this.getNodeParameter('resultOptions', {}) as {
				groups?: string[];
				simplify?: boolean;
			};
			const client = await clientFor(this);
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
