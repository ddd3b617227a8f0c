/**
 * jest's globalSetup for the real-n8n suites (`npm run test:e2e`, `npm run test:editor`), run once before
 * any of their files: one line saying which n8n versions this run proves; each of those versions
 * installed into the cache (ensure-n8n.ts) before files that may run side by side look for it; and the
 * package built and packed once, its path handed to every file as EVF_N8N_TARBALL (jest's workers
 * inherit the setup's environment), so no two files build `dist/` at the same time.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code, never packed: files ships dist only */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NEWEST, PINNED, ensureN8n, matrixVersions } from './ensure-n8n';
import { packTarball } from './n8n-runner';

export default async function announce(): Promise<void> {
	const versions = matrixVersions();
	process.stdout.write(
		versions.length > 1
			? `real n8n: ${versions.join(' and ')}\n`
			: `real n8n: ${PINNED} only; EVF_N8N_MATRIX=1 also runs n8n ${NEWEST} on Node.js 24 (CI runs both)\n`,
	);
	for (const version of versions) await ensureN8n(version);
	const tarball = packTarball();
	process.env.EVF_N8N_TARBALL = tarball;
	// The tarball's folder goes when the run ends (packTarball removes it at exit of this process).
	process.stdout.write(
		`real n8n: installing ${path.basename(tarball)} (${fs.statSync(tarball).size} bytes)\n`,
	);
}
