/**
 * `npm run n8n:dev` (the root `npm run n8n`): a real n8n with this package installed as users install it
 * (the packed tarball, `npm install`ed into the user folder's .n8n/nodes), a sandbox of the service
 * running, the credential and the example workflows imported. Prints the editor URL and keeps running
 * until Ctrl+C. Started through tsx (the npm script does), like the harness it uses.
 *
 * Environment: EVF_N8N_VERSION (default the pinned 2.8.4; 2.41.3 also works, on its own Node.js 24),
 * N8N_DEV_PORT (default 5678, else a free port), EVF_SANDBOX_PORT (default 8787, else free),
 * EVF_N8N_DEV_FOLDER (default ~/.cache/evf-n8n/dev-instance-<version>: keeps your workflows between runs).
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals --
 * n8n's rules keep Node's process, file system and network out of code that runs inside n8n; this
 * launcher starts n8n from outside, on the developer's machine, and is never packed (files: dist). */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_PORT, DEMO_ACCOUNT, startSandbox } from '@evf/sandbox';
import * as runner from '../test/harness/n8n-runner';

const CREDENTIAL_ID = 'evfSandboxCred01';

function portIsFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

async function pickPort(preferred: number): Promise<number> {
	return (await portIsFree(preferred)) ? preferred : await runner.freePort();
}

function say(line = ''): void {
	process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
	const version = process.env.EVF_N8N_VERSION || runner.PINNED;
	say(
		`Preparing n8n ${version} with n8n-nodes-evf (the first run installs n8n: about 5 minutes)...`,
	);
	await runner.ensureN8n(version);
	const tarball = runner.packTarball();

	// The sandbox's public demo account, the same as `npm start`: its key only works against this sandbox.
	const sandbox = await startSandbox({
		port: await pickPort(Number(process.env.EVF_SANDBOX_PORT) || DEFAULT_PORT),
		timeScale: 1,
		allowInsecureWebhooks: true,
		accounts: [DEMO_ACCOUNT],
	});

	const port = await pickPort(Number(process.env.N8N_DEV_PORT) || 5678);
	const folder =
		process.env.EVF_N8N_DEV_FOLDER ||
		path.join(os.homedir(), '.cache', 'evf-n8n', `dev-instance-${version}`);
	fs.mkdirSync(folder, { recursive: true });
	// Each run installs the current build over the last one, as updating a community package does.
	runner.installPackage(folder, tarball);
	// One key per dev folder, so credentials saved in earlier runs can still be decrypted.
	const keyFile = path.join(folder, 'evf-encryption-key');
	if (!fs.existsSync(keyFile))
		fs.writeFileSync(keyFile, crypto.randomBytes(24).toString('hex'), {
			mode: 0o600,
		});
	const instance = await runner.createInstance({
		version,
		port,
		userFolder: folder,
		encryptionKey: fs.readFileSync(keyFile, 'utf8').trim(),
	});

	await runner.importCredentials(instance, [
		{
			id: CREDENTIAL_ID,
			name: 'Email Verification (local sandbox)',
			type: 'emailVerificationApi',
			data: {
				apiKey: sandbox.apiKey,
				baseUrl: sandbox.baseUrl,
				webhookSecret: sandbox.webhookSecret,
			},
		},
	]);
	const examplesDir = path.join(runner.PACKAGE_DIR, 'examples');
	const examples = fs
		.readdirSync(examplesDir)
		.filter((file) => file.endsWith('.json'))
		.map(
			(file) =>
				JSON.parse(fs.readFileSync(path.join(examplesDir, file), 'utf8')) as { name: string },
		);
	await runner.importWorkflows(instance, examples);

	const server = await runner.startN8n({ instance });
	say('');
	say(
		`n8n editor        ${server.url}/  (n8n ${version}; first visit: create the local owner account)`,
	);
	say(
		`Sandbox API       ${sandbox.baseUrl}  (credential "Email Verification (local sandbox)" is set up)`,
	);
	say(`Example workflows ${examples.map((w) => `"${w.name}"`).join(', ')}`);
	say(
		'Start with "Sample rows -> one bulk job -> route by group": it runs on the sandbox as it is.',
	);
	say('Ctrl+C stops n8n and the sandbox.');

	let stopping = false;
	const stop = async (): Promise<void> => {
		if (stopping) return;
		stopping = true;
		say('\nStopping...');
		await server.stop();
		await sandbox.close();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop());
	process.on('SIGTERM', () => void stop());
}

main().catch((error: Error) => {
	process.stderr.write(`${error.stack ?? error}\n`);
	process.exit(1);
});
