export function listDir(dir: string): string[];
export function readText(file: string): string;
export function exists(file: string): boolean;
