'use strict';
/**
 * A real n8n for the editor test, with this package installed the way a self-hosted user installs a
 * community package by hand: `npm pack`, then `npm install <tarball>` in the user folder's
 * `.n8n/nodes` (https://docs.n8n.io/integrations/community-nodes/installation/manual-install/).
 * n8n itself comes from scripts/ensure-n8n.cjs (cached outside the repository).
 */
const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { ensureN8n } = require('../../scripts/ensure-n8n.cjs');

const PACKAGE_DIR = path.resolve(__dirname, '..', '..');

function run(command, args, cwd) {
	const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
	if (result.status !== 0)
		throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
	return result.stdout;
}

/** Packs the package as built in dist (npm run build must have run) into a fresh folder. */
function packPackage() {
	const into = fs.mkdtempSync(path.join(os.tmpdir(), 'evf-editor-pack-'));
	run('npm', ['pack', '--silent', '--pack-destination', into], PACKAGE_DIR);
	const tarball = fs.readdirSync(into).find((file) => file.endsWith('.tgz'));
	if (!tarball) throw new Error(`npm pack left no tarball in ${into}`);
	return path.join(into, tarball);
}

/** A user folder whose .n8n/nodes holds the package installed from its tarball. */
function userFolderWith(tarball) {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'evf-editor-user-'));
	const nodes = path.join(folder, '.n8n', 'nodes');
	fs.mkdirSync(nodes, { recursive: true });
	fs.writeFileSync(
		path.join(nodes, 'package.json'),
		'{ "name": "installed-nodes", "private": true }\n',
	);
	// The package's only dependency is its peer n8n-workflow, which n8n provides: a second copy
	// installed here would be the one the node loads.
	run(
		'npm',
		['install', '--no-audit', '--no-fund', '--omit=peer', '--legacy-peer-deps', tarball],
		nodes,
	);
	fs.rmSync(path.dirname(tarball), { recursive: true, force: true });
	return folder;
}

function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

async function waitForReady(url, alive, timeoutMs) {
	const started = Date.now();
	for (;;) {
		try {
			if ((await fetch(`${url}/healthz/readiness`)).ok) return;
		} catch {
			// not listening yet
		}
		if (!alive()) throw new Error('n8n stopped while starting');
		if (Date.now() - started > timeoutMs)
			throw new Error(`n8n did not start within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** Starts `n8n start` on a free loopback port for the user folder; the folder goes with stop(). */
async function startN8n(userFolder, version) {
	const installed = await ensureN8n(version);
	const port = await freePort();
	const url = `http://127.0.0.1:${port}`;
	// Jest's variables would change n8n's behaviour (NODE_ENV=test silences its logger).
	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(([key]) => key !== 'NODE_ENV' && !key.startsWith('JEST_')),
	);
	const env = {
		...inherited,
		NODE_ENV: 'production',
		N8N_USER_FOLDER: userFolder,
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		WEBHOOK_URL: `${url}/`,
		N8N_EDITOR_BASE_URL: `${url}/`,
		N8N_ENCRYPTION_KEY: crypto.randomBytes(24).toString('hex'),
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_LOG_LEVEL: process.env.EVF_N8N_LOG_LEVEL || 'warn',
		GENERIC_TIMEZONE: 'UTC',
	};
	const child = spawn(installed.node ?? process.execPath, [installed.bin, 'start'], {
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let logs = '';
	child.stdout.on('data', (d) => (logs += d));
	child.stderr.on('data', (d) => (logs += d));
	let exited = false;
	child.on('exit', () => (exited = true));
	try {
		await waitForReady(url, () => !exited, 180_000);
	} catch (error) {
		child.kill('SIGKILL');
		throw new Error(`${error.message}\n${logs.slice(-4000)}`);
	}
	return {
		url,
		userFolder,
		logs: () => logs,
		async stop() {
			if (!exited) {
				const done = new Promise((resolve) => child.on('exit', resolve));
				child.kill('SIGTERM');
				const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
				await done;
				clearTimeout(timer);
			}
			fs.rmSync(userFolder, { recursive: true, force: true });
		},
	};
}

module.exports = { PACKAGE_DIR, packPackage, userFolderWith, freePort, startN8n };
