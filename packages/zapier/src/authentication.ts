import { assertWebhookSecret, type Account } from '@evf/client';
import type { Authentication, Bundle, ZObject } from 'zapier-platform-core';
import { clientFor, webhookSecrets } from './client';
import { API_KEYS_URL, WEBHOOKS_SETTINGS_URL } from './config';
import { mapErrors } from './errors';

/**
 * Test request GET /v1/account: proves the key works and gives the label its plan and credits. A
 * mistyped signing secret is caught here too, not when the first completion message is refused.
 */
const test = mapErrors(async (z: ZObject, bundle: Bundle): Promise<Account> => {
  for (const secret of webhookSecrets(bundle)) assertWebhookSecret(secret);
  return clientFor(z, bundle).getAccount();
});

async function connectionLabel(_z: ZObject, bundle: Bundle<Partial<Account>>): Promise<string> {
  const { plan, credits } = bundle.inputData;
  const planName =
    typeof plan === 'string' && plan
      ? plan
      : plan && typeof plan === 'object'
        ? JSON.stringify(plan)
        : 'Unknown';
  const balance = typeof credits === 'number' ? credits.toLocaleString('en-US') : '?';
  return `${planName} plan, ${balance} credits`;
}

export const authentication = {
  type: 'custom',
  fields: [
    {
      key: 'api_key',
      label: 'API Key',
      type: 'password',
      required: true,
      helpText: `Create a key in the app under Profile, then API ([open it](${API_KEYS_URL})). It starts with \`evf_\` and is shown once, so paste it right away.`,
    },
    {
      key: 'webhook_secret',
      label: 'Webhook Signing Secret',
      type: 'password',
      required: false,
      helpText: `Optional but recommended: lets "Verify List and Wait for Results" prove a completion message really came from the service. Copy it in the app under Profile, API, Webhooks ([open it](${WEBHOOKS_SETTINGS_URL})); it starts with \`whsec_\`.`,
    },
  ],
  test,
  connectionLabel,
} satisfies Authentication;
