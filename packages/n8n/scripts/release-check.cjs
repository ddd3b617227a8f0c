#!/usr/bin/env node
'use strict';
/**
 * `npm run release:check`: everything the release workflow (.github/workflows/release-n8n.yml) does
 * before `npm publish --provenance`, so a release cannot fail there for a reason found only in CI.
 * 1. package.json meets n8n's community-node rules and verification guidelines (name, keyword, MIT,
 *    no runtime dependencies, the n8n block, a public GitHub repository for provenance);
 * 2. a clean build, the type check, n8n's lint and n8n's scanner (sources and tarball, 0 errors,
 *    0 warnings);
 * 3. the tarball `npm publish` would upload holds the built nodes and credential and nothing else;
 * 4. `npm publish --dry-run` accepts it.
 * With --tag <git tag> it also checks that the tag names this package's version (n8n-v<version>).
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const {
	urlProblem,
	emailProblem,
	gitRepositoryUrl,
	normalizeRepositoryUrl,
} = require('../../../scripts/release-addresses.cjs');

const root = path.resolve(__dirname, '..');

/**
 * What keeps package.json from being published. `repositoryUrl` is this clone's own GitHub address
 * (git's origin), or null when the clone has none: n8n's verification checks that the npm package's
 * repository URL is the GitHub repository it was published from, so a release needs one.
 */
function manifestProblems(manifest, { repositoryUrl, tag } = {}) {
	const problems = [];
	const check = (ok, message) => {
		if (!ok) problems.push(message);
	};
	// Rules: n8n's "Building community nodes" standards and its verification guidelines.
	check(/^(@[a-z0-9-]+\/)?n8n-nodes-/.test(manifest.name), 'the name must start with n8n-nodes-');
	check(
		manifest.keywords?.includes('n8n-community-node-package'),
		'keywords must include n8n-community-node-package',
	);
	check(manifest.license === 'MIT', 'the license must be MIT');
	check(
		!manifest.dependencies || Object.keys(manifest.dependencies).length === 0,
		'a verified community node has no runtime dependencies (the client is bundled)',
	);
	check(
		JSON.stringify(Object.keys(manifest.peerDependencies ?? {})) === '["n8n-workflow"]',
		'the only peer dependency is n8n-workflow (n8n provides it)',
	);
	check(
		manifest.peerDependenciesMeta?.['n8n-workflow']?.optional === true,
		'n8n-workflow must stay an optional peer: npm would otherwise install its own copy beside the package',
	);
	check(manifest.n8n?.n8nNodesApiVersion === 1, 'n8n.n8nNodesApiVersion must be 1');
	check(manifest.n8n?.strict === true, 'n8n.strict must be true (n8n-node lint in strict mode)');
	check(
		JSON.stringify(manifest.files) === '["dist","examples","CHANGELOG.md"]',
		'files must be ["dist", "examples", "CHANGELOG.md"]: the built nodes, the example workflows a user imports, and what changed',
	);
	check(
		typeof manifest.engines?.node === 'string',
		'engines.node must say which Node versions are supported',
	);

	// Where the package comes from, true to this repository: no placeholder or reserved address.
	const repo = manifest.repository?.url ?? '';
	const repoProblem = urlProblem(repo);
	check(!repoProblem, `repository.url ${repoProblem}`);
	check(
		/^(git\+)?https:\/\/github\.com\/[^/]+\/[^/]+\.git$/.test(repo),
		'repository.url must be the public GitHub repository, git+https://github.com/<owner>/<repo>.git (npm provenance links the package to it)',
	);
	check(
		manifest.repository?.directory === 'packages/n8n',
		'repository.directory must be packages/n8n (the package lives in a monorepo)',
	);
	if (repositoryUrl === null)
		problems.push(
			'this clone has no git remote "origin": publish from the GitHub repository (the release workflow does)',
		);
	else if (repositoryUrl !== undefined)
		check(
			normalizeRepositoryUrl(repo) === repositoryUrl,
			`repository.url (${repo}) is not this repository (${repositoryUrl})`,
		);
	const homepageProblem = urlProblem(manifest.homepage);
	check(!homepageProblem, `homepage ${homepageProblem}`);
	check(
		!repo || !manifest.homepage || manifest.homepage.startsWith(normalizeRepositoryUrl(repo)),
		`homepage (${manifest.homepage}) must be in the repository (${normalizeRepositoryUrl(repo)}/...)`,
	);
	check(
		manifest.author?.name,
		'author.name is required (n8n verification matches it with the npm maintainer)',
	);
	const emailIssue = emailProblem(manifest.author?.email);
	check(!emailIssue, `author.email ${emailIssue}`);
	if (tag !== undefined)
		check(
			tag === `n8n-v${manifest.version}`,
			`the tag ${tag} does not name this version (expected n8n-v${manifest.version})`,
		);
	return problems;
}

/**
 * Documentation links the nodes and the credential show in n8n (codex resources, documentationUrl):
 * each must lead into this package's repository, not a placeholder or another organisation.
 */
function documentationLinkProblems(manifest) {
	const repo = normalizeRepositoryUrl(manifest.repository?.url ?? '');
	const files = [
		...fs
			.readdirSync(path.join(root, 'nodes'), { recursive: true })
			.filter((f) => f.endsWith('.node.json'))
			.map((f) => path.join('nodes', f)),
		...fs.readdirSync(path.join(root, 'credentials')).map((f) => path.join('credentials', f)),
	];
	const problems = [];
	for (const file of files) {
		const text = fs.readFileSync(path.join(root, file), 'utf8');
		for (const [, url] of text.matchAll(/(https?:\/\/[^\s'"`)]+)/g))
			if (
				/github|readme/i.test(url) &&
				!url.startsWith(`${repo}/`) &&
				!url.startsWith(`${repo}?`) &&
				url !== repo
			)
				problems.push(`${file} links to ${url}, outside this repository (${repo})`);
	}
	return problems;
}

function run(title, command, args) {
	process.stdout.write(`\n▶ ${title}\n`);
	const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
	if (result.status !== 0) {
		process.stderr.write(`✖ ${title} failed\n`);
		process.exit(result.status ?? 1);
	}
}

function capture(command, args) {
	const result = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
	if (result.status !== 0)
		throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
	return result.stdout;
}

if (require.main !== module) {
	module.exports = { manifestProblems, documentationLinkProblems };
	return;
}

const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const tagIndex = process.argv.indexOf('--tag');
const problems = manifestProblems(manifest, {
	repositoryUrl: gitRepositoryUrl(root),
	tag: tagIndex > 0 ? process.argv[tagIndex + 1] : undefined,
});
if (!fs.existsSync(path.join(root, 'LICENSE.md')))
	problems.push('LICENSE.md must ship with the package');
problems.push(...documentationLinkProblems(manifest));
if (problems.length) {
	process.stderr.write(`✖ package.json:\n  - ${problems.join('\n  - ')}\n`);
	process.exit(1);
}
process.stdout.write(`✔ package.json of ${manifest.name}@${manifest.version}\n`);

// 2. A clean build and every check of the package.
fs.rmSync(path.join(root, 'dist'), { recursive: true, force: true });
run('Build', 'npm', ['run', 'build']);
run('Type check', 'npm', ['run', 'typecheck']);
run('n8n-node lint', 'npm', ['run', 'lint']);
run("n8n's community package scanner", 'npm', ['run', 'scan']);

// 3. What would be uploaded.
const [packed] = JSON.parse(capture('npm', ['pack', '--dry-run', '--json']));
const shipped = packed.files.map((file) => file.path).sort();
const expected = [...manifest.n8n.nodes, ...manifest.n8n.credentials];
const missing = expected.filter((file) => !shipped.includes(file));
const extra = shipped.filter(
	(file) =>
		!file.startsWith('dist/') &&
		!/^examples\/[\w-]+\.json$/.test(file) &&
		!['package.json', 'README.md', 'LICENSE.md', 'CHANGELOG.md'].includes(file),
);
const sources = shipped.filter((file) => /\.(ts|map)$/.test(file) && !file.endsWith('.d.ts'));
if (missing.length || extra.length || sources.length) {
	process.stderr.write(
		`✖ tarball: missing ${JSON.stringify(missing)}, unexpected ${JSON.stringify([...extra, ...sources])}\n`,
	);
	process.exit(1);
}
process.stdout.write(
	`\n✔ tarball ${packed.filename}: ${shipped.length} files, ${Math.round(packed.size / 1024)} KiB packed\n`,
);

// 4. npm's own checks of the upload, without uploading.
run('npm publish --dry-run', 'npm', ['publish', '--dry-run', '--access', 'public']);
process.stdout.write(
	'\n✔ ready to publish: the release workflow runs `npm publish --provenance` from CI\n',
);
