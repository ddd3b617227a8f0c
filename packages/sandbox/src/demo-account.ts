import type { AccountSeed } from './engine/accounts';

/**
 * The account `npm start` and `npm run n8n` seed: fixed, public credentials, so a zap, workflow or
 * scenario built against the local sandbox keeps working across restarts. They only work here.
 */
export const DEMO_ACCOUNT: AccountSeed = {
  id: 'acct_demo',
  name: 'Demo account',
  plan: 'pro',
  credits: 1_000_000,
  keys: [{ id: 'key_demo', key: 'evf_sandbox_demo_public_key_0001' }],
  webhookSecret: 'whsec_sandbox_demo_public_secret_0001',
};
