/**
 * jest's globalSetup for the real-n8n suites (`npm run test:e2e`, `npm run test:editor`): one line, before
 * any suite starts n8n, saying which n8n versions this run proves.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code, never packed: files ships dist only */
import { NEWEST, PINNED, matrixVersions } from './ensure-n8n';

export default function announce(): void {
	const versions = matrixVersions();
	process.stdout.write(
		versions.length > 1
			? `real n8n: ${versions.join(' and ')}\n`
			: `real n8n: ${PINNED} only; EVF_N8N_MATRIX=1 also runs n8n ${NEWEST} on Node.js 24 (CI runs both)\n`,
	);
}
