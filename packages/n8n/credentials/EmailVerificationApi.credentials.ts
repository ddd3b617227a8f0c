import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

export class EmailVerificationApi implements ICredentialType {
	name = 'emailVerificationApi';

	displayName = 'Email Verification API';

	icon: Icon = {
		light: 'file:../icons/emailVerification.svg',
		dark: 'file:../icons/emailVerification.dark.svg',
	};

	documentationUrl =
		'https://github.com/evf-connectors/n8n-nodes-evf?tab=readme-ov-file#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			placeholder: 'evf_...',
			description:
				'Starts with evf_. Create a key in the app under Profile, then API; it is shown once.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			// No default: any address put here would be wrong for someone, and a wrong host fails later
			// with an error that does not point back to this field.
			default: '',
			placeholder: 'https://<your service host>/api',
			description:
				'The API address of the service, ending in /api (every endpoint is under it, e.g. /api/v1/account). Use https.',
		},
		{
			displayName: 'Webhook Signing Secret',
			name: 'webhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			placeholder: 'whsec_...',
			description:
				'Starts with whsec_. Found in the app under Profile, API, Webhooks. Needed by the trigger and by Wait for Completion through a webhook.',
		},
		{
			displayName: 'Previous Webhook Signing Secret',
			name: 'previousWebhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			placeholder: 'whsec_...',
			description:
				'Only while rotating the secret: the old one, so messages signed before the rotation are still accepted. Clear it afterwards.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'X-API-Key': '={{$credentials.apiKey}}',
			},
		},
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/v1/account',
			method: 'GET',
			// Seen in n8n 2.8.4: an error status reaches the credential test without its response, so
			// responseCode rules never apply and the user reads n8n's generic text ("The resource you are
			// requesting could not be found" for a Base URL without /api). Taking every answer lets the
			// rule below name the fields to check.
			ignoreHttpStatusErrors: true,
		},
		rules: [
			{
				// Every account answer has a plan (spec: Account, GET /v1/account); an error answer, or a
				// page that is not the API, has none.
				type: 'responseSuccessBody',
				properties: {
					key: 'plan',
					value: undefined,
					message:
						"Couldn't read the account with these settings. Check that the Base URL is the service's API address, ending in /api, and that the API key is right.",
				},
			},
		],
	};
}
