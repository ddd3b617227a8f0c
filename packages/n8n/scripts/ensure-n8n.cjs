#!/usr/bin/env node
'use strict';
/**
 * Installs the pinned real n8n (2.8.4: the newest release that runs on Node 20) into a cache outside
 * the repository, so the end-to-end test and `npm run n8n` can start it. Idempotent: a second run only
 * checks that the installed binary answers. The install needs about 5 minutes and 2.3 GB once.
 *
 * Usage: node scripts/ensure-n8n.cjs            -> prints the n8n home on the last line
 *        require('./ensure-n8n.cjs').ensureN8n()  -> { home, bin }
 * The cache is $EVF_N8N_HOME, else ~/.cache/evf-n8n/2.8.4.
 */
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const N8N_VERSION = '2.8.4';

function n8nHome() {
	return process.env.EVF_N8N_HOME || path.join(os.homedir(), '.cache', 'evf-n8n', N8N_VERSION);
}

function n8nBin(home = n8nHome()) {
	return path.join(home, 'node_modules', 'n8n', 'bin', 'n8n');
}

function log(message) {
	process.stderr.write(`[ensure-n8n] ${message}\n`);
}

/** True when the cache holds n8n at the pinned version and its CLI starts. */
function isInstalled(home = n8nHome()) {
	const pkgFile = path.join(home, 'node_modules', 'n8n', 'package.json');
	if (!fs.existsSync(pkgFile) || !fs.existsSync(path.join(home, '.evf-installed'))) return false;
	const version = JSON.parse(fs.readFileSync(pkgFile, 'utf8')).version;
	if (version !== N8N_VERSION) return false;
	const probe = spawnSync(process.execPath, [n8nBin(home), '--version'], {
		encoding: 'utf8',
		timeout: 120_000,
		env: { ...process.env, N8N_USER_FOLDER: path.join(home, 'probe-user') },
	});
	return probe.status === 0 && probe.stdout.includes(N8N_VERSION);
}

// A lock directory, because the e2e test and `npm run n8n` may both ask for the install at once.
async function withLock(home, fn) {
	const lockDir = path.join(home, '.install-lock');
	for (;;) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
			const owner = Number(readOr(path.join(lockDir, 'pid'), '0'));
			if (owner && !isAlive(owner)) {
				log(`removing a stale install lock left by process ${owner}`);
				fs.rmSync(lockDir, { recursive: true, force: true });
				continue;
			}
			log(`another install (process ${owner || '?'}) is running; waiting for it`);
			await new Promise((resolve) => setTimeout(resolve, 10_000));
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(lockDir, { recursive: true, force: true });
	}
}

function readOr(file, fallback) {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch {
		return fallback;
	}
}

function isAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

function runNpmInstall(home) {
	return new Promise((resolve, reject) => {
		const started = Date.now();
		const logFile = path.join(home, 'install.log');
		const out = fs.openSync(logFile, 'w');
		log(`installing n8n@${N8N_VERSION} into ${home} (about 5 minutes, 2.3 GB; log: ${logFile})`);
		const child = spawn('npm', ['install', '--no-audit', '--no-fund', '--loglevel=http'], {
			cwd: home,
			stdio: ['ignore', out, out],
			env: { ...process.env, npm_config_yes: 'true' },
		});
		const heartbeat = setInterval(() => {
			const lines = readOr(logFile, '').split('\n').filter(Boolean);
			const fetched = lines.filter((line) => line.includes('fetch GET 200')).length;
			log(
				`still installing: ${Math.round((Date.now() - started) / 1000)} s, ${fetched} packages fetched`,
			);
		}, 30_000);
		child.on('error', (error) => {
			clearInterval(heartbeat);
			reject(error);
		});
		child.on('exit', (code) => {
			clearInterval(heartbeat);
			fs.closeSync(out);
			if (code === 0) {
				log(`npm install finished in ${Math.round((Date.now() - started) / 1000)} s`);
				resolve();
			} else {
				const tail = readOr(logFile, '').split('\n').slice(-30).join('\n');
				reject(
					new Error(
						`npm install of n8n@${N8N_VERSION} failed (exit ${code}). Last lines:\n${tail}`,
					),
				);
			}
		});
	});
}

async function ensureN8n() {
	const home = n8nHome();
	if (isInstalled(home)) {
		log(`n8n ${N8N_VERSION} is installed at ${home}`);
		return { home, bin: n8nBin(home) };
	}
	fs.mkdirSync(home, { recursive: true });
	await withLock(home, async () => {
		if (isInstalled(home)) return;
		fs.rmSync(path.join(home, '.evf-installed'), { force: true });
		const manifest = {
			name: 'evf-n8n-runtime',
			private: true,
			description:
				'A pinned real n8n for the n8n-nodes-evf end-to-end tests (not part of the repository).',
			dependencies: { n8n: N8N_VERSION },
			// n8n's default xlsx dependency points at a tarball outside the npm registry.
			overrides: { xlsx: '0.18.5' },
		};
		fs.writeFileSync(path.join(home, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
		await runNpmInstall(home);
		fs.writeFileSync(path.join(home, '.evf-installed'), `${new Date().toISOString()}\n`);
		if (!isInstalled(home)) {
			fs.rmSync(path.join(home, '.evf-installed'), { force: true });
			throw new Error(
				`n8n was installed at ${home} but \`n8n --version\` does not answer ${N8N_VERSION}`,
			);
		}
		log(`n8n ${N8N_VERSION} is ready at ${home}`);
	});
	return { home, bin: n8nBin(home) };
}

module.exports = { ensureN8n, isInstalled, n8nHome, n8nBin, N8N_VERSION };

if (require.main === module) {
	ensureN8n().then(
		({ home }) => process.stdout.write(`${home}\n`),
		(error) => {
			log(error.message);
			process.exitCode = 1;
		},
	);
}
