// The one rule every release check uses for an address a user or a directory will open (a homepage,
// a repository, an author's e-mail, a web app's origin): it must be real, so names reserved for
// examples, tests and this machine are refused (RFC 2606: example, example.com/.net/.org, test,
// invalid, localhost; RFC 6761), as are single-label hosts, IP literals and plain http.

const RESERVED_NAME = /(^|\.)(example|test|invalid|localhost|local)$|(^|\.)example\.(com|net|org)$/i;

/** Why a host name cannot be published, or null. */
function hostProblem(host) {
  const name = host.replace(/\.$/, '').toLowerCase();
  if (!name) return 'has no host';
  if (RESERVED_NAME.test(name)) return `uses the reserved name ${name} (a placeholder)`;
  if (/^[\d.]+$/.test(name) || name.startsWith('[')) return `is an IP address (${name}), not a public name`;
  if (!name.includes('.')) return `has a single-label host (${name})`;
  return null;
}

/** Why `value` cannot be a published https address, or null. */
function urlProblem(value) {
  if (typeof value !== 'string' || !value.trim()) return 'is not set';
  let url;
  try {
    url = new URL(value.replace(/^git\+/, ''));
  } catch {
    return `(${value}) is not a URL`;
  }
  if (url.protocol !== 'https:') return `(${value}) must be an https:// address`;
  const problem = hostProblem(url.hostname);
  return problem ? `(${value}) ${problem}` : null;
}

/** Why `value` cannot be a published e-mail address, or null. */
function emailProblem(value) {
  if (typeof value !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(value))
    return `(${value ?? ''}) is not an e-mail address`;
  const problem = hostProblem(value.split('@')[1]);
  return problem ? `(${value}) ${problem}` : null;
}

/**
 * The repository's own address from git (`origin`), as https without ".git", or null when the clone
 * has no remote: a release then cannot say which repository it came from.
 */
function gitRepositoryUrl(cwd) {
  const { spawnSync } = require('node:child_process');
  const result = spawnSync('git', ['remote', 'get-url', 'origin'], { cwd, encoding: 'utf8' });
  if (result.status !== 0) return null;
  return normalizeRepositoryUrl(result.stdout.trim());
}

/** git@github.com:o/r.git, git+https://github.com/o/r.git and https://github.com/o/r all as https://github.com/o/r. */
function normalizeRepositoryUrl(value) {
  return value
    .replace(/^git\+/, '')
    .replace(/^git@([^:]+):/, 'https://$1/')
    .replace(/^ssh:\/\/git@/, 'https://')
    .replace(/\.git$/, '')
    .replace(/\/$/, '');
}

module.exports = { urlProblem, emailProblem, hostProblem, gitRepositoryUrl, normalizeRepositoryUrl };
