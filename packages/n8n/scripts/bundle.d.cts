export function bundle(options?: {
	outdir?: string;
	write?: boolean;
}): Promise<{ outputFiles?: Array<{ path: string; text: string }> }>;
