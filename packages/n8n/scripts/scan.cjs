#!/usr/bin/env node
'use strict';
/**
 * Runs n8n's community package scanner offline, on the sources (as n8n does for the provenance-attested
 * checkout) and on the unpacked `npm pack` tarball (what n8n users install). `analyzePackage` decides
 * pass or fail on errors; the same config is run again here to count warnings too, so both must be zero.
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

async function lintCounts(dir, patterns) {
	const { ESLint } = require('eslint');
	const glob = require('fast-glob');
	const scanner = await import('@n8n/scan-community-package/scanner/scanner.mjs');
	const eslint = new ESLint({
		cwd: dir,
		allowInlineConfig: false,
		overrideConfigFile: true,
		overrideConfig: await scanner.buildScanConfig(),
	});
	const files = glob.sync(patterns, {
		cwd: dir,
		absolute: true,
		ignore: ['node_modules/**', '**/package-lock.json'],
	});
	const results = await eslint.lintFiles(files);
	const errors = results.reduce((n, r) => n + r.errorCount, 0);
	const warnings = results.reduce((n, r) => n + r.warningCount, 0);
	const formatter = await eslint.loadFormatter('stylish');
	return { files: files.length, errors, warnings, details: await formatter.format(results) };
}

async function scan(label, dir, patterns) {
	const scanner = await import('@n8n/scan-community-package/scanner/scanner.mjs');
	const verdict = await scanner.analyzePackage(dir, patterns);
	const counts = await lintCounts(dir, patterns ?? ['**/*.js', '**/*.ts', '**/*.json']);
	const ok = verdict.passed && counts.errors === 0 && counts.warnings === 0;
	process.stdout.write(
		`${ok ? 'PASS' : 'FAIL'} scanner on ${label}: ${counts.files} files, ${counts.errors} errors, ${counts.warnings} warnings\n`,
	);
	if (!ok) process.stdout.write(`${verdict.details ?? verdict.message ?? ''}\n${counts.details}\n`);
	return ok;
}

async function main() {
	if (!fs.existsSync(path.join(root, 'dist', 'nodes'))) {
		throw new Error('dist/ is missing: run `npm run build` in packages/n8n first.');
	}
	const scanner = await import('@n8n/scan-community-package/scanner/scanner.mjs');
	const sourceOk = await scan('the sources', root, scanner.SOURCE_FILE_PATTERNS);

	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'evf-n8n-pack-'));
	try {
		const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
		});
		const tarball = path.join(work, JSON.parse(packed)[0].filename);
		const unpacked = path.join(work, 'package');
		execFileSync('tar', ['-xzf', tarball, '-C', work]);
		const shipped = fs
			.readdirSync(unpacked, { recursive: true })
			.filter((f) => String(f).endsWith('.js'));
		process.stdout.write(`tarball ${path.basename(tarball)}: ${shipped.length} JavaScript files\n`);
		const tarballOk = await scan('the unpacked npm pack tarball', unpacked);
		if (!sourceOk || !tarballOk) process.exitCode = 1;
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
}

main().catch((error) => {
	process.stderr.write(`${error.stack ?? error}\n`);
	process.exitCode = 1;
});
