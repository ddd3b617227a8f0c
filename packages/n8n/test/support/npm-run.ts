/**
 * Runs a root npm script the way a user types it in a terminal (its own process group, so Ctrl+C reaches
 * npm and everything it started), collects its output, and stops it with SIGINT.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- test code, never packed: files ships dist only */
import { spawn } from 'node:child_process';
import * as path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');

export interface NpmRun {
	output(): string;
	running(): boolean;
	exited: Promise<number | string | null>;
	interrupt(graceMs?: number): Promise<number | string | null>;
}

export function runNpmScript(args: string[], env: Record<string, string> = {}): NpmRun {
	const inherited = Object.fromEntries(
		// Not the tarball the test run packed once (EVF_N8N_TARBALL): the script builds and packs its own.
		Object.entries(process.env).filter(
			([key]) => !key.startsWith('JEST_') && key !== 'NODE_ENV' && key !== 'EVF_N8N_TARBALL',
		),
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
	let exitCode: number | string | null | undefined;
	const exited = new Promise<number | string | null>((resolve) =>
		child.on('exit', (code, signal) => {
			const result = code ?? signal;
			exitCode = result;
			resolve(result);
		}),
	);
	return {
		output: () => output,
		running: () => exitCode === undefined,
		exited,
		/** Ctrl+C to the whole group; SIGKILL after `graceMs` if anything is still there. */
		async interrupt(graceMs = 60_000) {
			if (exitCode !== undefined) return exitCode;
			process.kill(-(child.pid as number), 'SIGINT');
			const timer = setTimeout(() => {
				try {
					process.kill(-(child.pid as number), 'SIGKILL');
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
