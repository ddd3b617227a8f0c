/**
 * Drives a real n8n (a cached install from ensure-n8n.ts) with this package installed the way a
 * self-hosted user installs it: `npm pack`, then `npm install <tarball>` in the n8n user folder's
 * `.n8n/nodes` (n8n's manual install, also the one its queue-mode docs give). Shared by the end-to-end
 * tests, `npm run n8n`, the demo and the editor test.
 *
 * The stable API (signatures kept as they are; other suites build on them):
 *   ensureN8n(version?)                          -> { version, home, bin, node }
 *   packTarball()                                -> absolute path of n8n-nodes-evf-<version>.tgz
 *   installPackage(userFolder, tgz)              -> the nodes folder it installed into
 *   createInstance({ version?, port?, ... })     -> Instance (a private user folder and its env)
 *   startN8n({ instance, command?, env?, ... })  -> N8nProcess { url, pid, logs(), stop() }
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error --
 * n8n's rules keep Node's process, timers, file system and child processes out of code that runs inside
 * n8n; this harness drives n8n from outside, on the developer's machine and in CI, and is never packed. */
import { spawn, spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PINNED, n8nBin, nodeFor } from './ensure-n8n';
import { freePort, supervise } from './processes';
import { insideLimit, type MemoryLimit } from './memory-limit';

export { NEWEST, PINNED, ensureN8n, isInstalled, matrixVersions, n8nHome } from './ensure-n8n';
export { freePort } from './processes';

/** One n8n installation's settings: a user folder and the environment that points a version at it. */
export interface Instance {
	/** The n8n version this instance runs (one of the proven versions in ensure-n8n.ts). */
	version: string;
	/** N8N_USER_FOLDER: n8n keeps its data, settings and `nodes/` in `<folder>/.n8n`. */
	folder: string;
	env: Record<string, string | undefined>;
	port?: number;
}

export type N8nCommand = 'start' | 'worker' | 'webhook';

export interface N8nProcess {
	command: N8nCommand;
	/** http://127.0.0.1:<N8N_PORT> (for a worker: the instance's main port, where it has none itself). */
	url: string;
	pid: number;
	logs(): string;
	stop(): Promise<void>;
}

export interface CliResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** n8n's run data as `n8n execute --rawOutput` prints it: the parts nodeOutput reads. */
export interface RunData {
	data?: {
		resultData?: {
			runData?: Record<
				string,
				Array<{
					error?: unknown;
					data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> };
				}>
			>;
		};
	};
}

export const PACKAGE_DIR = path.resolve(__dirname, '..', '..');
export const DIST_DIR = path.join(PACKAGE_DIR, 'dist');
export const PACKAGE_NAME: string = JSON.parse(
	fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8'),
).name;

/** `n8n-node build` (type check, icons) then the esbuild bundle, as `npm run build` does. */
export function buildPackage(): string {
	const result = spawnSync('npm', ['run', 'build', '--silent'], {
		cwd: PACKAGE_DIR,
		encoding: 'utf8',
	});
	if (result.status !== 0) {
		throw new Error(`building ${PACKAGE_NAME} failed:\n${result.stdout}\n${result.stderr}`);
	}
	return DIST_DIR;
}

let packed: string | undefined;
/**
 * Builds the package and packs it as `npm publish` would (the `files` list, the package.json), into a
 * temporary folder. Once per process: every instance of a run installs the same tarball. In the
 * real-n8n jest runs the global setup packs it once for all their files (EVF_N8N_TARBALL), so files
 * that run side by side never build `dist/` at the same time.
 */
export function packTarball(): string {
	const shared = process.env.EVF_N8N_TARBALL;
	if (shared && fs.existsSync(shared)) return shared;
	if (packed && fs.existsSync(packed)) return packed;
	buildPackage();
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evf-n8n-pack-'));
	// Installed copies live in each user folder; the tarball itself goes when this process ends (jest
	// gives test files their own process object, so suites also call discardTarball in afterAll).
	process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
	const result = spawnSync('npm', ['pack', '--json', '--pack-destination', dir], {
		cwd: PACKAGE_DIR,
		encoding: 'utf8',
	});
	if (result.status !== 0) throw new Error(`npm pack failed:\n${result.stdout}\n${result.stderr}`);
	const [{ filename }] = JSON.parse(result.stdout) as Array<{ filename: string }>;
	packed = path.join(dir, path.basename(filename));
	return packed;
}

/** Deletes the tarball packTarball made (the next packTarball packs again); never the shared one. */
export function discardTarball(): void {
	if (packed) fs.rmSync(path.dirname(packed), { recursive: true, force: true });
	packed = undefined;
}

/** n8n's folder inside N8N_USER_FOLDER, where it keeps its database, settings and `nodes/`. */
export function n8nFolder(userFolder: string): string {
	return path.join(userFolder, '.n8n');
}

/**
 * `npm install <tgz>` in `<userFolder>/.n8n/nodes`, as n8n documents the manual install (and as its
 * queue-mode docs say to do on every main, worker and webhook process). The folder gets the same
 * package.json n8n writes there itself. Returns the nodes folder.
 */
export function installPackage(userFolder: string, tgz: string): string {
	const nodesDir = path.join(n8nFolder(userFolder), 'nodes');
	fs.mkdirSync(nodesDir, { recursive: true });
	const manifest = path.join(nodesDir, 'package.json');
	if (!fs.existsSync(manifest)) {
		fs.writeFileSync(
			manifest,
			`${JSON.stringify({ name: 'installed-nodes', private: true, dependencies: {} }, null, 2)}\n`,
		);
	}
	const result = spawnSync('npm', ['install', '--no-audit', '--no-fund', tgz], {
		cwd: nodesDir,
		encoding: 'utf8',
	});
	if (result.status !== 0) {
		throw new Error(
			`npm install ${tgz} in ${nodesDir} failed:\n${result.stdout}\n${result.stderr}`,
		);
	}
	return nodesDir;
}

/**
 * A fresh, private n8n instance: a user folder and the environment that points one n8n version at it.
 * `extra` is merged last (queue mode adds its database and Redis settings there). Pass the same
 * `userFolder` and `encryptionKey` to several instances to run them as one installation.
 */
export async function createInstance({
	version = PINNED,
	port,
	userFolder,
	encryptionKey,
	extra = {},
}: {
	version?: string;
	port?: number;
	userFolder?: string;
	encryptionKey?: string;
	extra?: Record<string, string>;
} = {}): Promise<Instance> {
	const folder = userFolder ?? fs.mkdtempSync(path.join(os.tmpdir(), 'evf-n8n-user-'));
	// Jest sets NODE_ENV=test, which silences n8n's logger (and so `execute --rawOutput`): run it as users do.
	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(
			([key]) =>
				key !== 'NODE_ENV' &&
				!key.startsWith('JEST_') &&
				!key.startsWith('N8N_') &&
				!key.startsWith('npm_'),
		),
	);
	const env = {
		...inherited,
		NODE_ENV: 'production',
		N8N_USER_FOLDER: folder,
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
	return { version, folder, env, port };
}

/** The Node.js and the n8n CLI an instance runs with. */
function commandOf(instance: Instance): { node: string; bin: string } {
	return { node: nodeFor(instance.version), bin: n8nBin(instance.version) };
}

export function runCli(
	instance: Instance,
	args: string[],
	{ timeoutMs = 240_000 }: { timeoutMs?: number } = {},
): Promise<CliResult> {
	return new Promise((resolve, reject) => {
		const { node, bin } = commandOf(instance);
		const child = spawn(node, [bin, ...args], {
			env: instance.env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
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

async function runCliOk(
	instance: Instance,
	args: string[],
	options?: { timeoutMs?: number },
): Promise<CliResult> {
	const result = await runCli(instance, args, options);
	if (result.code !== 0)
		throw new Error(
			`n8n ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`,
		);
	return result;
}

function writeTemp(instance: Instance, name: string, data: unknown): string {
	const file = path.join(instance.folder, name);
	fs.writeFileSync(file, JSON.stringify(data, null, 2));
	return file;
}

/** Credentials given in clear text; `n8n import:credentials` encrypts them with the instance key. */
export async function importCredentials(instance: Instance, credentials: unknown[]): Promise<void> {
	const file = writeTemp(instance, 'import-credentials.json', credentials);
	await runCliOk(instance, ['import:credentials', `--input=${file}`]);
	fs.rmSync(file);
}

/** All workflows in one `n8n import:workflow --separate` (each n8n CLI start costs seconds). */
export async function importWorkflows(instance: Instance, workflows: unknown[]): Promise<void> {
	const dir = fs.mkdtempSync(path.join(instance.folder, 'import-workflows-'));
	workflows.forEach((workflow, index) =>
		fs.writeFileSync(path.join(dir, `${index}.json`), JSON.stringify(workflow)),
	);
	await runCliOk(instance, ['import:workflow', '--separate', `--input=${dir}`]);
	fs.rmSync(dir, { recursive: true, force: true });
}

/** Marks a workflow active for the next start (`n8n publish:workflow` in n8n 2.x). */
export async function publishWorkflow(instance: Instance, id: string): Promise<void> {
	await runCliOk(instance, ['publish:workflow', `--id=${id}`]);
}

/** Runs a workflow headless and returns n8n's run data (`n8n execute --rawOutput`). */
export async function executeWorkflow(
	instance: Instance,
	id: string,
	options?: { timeoutMs?: number },
): Promise<{ run: RunData; code: number | null; stderr: string }> {
	// `n8n execute` prints the run data through its logger at level info.
	const result = await runCli(
		{ ...instance, env: { ...instance.env, N8N_LOG_LEVEL: 'info' } },
		['execute', `--id=${id}`, '--rawOutput'],
		options,
	);
	// The run data is printed indented, between a line `{` and a line `}`; n8n's task runner may log
	// before or after it (a runner that registers late prints its line after the run data).
	const lines = result.stdout.split('\n');
	const first = lines.indexOf('{');
	const last = first < 0 ? -1 : lines.indexOf('}', first);
	const candidates = [
		lines.slice(first, last + 1).join('\n'),
		...lines.filter((line) => line.startsWith('{') && line.endsWith('}')),
	];
	let run: RunData | undefined;
	for (const text of candidates) {
		try {
			run = JSON.parse(text);
			break;
		} catch {
			// not the run data
		}
	}
	if (run === undefined) {
		throw new Error(
			`n8n execute --id=${id} printed no run data (exit ${result.code}):\n${result.stdout}\n${result.stderr}`,
		);
	}
	return { run, code: result.code, stderr: result.stderr };
}

/** The output items of a node in a run, by node name. */
export function nodeOutput(
	run: RunData,
	nodeName: string,
): Array<Record<string, unknown>> | { error: unknown } | undefined {
	const runs = run?.data?.resultData?.runData?.[nodeName];
	if (!runs || !runs.length) return undefined;
	const last = runs[runs.length - 1];
	if (last.error) return { error: last.error };
	return (last.data?.main?.[0] ?? []).map((item) => item.json);
}

async function waitForHttp(
	url: string,
	{ timeoutMs, isAlive }: { timeoutMs: number; isAlive: () => boolean },
): Promise<void> {
	const started = Date.now();
	for (;;) {
		try {
			const response = await fetch(url);
			if (response.ok) return;
		} catch {
			// not listening yet
		}
		if (!isAlive()) throw new Error(`n8n stopped while starting (${url})`);
		if (Date.now() - started > timeoutMs)
			throw new Error(`n8n did not answer ${url} within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/**
 * Starts a long-running n8n process for an instance and resolves once it is ready:
 * - `start` (the main process: editor, API, webhooks) and `webhook` (queue mode's webhook process)
 *   when `/healthz/readiness` on the instance's port answers 200;
 * - `worker` when its own health server (QUEUE_HEALTH_CHECK_*, on a free port) answers 200.
 * Generous default timeout: n8n's first start migrates its database, slowly on a loaded machine.
 */
export async function startN8n({
	instance,
	command = 'start',
	env = {},
	timeoutMs = 300_000,
	memoryLimit,
}: {
	instance: Instance;
	command?: N8nCommand;
	env?: Record<string, string>;
	timeoutMs?: number;
	/** Run n8n (and the task runners it starts) inside this memory limit, as in a container. */
	memoryLimit?: MemoryLimit;
}): Promise<N8nProcess> {
	const { node, bin } = commandOf(instance);
	// Main, worker and webhook processes of one instance each run their own task-runner broker.
	const childEnv: Record<string, string | undefined> = {
		...instance.env,
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		...env,
	};
	let readyUrl: string;
	if (command === 'worker') {
		const healthPort = await freePort();
		Object.assign(childEnv, {
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(healthPort),
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
		});
		readyUrl = `http://127.0.0.1:${healthPort}/healthz/readiness`;
	} else {
		const port = childEnv.N8N_PORT;
		if (!port)
			throw new Error(`n8n ${command} needs a port: createInstance({ port }) or env.N8N_PORT`);
		readyUrl = `http://127.0.0.1:${port}/healthz/readiness`;
	}
	const [file, args] = memoryLimit
		? insideLimit(memoryLimit, node, [bin, command])
		: [node, [bin, command]];
	const child = spawn(file, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
	const watched = supervise(child, 30_000);
	try {
		await waitForHttp(readyUrl, { timeoutMs, isAlive: () => !watched.exited() });
	} catch (error) {
		child.kill('SIGKILL');
		await watched.exit;
		throw new Error(
			`n8n ${instance.version} ${command}: ${(error as Error).message}\n${watched.logs().slice(-4000)}`,
		);
	}
	return {
		command,
		url: `http://127.0.0.1:${childEnv.N8N_PORT}`,
		pid: child.pid as number,
		logs: watched.logs,
		stop: watched.stop,
	};
}

/**
 * The node type names n8n loaded, from the types file it writes for its editor on start
 * (`<user folder>/.cache/n8n/public/types/nodes.json`); undefined until it exists.
 */
export function loadedNodeTypes(instance: Instance): string[] | undefined {
	const file = path.join(instance.folder, '.cache', 'n8n', 'public', 'types', 'nodes.json');
	if (!fs.existsSync(file)) return undefined;
	try {
		return (JSON.parse(fs.readFileSync(file, 'utf8')) as Array<{ name: string }>).map(
			(type) => type.name,
		);
	} catch {
		return undefined; // still being written
	}
}

export function removeInstance(instance: Instance): void {
	fs.rmSync(instance.folder, { recursive: true, force: true });
}
