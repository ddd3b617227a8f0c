import { assertWebhookSecret, type Account } from '@evf/client';
import type { Authentication, Bundle, ZObject } from 'zapier-platform-core';
import { apiKeyOf, clientFor, webhookSecrets } from './client';
import { APP_ORIGIN } from './config';
import { mapErrors } from './errors';

/**
 * Test request GET /v1/account: proves the key works and gives the label the account's name and email.
 * The service offers no way to check a signing secret (it only signs with it), so the secret is checked
 * for the slips the client can tell (no whsec_ prefix, the API key in its place, pasted twice); a
 * well-formed wrong secret shows at the first completion message, where the job is read with the key.
 * Errors are worded for the connection dialog (no run to replay, no Zap to turn on).
 */
const test = mapErrors(async (z: ZObject, bundle: Bundle): Promise<Account> => {
  for (const secret of webhookSecrets(bundle)) assertWebhookSecret(secret);
  return clientFor(z, bundle).getAccount();
}, 'connection');

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

/**
 * Names the connected account (Zapier check D003: the label must tell connections apart, never hold a
 * secret). The spec shows only plan and credits and says a few further fields are "not shown", so
 * each field is read defensively: name (or company) and email when present, else the account ID. Without
 * them (the spec's own account), the key's last four characters and the plan: "Key ending 3f9a (pro
 * plan)" tells two connections of one plan apart, and four characters of a key are no usable part of
 * it (the user can match them against the key they pasted). With none of them the label is empty, so Zapier's own name
 * applies (the app's name, "#2" for a second connection): a constant would be an app name again, which
 * Zapier already puts in every label ("it is redundant to add any hard coded app name",
 * https://docs.zapier.com/platform/build/connection-label).
 */
export async function connectionLabel(_z: ZObject, bundle: Bundle<Partial<Account>>): Promise<string> {
  const account = bundle.inputData ?? {};
  const name = text(account.name) ?? text(account.company);
  const email = text(account.email);
  if (name && email && name !== email) return `${name} (${email})`;
  if (name ?? email) return (name ?? email)!;
  const id = text(account.account_id) ?? text(account.id);
  if (id) return `Account ${id}`;
  const plan = text(account.plan);
  const key = apiKeyOf(bundle);
  const ending = key && key.length >= 12 ? key.slice(-4) : undefined;
  if (ending) return plan ? `Key ending ${ending} (${plan} plan)` : `Key ending ${ending}`;
  return plan ? `Account on the ${plan} plan` : '';
}

export const authentication = {
  type: 'custom',
  fields: [
    {
      key: 'api_key',
      label: 'API Key',
      type: 'password',
      required: true,
      helpText: `Create a key in the app ([open it](${APP_ORIGIN})) under Profile, then API. It starts with \`evf_\` and is shown once, so paste it right away.`,
    },
    {
      key: 'webhook_secret',
      label: 'Webhook Signing Secret',
      type: 'password',
      required: false,
      helpText: `Optional but recommended: lets "Verify List and Wait for Results" prove a completion message really came from the service. Copy it in the app ([open it](${APP_ORIGIN})) under Profile, API, Webhooks; it starts with \`whsec_\`. The service cannot check a secret when you connect, so a mistyped one shows only when a list finishes: the step then reads the job with the API key, returns its rows and says so in its note (Completion Message Verified = false). If that happens, open Profile, API, Webhooks, copy the secret again and paste it here. During a rotation, paste both secrets with a space between them.`,
    },
  ],
  test,
  connectionLabel,
} satisfies Authentication;
