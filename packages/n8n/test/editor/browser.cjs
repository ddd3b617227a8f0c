'use strict';
/**
 * Debian's Chromium, driven by playwright-core (which never downloads a browser of its own). A fresh
 * profile per run, and nothing that reaches out to Google's services. CommonJS because n8n's lint
 * keeps node: modules out of the package's TypeScript.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium, selectors } = require('playwright-core');

const CHROMIUM = '/usr/bin/chromium';

/** Why the editor test cannot run here, or undefined when it can. */
function missingBrowser() {
	return fs.existsSync(CHROMIUM)
		? undefined
		: `${CHROMIUM} is missing (Debian package chromium: apt-get install -y chromium)`;
}

async function openBrowser() {
	// n8n's editor marks its elements with data-test-id.
	selectors.setTestIdAttribute('data-test-id');
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'evf-chromium-'));
	// launchPersistentContext is how playwright takes a --user-data-dir of our own.
	const context = await chromium.launchPersistentContext(profile, {
		executablePath: CHROMIUM,
		headless: true,
		args: [
			'--headless',
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
		viewport: { width: 1440, height: 1000 },
		deviceScaleFactor: 1,
		timezoneId: 'UTC',
		locale: 'en-US',
	});
	const page = context.pages()[0] ?? (await context.newPage());
	const pageErrors = [];
	page.on('pageerror', (error) => pageErrors.push(`${error.name}: ${error.message}`));
	return {
		context,
		page,
		pageErrors,
		async close() {
			await context.close();
			fs.rmSync(profile, { recursive: true, force: true });
		},
	};
}

/** Writes a screenshot into `dir` (made if missing) and returns its path. */
async function screenshot(page, dir, name) {
	fs.mkdirSync(dir, { recursive: true });
	const file = path.join(dir, `${name}.png`);
	await page.screenshot({ path: file });
	return file;
}

/** Keeps what the page showed when a step failed, in the temp folder; returns the screenshot path. */
async function keepFailure(page, withHtml) {
	const file = path.join(os.tmpdir(), 'evf-editor-failure.png');
	await page.screenshot({ path: file }).catch(() => undefined);
	if (withHtml)
		fs.writeFileSync(file.replace(/png$/, 'html'), await page.content().catch(() => ''));
	return file;
}

/** The test's switches, read here (n8n's lint keeps `process` out of the package's TypeScript). */
const settings = {
	/** EVF_SCREENSHOTS=1: write the README's screenshots. */
	screenshots: process.env.EVF_SCREENSHOTS === '1',
	/** EVF_EDITOR_DEBUG=1: keep the failing page's HTML, print each credential test's answer. */
	debug: Boolean(process.env.EVF_EDITOR_DEBUG),
	ci: process.env.CI === 'true',
	/** EVF_EDITOR_N8N=2.8.4,2.41.3: the n8n versions to run the editor test on (default: the pinned one). */
	n8nVersions: (process.env.EVF_EDITOR_N8N || '').split(',').filter(Boolean),
};

/** One line on stderr, outside jest's console capture. */
function note(message) {
	process.stderr.write(`[editor test] ${message}\n`);
}

module.exports = { CHROMIUM, missingBrowser, openBrowser, screenshot, keepFailure, settings, note };
