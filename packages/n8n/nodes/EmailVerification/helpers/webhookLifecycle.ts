import type { IHookFunctions } from 'n8n-workflow';

/**
 * The API has no call to subscribe a webhook: the URL travels with each job (and the resume URL lives
 * only while an execution waits), so there is nothing to register, check or remove on the service.
 */
export const noWebhookLifecycle = {
	async checkExists(this: IHookFunctions): Promise<boolean> {
		return true;
	},
	async create(this: IHookFunctions): Promise<boolean> {
		return true;
	},
	async delete(this: IHookFunctions): Promise<boolean> {
		return true;
	},
};
