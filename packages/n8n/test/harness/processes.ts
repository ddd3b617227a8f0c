/**
 * The two process chores every piece of the harness shares: a free loopback port, and a child process
 * whose output is kept (for the error that says why it failed) and which stops politely, then for sure.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals --
 * n8n's rules keep Node's timers and network out of code that runs inside n8n; this harness runs
 * beside it, on the developer's machine and in CI, and is never packed. */
import type { ChildProcess } from 'node:child_process';
import * as net from 'node:net';

export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as net.AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

export interface Supervised {
	/** Everything the process wrote to stdout and stderr so far. */
	logs(): string;
	exited(): boolean;
	/** Resolves once the process has exited. */
	exit: Promise<void>;
	/** SIGTERM, then SIGKILL if it is still there after `graceMs`; resolves once it has exited. */
	stop(): Promise<void>;
}

/** Watches a child spawned with piped stdout and stderr. */
export function supervise(child: ChildProcess, graceMs: number): Supervised {
	let logs = '';
	child.stdout?.on('data', (d) => (logs += d));
	child.stderr?.on('data', (d) => (logs += d));
	let exited = false;
	const exit = new Promise<void>((resolve) =>
		child.on('exit', () => {
			exited = true;
			resolve();
		}),
	);
	return {
		logs: () => logs,
		exited: () => exited,
		exit,
		async stop() {
			if (exited) return;
			child.kill('SIGTERM');
			const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
			await exit;
			clearTimeout(timer);
		},
	};
}
