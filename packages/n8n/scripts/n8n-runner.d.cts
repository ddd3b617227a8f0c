export interface Instance {
	/** The n8n version this instance runs (one of the proven versions in ensure-n8n.cjs). */
	version: string;
	/** N8N_USER_FOLDER: n8n keeps its data, settings and `nodes/` in `<folder>/.n8n`. */
	folder: string;
	env: Record<string, string | undefined>;
	port?: number;
}
export interface N8nProcess {
	command: 'start' | 'worker' | 'webhook';
	/** http://127.0.0.1:<N8N_PORT> (for a worker: the instance's main port, where it has none itself). */
	url: string;
	pid: number;
	logs(): string;
	stop(): Promise<void>;
}
export const DIST_DIR: string;
export const PACKAGE_DIR: string;
export const PACKAGE_NAME: string;
export const PINNED: string;
export const NEWEST: string;
export function buildPackage(): string;
export function packTarball(): string;
export function discardTarball(): void;
export function installPackage(userFolder: string, tgz: string): string;
export function n8nFolder(userFolder: string): string;
export function isInstalled(version?: string): boolean;
export function matrixVersions(env?: Record<string, string | undefined>): string[];
export function n8nHome(version?: string): string;
export function ensureN8n(
	version?: string,
): Promise<{ version: string; home: string; bin: string; node: string }>;
export function createInstance(options?: {
	version?: string;
	port?: number;
	userFolder?: string;
	encryptionKey?: string;
	extra?: Record<string, string>;
}): Promise<Instance>;
export function freePort(): Promise<number>;
export function runCli(
	instance: Instance,
	args: string[],
	options?: { timeoutMs?: number },
): Promise<{ code: number | null; stdout: string; stderr: string }>;
export function importCredentials(instance: Instance, credentials: unknown[]): Promise<void>;
export function importWorkflows(instance: Instance, workflows: unknown[]): Promise<void>;
export function publishWorkflow(instance: Instance, id: string): Promise<void>;
export function executeWorkflow(
	instance: Instance,
	id: string,
	options?: { timeoutMs?: number },
): Promise<{ run: unknown; code: number; stderr: string }>;
export function nodeOutput(
	run: unknown,
	nodeName: string,
): Array<Record<string, unknown>> | { error: unknown } | undefined;
export function startN8n(options: {
	instance: Instance;
	command?: 'start' | 'worker' | 'webhook';
	env?: Record<string, string>;
	timeoutMs?: number;
}): Promise<N8nProcess>;
export function loadedNodeTypes(instance: Instance): string[] | undefined;
export function removeInstance(instance: Instance): void;
