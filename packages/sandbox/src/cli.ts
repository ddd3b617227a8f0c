/**
 * `npm start`: the sandbox on a fixed local port in real time, for building zaps, workflows and
 * scenarios without an account. The key and secret it prints are the sandbox's public demo credentials.
 */
import { DEMO_ACCOUNT } from './demo-account';
import { DEFAULT_PORT } from './options';
import { startSandbox } from './server';

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(`PORT must be a whole number from 0 to 65535; got "${raw}"`);
  }
  return port;
}

async function main(): Promise<void> {
  const configIndex = process.argv.indexOf('--config');
  const configFile =
    configIndex >= 0 ? process.argv[configIndex + 1] : process.env.SANDBOX_CONFIG || undefined;
  const sandbox = await startSandbox({
    port: parsePort(process.env.PORT),
    host: process.env.HOST || '127.0.0.1',
    timeScale: 1,
    allowInsecureWebhooks: true,
    ...(configFile ? { configFile } : { accounts: [DEMO_ACCOUNT] }),
  });
  const lines = [
    '',
    'Email verification sandbox: a local copy of the service. No account, no network, no real credits.',
    '',
    `  Base URL            ${sandbox.baseUrl}`,
    `  API key             ${sandbox.apiKey}`,
    `  Key id              ${sandbox.keyId}`,
    `  Webhook secret      ${sandbox.webhookSecret}`,
    `  Admin/fault API     ${sandbox.origin}/__sandbox/state`,
    '',
    "  The key and secret above are the sandbox's public demo credentials, printed on purpose.",
    '  They work only against this local sandbox; they are not secrets. Never paste a real key here.',
    '',
    'Nothing uses this sandbox unless told to: no connector and no client call has a default address.',
    'Point a connector at it:',
    `  n8n      credential "Email Verification API": Base URL ${sandbox.baseUrl}, API key and webhook secret as`,
    '           above (an n8n on this machine reaches it; npm run n8n starts one already connected).',
    "  Zapier   the connection asks for the API key and webhook secret, not an address: the app's owner sets it.",
    `           For local runs (zapier-platform invoke) put EVF_BASE_URL=${sandbox.baseUrl} in packages/zapier/.env.`,
    "           Zapier's servers cannot reach this machine, so a Zap in your account uses the real service.",
    "  Make     Make's servers cannot reach this machine either: npm run demo shows the Make app against this",
    "           sandbox through the local model of Make (the repository's harness, not Make itself).",
    '',
    'Addresses choose their own answers by how the name before @ starts: valid..., invalid..., catchall...,',
    'full..., disabled..., unknown..., notverified..., trap..., temp..., info@/sales@/admin@..., slow... (408 on single).',
    'See packages/sandbox/README.md for the full table. Ctrl+C stops the sandbox.',
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
  const stop = (): void => {
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`The sandbox could not start: ${(err as Error).message}\n`);
  process.exit(1);
});
