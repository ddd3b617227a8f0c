export interface Instance {
	folder: string;
	env: Record<string, string | undefined>;
	port?: number;
}
export interface Server {
	url: string;
	pid: number;
	logs(): string;
	stop(): Promise<void>;
}
export const CUSTOM_PREFIX: string;
export const DIST_DIR: string;
export function buildPackage(): string;
export function isInstalled(home?: string): boolean;
export const PACKAGE_DIR: string;
export function ensureN8n(): Promise<{ home: string; bin: string }>;
export function createInstance(options?: {
	port?: number;
	userFolder?: string;
	encryptionKey?: string;
	extra?: Record<string, string>;
}): Promise<Instance>;
export function freePort(): Promise<number>;
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
export function startServer(
	instance: Instance,
	options?: { frozenTime?: number; timeoutMs?: number },
): Promise<Server>;
export function forCustomExtensions<T>(workflow: T): T;
export function removeInstance(instance: Instance): void;
