export function waitFor(
	check: () => boolean | Promise<boolean>,
	options?: { timeoutMs?: number; what?: string },
): Promise<void>;
