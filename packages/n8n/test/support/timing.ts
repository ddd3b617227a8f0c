/** Waits on real time for tests. */
/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code, never packed: files ships dist only */
export async function waitFor(
	check: () => boolean | Promise<boolean>,
	{ timeoutMs = 10_000, what = 'condition' }: { timeoutMs?: number; what?: string } = {},
): Promise<void> {
	const started = Date.now();
	while (!(await check())) {
		if (Date.now() - started > timeoutMs) throw new Error(`${what} not met within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}
