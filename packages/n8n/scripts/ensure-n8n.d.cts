export interface Recipe {
	node?: string;
	overrides: Record<string, string>;
	ignoreScripts: boolean;
	rebuild: string[];
	minutes: number;
	workflow: string;
}
export const PINNED: string;
export const NEWEST: string;
export const RECIPES: Record<string, Recipe>;
export function ensureN8n(
	version?: string,
): Promise<{ version: string; home: string; bin: string; node: string }>;
export function ensureNode(nodeVersion: string): Promise<{ bin: string; nodedir: string }>;
export function ensureWorkflowPackage(version: string): Promise<string>;
export function isInstalled(version?: string): boolean;
export function matrixVersions(env?: Record<string, string | undefined>): string[];
export function n8nBin(version?: string): string;
export function n8nHome(version?: string): string;
export function nodeFor(version?: string): string;
export function cacheRoot(): string;
