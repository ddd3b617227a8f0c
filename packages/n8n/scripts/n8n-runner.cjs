'use strict';
/**
 * Drives the real n8n (the pinned install from ensure-n8n.cjs) with this package loaded through
 * N8N_CUSTOM_EXTENSIONS: build, import credentials and workflows, execute headless, start the server.
 * Shared by the end-to-end test, `npm run n8n:dev` and the demo. Node-level code lives in CommonJS
 * because n8n's lint rules forbid process, timers and child_process in the package's TypeScript.
 */
const { spawn, spawnSync, execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { ensureN8n, isInstalled, n8nBin, n8nHome } = require('./ensure-n8n.cjs');

const PACKAGE_DIR = path.resolve(__dirname, '..');
const DIST_DIR = path.join(PACKAGE_DIR, 'dist');
/** Nodes loaded from a custom extension folder get this package prefix in n8n. */
const CUSTOM_PREFIX = 'CUSTOM';

function log(message) {
	process.stderr.write(`[n8n-runner] ${message}\n`);
}

/** `n8n-node build` (type check, icons) then the esbuild bundle, as `npm run build` does. */
function buildPackage() {
	const result = spawnSync('npm', ['run', 'build', '--silent'], {
		cwd: PACKAGE_DIR,
		encoding: 'utf8',
	});
	if (result.status !== 0) {
		throw new Error(`building n8n-nodes-evf failed:\n${result.stdout}\n${result.stderr}`);
	}
	return DIST_DIR;
}

function freePort() {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

/** A fresh, private n8n instance folder and the environment that points n8n at it. */
async function createInstance({ port, userFolder, encryptionKey, extra = {} } = {}) {
	const folder = userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'evf-n8n-user-'));
	// Jest sets NODE_ENV=test, which silences n8n's logger (and so `execute --rawOutput`): run it as users do.
	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(([key]) => key !== 'NODE_ENV' && !key.startsWith('JEST_')),
	);
	const env = {
		...inherited,
		NODE_ENV: 'production',
		N8N_USER_FOLDER: folder,
		N8N_CUSTOM_EXTENSIONS: DIST_DIR,
		N8N_ENCRYPTION_KEY: encryptionKey ?? crypto.randomBytes(24).toString('hex'),
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_LOG_LEVEL: process.env.EVF_N8N_LOG_LEVEL || 'warn',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		// Each instance gets its own task-runner broker port, so it never collides with another n8n here.
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		...(port ? { N8N_PORT: String(port), WEBHOOK_URL: `http://127.0.0.1:${port}/` } : {}),
		...extra,
	};
	return { folder, env, port };
}

function runCli(instance, args, { timeoutMs = 180_000, wrap } = {}) {
	return new Promise((resolve, reject) => {
		const command = wrap ? wrap.command : process.execPath;
		const argv = wrap ? [...wrap.args, process.execPath, n8nBin(), ...args] : [n8nBin(), ...args];
		const child = spawn(command, argv, { env: instance.env, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (d) => (stdout += d));
		child.stderr.on('data', (d) => (stderr += d));
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			reject(
				new Error(`n8n ${args[0]} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`),
			);
		}, timeoutMs);
		child.on('error', reject);
		child.on('close', (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
	});
}

async function runCliOk(instance, args, options) {
	const result = await runCli(instance, args, options);
	if (result.code !== 0)
		throw new Error(
			`n8n ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`,
		);
	return result;
}

function writeTemp(instance, name, data) {
	const file = path.join(instance.folder, name);
	fs.writeFileSync(file, JSON.stringify(data, null, 2));
	return file;
}

/** Credentials given in clear text; `n8n import:credentials` encrypts them with the instance key. */
async function importCredentials(instance, credentials) {
	const file = writeTemp(instance, 'import-credentials.json', credentials);
	await runCliOk(instance, ['import:credentials', `--input=${file}`]);
	fs.rmSync(file);
}

async function importWorkflows(instance, workflows) {
	for (const workflow of workflows) {
		const file = writeTemp(instance, `import-workflow-${workflow.id}.json`, workflow);
		await runCliOk(instance, ['import:workflow', `--input=${file}`]);
		fs.rmSync(file);
	}
}

async function publishWorkflow(instance, id) {
	await runCliOk(instance, ['publish:workflow', `--id=${id}`]);
}

/** Runs a workflow headless and returns n8n's run data (`n8n execute --rawOutput`). */
async function executeWorkflow(instance, id, options) {
	// `n8n execute` prints the run data through its logger at level info.
	const result = await runCli(
		{ ...instance, env: { ...instance.env, N8N_LOG_LEVEL: 'info' } },
		['execute', `--id=${id}`, '--rawOutput'],
		options,
	);
	const start = result.stdout.indexOf('\n{');
	const text = result.stdout.startsWith('{') ? result.stdout : result.stdout.slice(start + 1);
	let run;
	try {
		run = JSON.parse(text);
	} catch {
		throw new Error(
			`n8n execute --id=${id} printed no run data (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
		);
	}
	return { run, code: result.code, stderr: result.stderr };
}

/** The output items of a node in a run, by node name. */
function nodeOutput(run, nodeName) {
	const runs = run?.data?.resultData?.runData?.[nodeName];
	if (!runs || !runs.length) return undefined;
	const last = runs[runs.length - 1];
	if (last.error) return { error: last.error };
	return (last.data?.main?.[0] ?? []).map((item) => item.json);
}

async function waitForHttp(url, { timeoutMs = 120_000, isAlive } = {}) {
	const started = Date.now();
	for (;;) {
		try {
			const response = await fetch(url);
			if (response.ok) return;
		} catch {
			// not listening yet
		}
		if (isAlive && !isAlive()) throw new Error(`n8n stopped while starting (${url})`);
		if (Date.now() - started > timeoutMs)
			throw new Error(`n8n did not answer ${url} within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** The libfaketime preload library, when Debian's faketime package is installed. */
function findFaketimeLibrary() {
	for (const dir of [
		'/usr/lib/x86_64-linux-gnu/faketime',
		'/usr/lib/aarch64-linux-gnu/faketime',
		'/usr/lib/faketime',
	]) {
		const file = path.join(dir, 'libfaketime.so.1');
		if (fs.existsSync(file)) return file;
	}
	return undefined;
}

/** Installs Debian's faketime when missing (CI runs as root); returns the library or undefined. */
function ensureFaketime() {
	let library = findFaketimeLibrary();
	if (library) return library;
	log("installing Debian package faketime (to run n8n at the webhook test vectors' clock)");
	const install = () =>
		spawnSync('apt-get', ['install', '-y', '-q', 'faketime'], {
			stdio: 'ignore',
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
		});
	if (install().status !== 0) {
		spawnSync('apt-get', ['update', '-q'], { stdio: 'ignore' });
		install();
	}
	library = findFaketimeLibrary();
	return library;
}

/**
 * Starts `n8n start` for the instance. With `frozenTime` (epoch ms) n8n's wall clock is held at that
 * instant through libfaketime, while its timers keep running on the real monotonic clock.
 */
async function startServer(instance, { frozenTime, timeoutMs = 180_000 } = {}) {
	if (!instance.port) throw new Error('createInstance({ port }) is needed to start the server');
	const env = { ...instance.env };
	if (frozenTime !== undefined) {
		const library = ensureFaketime();
		if (!library)
			throw new Error(
				'faketime is not installed and could not be installed (apt-get install faketime)',
			);
		env.LD_PRELOAD = library;
		env.FAKETIME = new Date(frozenTime)
			.toISOString()
			.replace('T', ' ')
			.replace(/\.\d+Z$/, '');
		env.TZ = 'UTC';
		env.FAKETIME_DONT_FAKE_MONOTONIC = '1';
	}
	const child = spawn(process.execPath, [n8nBin(), 'start'], {
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let logs = '';
	child.stdout.on('data', (d) => (logs += d));
	child.stderr.on('data', (d) => (logs += d));
	let exited = false;
	child.on('exit', () => (exited = true));
	const url = `http://127.0.0.1:${instance.port}`;
	try {
		await waitForHttp(`${url}/healthz/readiness`, { timeoutMs, isAlive: () => !exited });
	} catch (error) {
		child.kill('SIGKILL');
		throw new Error(`${error.message}\n${logs.slice(-4000)}`);
	}
	return {
		url,
		pid: child.pid,
		logs: () => logs,
		async stop() {
			if (exited) return;
			const done = new Promise((resolve) => child.on('exit', resolve));
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
			await done;
			clearTimeout(timer);
		},
	};
}

/** Rewrites a workflow written for the published package (n8n-nodes-evf.*) to the custom-folder prefix. */
function forCustomExtensions(workflow) {
	return JSON.parse(JSON.stringify(workflow).replaceAll('"n8n-nodes-evf.', `"${CUSTOM_PREFIX}.`));
}

function removeInstance(instance) {
	fs.rmSync(instance.folder, { recursive: true, force: true });
}

module.exports = {
	CUSTOM_PREFIX,
	DIST_DIR,
	PACKAGE_DIR,
	buildPackage,
	createInstance,
	ensureN8n,
	ensureFaketime,
	executeWorkflow,
	forCustomExtensions,
	freePort,
	importCredentials,
	importWorkflows,
	isInstalled,
	n8nHome,
	nodeOutput,
	publishWorkflow,
	removeInstance,
	runCli,
	startServer,
};
