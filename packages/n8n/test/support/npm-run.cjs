'use strict';
/**
 * Runs a root npm script the way a user types it in a terminal (its own process group, so Ctrl+C reaches
 * npm and everything it started), collects its output, and stops it with SIGINT.
 * (child_process and process live here: n8n's lint forbids them in the package's TypeScript.)
 */
const { spawn } = require('node:child_process');
const path = require('node:path');

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');

function runNpmScript(args, env = {}) {
	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(([key]) => !key.startsWith('JEST_') && key !== 'NODE_ENV'),
	);
	const child = spawn('npm', args, {
		cwd: repoRoot,
		env: { ...inherited, ...env },
		stdio: ['ignore', 'pipe', 'pipe'],
		detached: true,
	});
	let output = '';
	child.stdout.on('data', (d) => (output += d));
	child.stderr.on('data', (d) => (output += d));
	let exitCode;
	const exited = new Promise((resolve) =>
		child.on('exit', (code, signal) => {
			exitCode = code ?? signal;
			resolve(exitCode);
		}),
	);
	return {
		output: () => output,
		running: () => exitCode === undefined,
		exited,
		/** Ctrl+C to the whole group; SIGKILL after `graceMs` if anything is still there. */
		async interrupt(graceMs = 60_000) {
			if (exitCode !== undefined) return exitCode;
			process.kill(-child.pid, 'SIGINT');
			const timer = setTimeout(() => {
				try {
					process.kill(-child.pid, 'SIGKILL');
				} catch {
					// already gone
				}
			}, graceMs);
			const code = await exited;
			clearTimeout(timer);
			return code;
		},
	};
}

module.exports = { runNpmScript, repoRoot };
