/**
 * The n8n release check (scripts/release-check.cjs) holds package.json true to this repository: the
 * GitHub repository with the package's directory, a homepage inside it, a real author address, and
 * nothing reserved for examples, tests or this machine. n8n's verification compares the npm package's
 * repository URL with the GitHub repository it was published from, and the author with the maintainer.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code, never packed: files ships dist only */
import { readFileSync } from 'node:fs';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the release check is plain CommonJS
const { manifestProblems } = require('../scripts/release-check.cjs') as {
	manifestProblems(
		manifest: Record<string, unknown>,
		options?: { repositoryUrl?: string | null; tag?: string },
	): string[];
};

const current = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
const REPO = 'https://github.com/evf-owner/evf-connectors';
/** The manifest as the maintainers fill it in for a repository at REPO. */
const filled = {
	...current,
	homepage: `${REPO}/tree/main/packages/n8n#readme`,
	repository: { type: 'git', url: `git+${REPO}.git`, directory: 'packages/n8n' },
	author: { name: 'EVF Connectors', email: 'connectors@evf-production.com' },
};

it('package.json names the package directory in the monorepo and says which Node versions it supports', () => {
	expect(current.repository.directory).toBe('packages/n8n');
	expect(current.engines.node).toBe('^20.12.0 || ^22.0.0 || ^24.0.0');
});

it('accepts the manifest once it names this repository, its homepage and a real author', () => {
	expect(manifestProblems(filled, { repositoryUrl: REPO })).toEqual([]);
	expect(manifestProblems(filled, { repositoryUrl: REPO, tag: `n8n-v${current.version}` })).toEqual(
		[],
	);
});

it('refuses the repository as it stands: every placeholder address is named', () => {
	const problems = manifestProblems(current, { repositoryUrl: REPO }).join('\n');
	for (const field of ['repository.url', 'homepage', 'author.email'])
		if (
			/\.example\b/.test(
				JSON.stringify(
					field === 'author.email'
						? current.author
						: field === 'homepage'
							? current.homepage
							: current.repository,
				),
			)
		)
			expect(problems).toMatch(new RegExp(`${field.replace('.', '\\.')} .*reserved name`));
});

it.each([
	[
		'an author at example.com',
		{ author: { name: 'A', email: 'connectors@example.com' } },
		/author\.email .*reserved name example\.com/,
	],
	[
		'an author at a .test name',
		{ author: { name: 'A', email: 'a@evf.test' } },
		/author\.email .*reserved/,
	],
	[
		'a homepage on localhost',
		{ homepage: 'https://localhost/n8n' },
		/homepage .*reserved name localhost/,
	],
	[
		'a homepage outside the repository',
		{ homepage: 'https://www.evf-production.com' },
		/must be in the repository/,
	],
	[
		'a plain-http homepage',
		{ homepage: `http://github.com/evf-owner/evf-connectors` },
		/homepage .*https/,
	],
	[
		'a repository on a .example host',
		{
			repository: {
				type: 'git',
				url: 'git+https://github.example/o/r.git',
				directory: 'packages/n8n',
			},
		},
		/repository\.url .*reserved/,
	],
	[
		'a repository without its directory',
		{ repository: { type: 'git', url: `git+${REPO}.git` } },
		/repository\.directory/,
	],
	[
		"another organisation's repository",
		{
			repository: {
				type: 'git',
				url: 'git+https://github.com/evf-connectors/n8n-nodes-evf.git',
				directory: 'packages/n8n',
			},
			homepage: 'https://github.com/evf-connectors/n8n-nodes-evf',
		},
		/is not this repository/,
	],
	['no author name', { author: { email: 'connectors@evf-production.com' } }, /author\.name/],
])('refuses %s', (_name, change, says) => {
	expect(manifestProblems({ ...filled, ...change }, { repositoryUrl: REPO }).join('\n')).toMatch(
		says,
	);
});

it('refuses to release from a clone without a git remote, and a tag that names another version', () => {
	expect(manifestProblems(filled, { repositoryUrl: null }).join('\n')).toMatch(/no git remote/);
	expect(manifestProblems(filled, { repositoryUrl: REPO, tag: 'n8n-v9.9.9' }).join('\n')).toMatch(
		/does not name this version/,
	);
});
