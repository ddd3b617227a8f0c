/**
 * A container's memory limit for n8n processes on this machine: a Linux memory cgroup (v2's
 * `memory.max`, or v1's `memory.limit_in_bytes`), the mechanism Docker and Kubernetes use for a
 * container's memory (docs.docker.com, "Runtime options with Memory": `--memory` is "the maximum amount
 * of memory the container can use", enforced by the kernel's OOM killer). Inside it Node.js sizes V8's
 * heap from the limit (process.constrainedMemory()), as it does in a real container, so a process
 * that fits here fits in a container of that size; one that does not is killed (exit by SIGKILL) and
 * the cgroup counts the kill.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals --
 * n8n's rules keep Node's process and file system out of code that runs inside n8n; this harness drives
 * n8n from outside, on the developer's machine and in CI, and is never packed. */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { prerequisiteMissing } from '../../../../test/support/optional-suite';

const V2_ROOT = '/sys/fs/cgroup';
const V1_ROOT = '/sys/fs/cgroup/memory';

export interface MemoryLimit {
	limitMiB: number;
	/** The file a process writes its PID into to join the limit (children it starts join too). */
	procsFile: string;
	/** How many processes the kernel killed for going over the limit. */
	oomKills(): number;
	remove(): void;
}

interface Layout {
	root: string;
	limitFile: string;
	/** v1 counts hits of the limit in memory.failcnt and reports kills in memory.oom_control. */
	version: 1 | 2;
}

function layout(): Layout | undefined {
	if (fs.existsSync(path.join(V2_ROOT, 'cgroup.controllers'))) {
		const controllers = fs.readFileSync(path.join(V2_ROOT, 'cgroup.controllers'), 'utf8');
		if (controllers.split(/\s+/).includes('memory'))
			return { root: V2_ROOT, limitFile: 'memory.max', version: 2 };
	}
	if (fs.existsSync(path.join(V1_ROOT, 'memory.limit_in_bytes')))
		return { root: V1_ROOT, limitFile: 'memory.limit_in_bytes', version: 1 };
	return undefined;
}

/** Why a memory limit cannot be made here, or undefined when it can. */
export function memoryLimitUnavailable(): string | undefined {
	const found = layout();
	if (!found) return 'no memory cgroup controller at /sys/fs/cgroup';
	const probe = path.join(found.root, `evf-probe-${process.pid}`);
	try {
		fs.mkdirSync(probe);
		fs.rmdirSync(probe);
		return undefined;
	} catch (error) {
		return `cannot create a memory cgroup in ${found.root} (${(error as NodeJS.ErrnoException).code}; needs root or a delegated cgroup)`;
	}
}

/**
 * For a suite: whether processes can run inside a memory limit here. When they cannot, one line says why
 * (they then run without one), and under EVF_REQUIRE_ALL_SUITES=1 (CI) that is an error instead.
 */
export function memoryLimitsForSuite(what: string): boolean {
	const why = memoryLimitUnavailable();
	if (!why) return true;
	return prerequisiteMissing(
		`${what}: no memory limit can be made here (${why})`,
		'running without one',
	);
}

export function createMemoryLimit(limitMiB: number): MemoryLimit {
	const found = layout();
	if (!found) throw new Error('no memory cgroup controller at /sys/fs/cgroup');
	const dir = path.join(found.root, `evf-n8n-${crypto.randomUUID().slice(0, 8)}`);
	fs.mkdirSync(dir);
	fs.writeFileSync(path.join(dir, found.limitFile), String(limitMiB * 1024 * 1024));
	// Swap would let a process outgrow the limit slowly instead of being stopped, as a container
	// without swap (Docker's default when --memory-swap equals --memory) does not.
	const swapFile = found.version === 2 ? 'memory.swap.max' : 'memory.memsw.limit_in_bytes';
	try {
		fs.writeFileSync(
			path.join(dir, swapFile),
			found.version === 2 ? '0' : String(limitMiB * 1024 * 1024),
		);
	} catch {
		// No swap accounting on this kernel: nothing can swap out past the limit.
	}
	const read = (file: string): string => fs.readFileSync(path.join(dir, file), 'utf8');
	return {
		limitMiB,
		procsFile: path.join(dir, 'cgroup.procs'),
		oomKills() {
			const text = found.version === 2 ? read('memory.events') : read('memory.oom_control');
			return Number(/oom_kill (\d+)/.exec(text)?.[1] ?? 0);
		},
		remove() {
			// A cgroup can be removed once its processes are gone. n8n is stopped before this, but a task
			// runner it started can outlive it by a moment: wait for it, then stop what is left.
			for (let i = 0; i < 100; i++) {
				try {
					fs.rmdirSync(dir);
					return;
				} catch (error) {
					if ((error as NodeJS.ErrnoException).code !== 'EBUSY') return;
					if (i === 50)
						for (const pid of read('cgroup.procs').split('\n').filter(Boolean)) {
							try {
								process.kill(Number(pid), 'SIGKILL');
							} catch {
								// Already gone.
							}
						}
					Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
				}
			}
		},
	};
}

/**
 * The command and arguments that run `command args` inside the limit: a shell joins the cgroup, then
 * replaces itself with the command, so the PID is the command's and nothing ran outside the limit.
 */
export function insideLimit(
	limit: MemoryLimit,
	command: string,
	args: readonly string[],
): [string, string[]] {
	return ['/bin/sh', ['-c', `echo $$ > '${limit.procsFile}' && exec "$0" "$@"`, command, ...args]];
}
