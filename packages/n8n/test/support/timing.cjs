'use strict';
/** Waits on real time for tests (timers live here: n8n's lint forbids them in the package's TypeScript). */
async function waitFor(check, { timeoutMs = 10_000, what = 'condition' } = {}) {
	const started = Date.now();
	while (!(await check())) {
		if (Date.now() - started > timeoutMs) throw new Error(`${what} not met within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

module.exports = { waitFor };
