export interface N8nServer {
	url: string;
	userFolder: string;
	logs(): string;
	stop(): Promise<void>;
}
export const PACKAGE_DIR: string;
export function packPackage(): string;
export function userFolderWith(tarball: string): string;
export function freePort(): Promise<number>;
export function startN8n(userFolder: string, version?: string): Promise<N8nServer>;
