export interface NpmRun {
	output(): string;
	running(): boolean;
	exited: Promise<number | string | null>;
	interrupt(graceMs?: number): Promise<number | string | null>;
}
export function runNpmScript(args: string[], env?: Record<string, string>): NpmRun;
export const repoRoot: string;
