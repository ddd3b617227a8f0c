/**
 * The two services n8n's queue mode needs, started privately for a test run and stopped after it:
 * PostgreSQL (Debian's PostgreSQL 15: `initdb` + `pg_ctl` into a temporary folder, on a free loopback
 * port, run as the `postgres` user when this runs as root, since PostgreSQL refuses to run as root) and
 * Redis (Debian's `redis-server` on a free loopback port, nothing persisted). Both are declared
 * prerequisites: `.ci/run` installs redis-server; PostgreSQL 15 ships on these machines.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error --
 * n8n's rules keep Node's process, timers, file system and child processes out of code that runs inside
 * n8n; this harness starts services beside n8n, on the developer's machine and in CI, and is never packed. */
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { prerequisiteMissing } from '../../../../test/support/optional-suite';
import { freePort, supervise } from './processes';

export interface Postgres {
	host: string;
	port: number;
	user: string;
	password: string;
	database: string;
	stop(): Promise<void>;
}

export interface Redis {
	host: string;
	port: number;
	stop(): Promise<void>;
}

const PG_BIN = process.env.EVF_PG_BIN || '/usr/lib/postgresql/15/bin';

function onPath(command: string): boolean {
	return spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).status === 0;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** What is missing for queue mode here, one entry per missing piece, in words a reader can act on. */
export function missingQueuePrerequisites(): string[] {
	const missing: string[] = [];
	for (const tool of ['initdb', 'pg_ctl', 'postgres']) {
		if (!fs.existsSync(path.join(PG_BIN, tool)))
			missing.push(`PostgreSQL 15 (${path.join(PG_BIN, tool)}; apt-get install postgresql-15)`);
	}
	if (!onPath('redis-server')) missing.push('redis-server (apt-get install redis-server)');
	if (isRoot && spawnSync('id', ['-u', 'postgres']).status !== 0)
		missing.push('the postgres user (running as root, PostgreSQL must run as another user)');
	if (isRoot && !onPath('runuser')) missing.push('runuser (util-linux)');
	return [...new Set(missing)];
}

/** Runs a PostgreSQL tool as the user PostgreSQL runs as. */
function pgTool(tool: string, args: string[], options: SpawnSyncOptions = {}): string {
	const command = isRoot ? 'runuser' : path.join(PG_BIN, tool);
	const argv = isRoot ? ['-u', 'postgres', '--', path.join(PG_BIN, tool), ...args] : args;
	const result = spawnSync(command, argv, { timeout: 180_000, ...options, encoding: 'utf8' });
	if (result.status !== 0)
		throw new Error(`${tool} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
	return result.stdout;
}

/**
 * A new PostgreSQL cluster in a temporary folder, listening on 127.0.0.1 only, with one database and
 * one password-protected user for n8n. `stop()` stops it and deletes the folder.
 */
export async function startPostgres(): Promise<Postgres> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evf-pg-'));
	const dataDir = path.join(dir, 'data');
	const password = crypto.randomBytes(18).toString('hex');
	const pwFile = path.join(dir, 'pw');
	fs.writeFileSync(pwFile, password, { mode: 0o600 });
	if (isRoot) {
		const ids = (flag: string): number =>
			Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout);
		fs.chownSync(dir, ids('-u'), ids('-g'));
		fs.chownSync(pwFile, ids('-u'), ids('-g'));
	}
	const port = await freePort();
	pgTool('initdb', [
		'-D',
		dataDir,
		'-U',
		'n8n',
		`--pwfile=${pwFile}`,
		'--auth-host=scram-sha-256',
		'--auth-local=scram-sha-256',
		'--encoding=UTF8',
		'--no-instructions',
	]);
	fs.rmSync(pwFile);
	const logFile = path.join(dir, 'postgres.log');
	pgTool('pg_ctl', [
		'-D',
		dataDir,
		'-l',
		logFile,
		'-o',
		`-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c full_page_writes=off`,
		'-w',
		'-t',
		'120',
		'start',
	]);
	let stopped = false;
	const stop = async () => {
		if (stopped) return;
		stopped = true;
		try {
			pgTool('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	};
	try {
		pgTool('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'n8n', 'n8n'], {
			env: { ...process.env, PGPASSWORD: password },
		});
	} catch (error) {
		await stop();
		throw error;
	}
	return { host: '127.0.0.1', port, user: 'n8n', password, database: 'n8n', stop };
}

/** Resolves when `redis-server` on `port` answers PING. */
function redisPing(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.setTimeout(2000);
		socket.on('connect', () => socket.write('PING\r\n'));
		socket.on('data', (data) => {
			resolve(data.toString().startsWith('+PONG'));
			socket.destroy();
		});
		socket.on('error', () => resolve(false));
		socket.on('timeout', () => {
			resolve(false);
			socket.destroy();
		});
	});
}

/** A private redis-server on a free loopback port, with persistence off. `stop()` ends it. */
export async function startRedis(): Promise<Redis> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'evf-redis-'));
	const port = await freePort();
	const child = spawn(
		'redis-server',
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
			'--protected-mode',
			'yes',
		],
		{ stdio: ['ignore', 'pipe', 'pipe'] },
	);
	const watched = supervise(child, 10_000);
	const stop = async (): Promise<void> => {
		await watched.stop();
		fs.rmSync(dir, { recursive: true, force: true });
	};
	const started = Date.now();
	while (!(await redisPing(port))) {
		if (watched.exited() || Date.now() - started > 60_000) {
			await stop();
			throw new Error(
				`redis-server did not start on port ${port}:\n${watched.logs().slice(-2000)}`,
			);
		}
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
	return { host: '127.0.0.1', port, stop };
}

/**
 * The environment every n8n process of one queue-mode installation shares (n8n's queue-mode docs:
 * EXECUTIONS_MODE=queue, the same Postgres database, the same Redis, the same encryption key).
 */
export function queueEnv(postgres: Postgres, redis: Redis): Record<string, string> {
	return {
		EXECUTIONS_MODE: 'queue',
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: postgres.host,
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: postgres.password,
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
	};
}

/**
 * Whether the queue-mode suite can run here. A missing prerequisite is named in one line and the suite
 * is skipped; under EVF_REQUIRE_ALL_SUITES=1 (set by .ci/run, which installs them) it is an error instead.
 */
export function queueModeAvailable(): boolean {
	const missing = missingQueuePrerequisites();
	if (missing.length === 0) return true;
	return prerequisiteMissing(
		`queue mode: missing ${missing.join(', ')} (CI installs these: see .ci/run)`,
		'skipping the queue-mode suite',
	);
}

/** Peak and current resident memory of a process, in MiB, from /proc (Linux). */
export function memoryOf(pid: number): { peakMiB: number; rssMiB: number } | undefined {
	try {
		const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
		const kib = (key: string): number =>
			Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
		return { peakMiB: Math.round(kib('VmHWM') / 1024), rssMiB: Math.round(kib('VmRSS') / 1024) };
	} catch {
		return undefined;
	}
}

/**
 * Resets a process's peak resident memory (VmHWM) to its current size, so memoryOf's peak covers only
 * what runs next (Linux: writing 5 to /proc/<pid>/clear_refs; needs the same user or root).
 */
export function resetPeakMemory(pid: number): void {
	fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** A line for the test log and the run's report (stderr: jest keeps it, unlike a console call). */
export function note(line: string): void {
	process.stderr.write(`${line}\n`);
}
