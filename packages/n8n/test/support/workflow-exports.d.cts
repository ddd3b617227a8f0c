export function workflowImports(code: string, file?: string): Set<string>;
export function bundledWorkflowImports(): Promise<string[]>;
export function exportsOf(dir: string): { version: string; names: string[] };
export function repoWorkflowDir(): string;
