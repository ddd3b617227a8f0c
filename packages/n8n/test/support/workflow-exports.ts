/**
 * Node-level helpers of workflow-exports.e2e.test.ts: what the bundle takes from n8n-workflow, and what a
 * given n8n-workflow really exports.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- test code, never packed: files ships dist only */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bundle } from '../../scripts/bundle';

/** The n8n-workflow members a CommonJS bundle uses; throws on any use it cannot account for. */
export function workflowImports(code: string, file = 'bundle'): Set<string> {
	const used = new Set<string>();
	const bindings = [...code.matchAll(/\bvar (\w+) = require\("n8n-workflow"\);/g)].map((m) => m[1]);
	const required = code.match(/require\(["']n8n-workflow["']\)/g)?.length ?? 0;
	if (required !== bindings.length)
		throw new Error(`${file}: n8n-workflow is required in a form this check does not read`);
	for (const binding of bindings) {
		for (const use of code.matchAll(new RegExp(`\\b${binding}\\b(\\.[\\w$]+)?`, 'g'))) {
			if (use[1]) used.add(use[1].slice(1));
			else if (!code.startsWith(`var ${binding} = require`, use.index - 4))
				throw new Error(`${file}: ${binding} is used other than as ${binding}.<export>`);
		}
	}
	return used;
}

/** Bundles the package as `npm run build` does, in memory, and lists its n8n-workflow imports. */
export async function bundledWorkflowImports(): Promise<string[]> {
	const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'evf-n8n-bundle-'));
	try {
		const result = await bundle({ outdir, write: false });
		const imported = new Set<string>();
		for (const file of result.outputFiles ?? []) {
			if (!file.path.endsWith('.js')) continue;
			for (const name of workflowImports(file.text, file.path)) imported.add(name);
		}
		return [...imported].sort();
	} finally {
		fs.rmSync(outdir, { recursive: true, force: true });
	}
}

/** The exports of the n8n-workflow package in `dir` as `require` gives them, in a separate process. */
export function exportsOf(dir: string): { version: string; names: string[] } {
	const out = execFileSync(
		process.execPath,
		[
			'-e',
			'const w = require(process.argv[1]); const p = require(process.argv[1] + "/package.json");' +
				' process.stdout.write(JSON.stringify({ version: p.version, names: Object.keys(w) }))',
			dir,
		],
		{ encoding: 'utf8' },
	);
	return JSON.parse(out);
}

/** The n8n-workflow this repo builds against (its devDependency). */
export function repoWorkflowDir(): string {
	return path.dirname(require.resolve('n8n-workflow/package.json'));
}
