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
			default: 'https://api.example.invalid/api',
			description:
				'Address of the service, ending in /api. For the local sandbox use http://127.0.0.1:8787/api.',
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
		},
	};
}
