/**
 * Emits the shipped JavaScript. `n8n-node build` type-checks the sources and copies the icons; this
 * bundles each node and credential with the shared client inlined, because a verified community node
 * has no runtime dependencies. Only n8n-workflow (provided by n8n) and node:crypto stay external.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals --
 * n8n's rules keep Node's process and file system out of code that runs inside n8n; this build step runs
 * on the developer's machine and in CI, and is never packed (`files` ships dist only). */
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	n8n: { nodes: string[]; credentials: string[] };
};
const entries = [...manifest.n8n.nodes, ...manifest.n8n.credentials].map((built) => {
	const source = built.replace(/^dist\//, '').replace(/\.js$/, '.ts');
	return { in: path.join(root, source), out: built.replace(/^dist\//, '').replace(/\.js$/, '') };
});

/**
 * Bundles every node and credential. With `write: false` nothing touches dist/: the result's
 * `outputFiles` hold the code (the n8n-workflow compatibility test reads it from there).
 */
export async function bundle({
	outdir = path.join(root, 'dist'),
	write = true,
}: { outdir?: string; write?: boolean } = {}): Promise<esbuild.BuildResult<{ metafile: true }>> {
	return await esbuild.build({
		absWorkingDir: root,
		entryPoints: entries,
		outdir,
		write,
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		conditions: ['source'],
		external: ['n8n-workflow', 'crypto', 'node:crypto'],
		// Readable output: the scanner and reviewers read the shipped code.
		minify: false,
		sourcemap: false,
		legalComments: 'none',
		logLevel: 'warning',
		metafile: true,
	});
}

async function main(): Promise<void> {
	const result = await bundle();
	const inputs = Object.keys(result.metafile.inputs);
	if (inputs.some((file) => /client[\\/]src[\\/]node(\.ts|[\\/])/.test(file))) {
		throw new Error(
			'The Node-only entry @evf/client/node was bundled; the n8n package must use @evf/client only.',
		);
	}
	// Codex files sit beside each node in dist.
	for (const node of manifest.n8n.nodes) {
		const codex = node.replace(/^dist\//, '').replace(/\.js$/, '.json');
		fs.copyFileSync(path.join(root, codex), path.join(root, 'dist', codex));
	}
	const outputs = Object.entries(result.metafile.outputs).map(
		([file, info]) => `${file} (${Math.round(info.bytes / 1024)} KiB)`,
	);
	process.stdout.write(
		`bundled ${outputs.length} files with @evf/client inlined:\n  ${outputs.join('\n  ')}\n`,
	);
}

if (require.main === module) {
	main().catch((error: Error) => {
		process.stderr.write(`${error.message}\n`);
		process.exitCode = 1;
	});
}
