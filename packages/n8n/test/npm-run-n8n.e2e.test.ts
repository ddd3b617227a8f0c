/**
 * `npm run n8n` from the repository root, as the README tells a user to run it right after `npm ci`:
 * it builds and packs the package, installs it into a fresh n8n user folder, starts the
 * sandbox and n8n, and prints the editor URL; the editor answers there; Ctrl+C stops n8n and the sandbox.
 * A private user folder and free ports keep it apart from a developer's own `npm run n8n`.
 */
import * as runner from './harness/n8n-runner';
import { runNpmScript, type NpmRun } from './support/npm-run';
import { waitFor } from './support/timing';
import { exists } from './support/files';

jest.setTimeout(20 * 60_000);

let run: NpmRun | undefined;
let folder: string;

beforeAll(async () => {
	await runner.ensureN8n();
	folder = (await runner.createInstance()).folder;
});

afterAll(async () => {
	await run?.interrupt();
	if (folder) runner.removeInstance({ version: runner.PINNED, folder, env: {} });
});

it('npm run n8n starts n8n with the package, the sandbox and the examples, and stops on Ctrl+C', async () => {
	const [n8nPort, sandboxPort] = [await runner.freePort(), await runner.freePort()];
	run = runNpmScript(['run', 'n8n'], {
		EVF_N8N_DEV_FOLDER: folder,
		N8N_DEV_PORT: String(n8nPort),
		EVF_SANDBOX_PORT: String(sandboxPort),
	});
	const current = run;
	// The editor URL and the examples line come in separate chunks of output: on a busy machine the
	// second may arrive a while after the first, so the wait is for both (or for the process to end).
	await waitFor(
		() =>
			(/n8n editor\s+http:\/\/\S+/.test(current.output()) &&
				/Example workflows "/.test(current.output())) ||
			!current.running(),
		{ timeoutMs: 15 * 60_000, what: 'the editor URL and the examples line printed by npm run n8n' },
	);
	const output = current.output();
	expect(output).toMatch(new RegExp(`n8n editor\\s+http://127\\.0\\.0\\.1:${n8nPort}/`));
	expect(output).toMatch(/Example workflows "/);
	expect((await fetch(`http://127.0.0.1:${n8nPort}/healthz/readiness`)).status).toBe(200);
	expect((await fetch(`http://127.0.0.1:${sandboxPort}/api/v1/account`)).status).toBe(401);
	// The package was installed the way users install it, under its published name.
	expect(exists(`${folder}/.n8n/nodes/node_modules/n8n-nodes-evf/package.json`)).toBe(true);

	await current.interrupt();
	await expect(fetch(`http://127.0.0.1:${n8nPort}/healthz`)).rejects.toThrow();
	await expect(fetch(`http://127.0.0.1:${sandboxPort}/api/v1/account`)).rejects.toThrow();
});
