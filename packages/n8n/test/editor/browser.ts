/**
 * Debian's Chromium, driven by playwright-core (which never downloads a browser of its own). A fresh
 * profile per run, and nothing that reaches out to Google's services.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code, never packed: files ships dist only */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, selectors, type BrowserContext, type Page } from 'playwright-core';

export type { Locator, Page } from 'playwright-core';

export interface EditorBrowser {
	context: BrowserContext;
	page: Page;
	/** Uncaught errors thrown in the page. */
	pageErrors: string[];
	close(): Promise<void>;
}

export const CHROMIUM = '/usr/bin/chromium';

/** Why the editor test cannot run here, or undefined when it can. */
export function missingBrowser(): string | undefined {
	return fs.existsSync(CHROMIUM)
		? undefined
		: `${CHROMIUM} is missing (Debian package chromium: apt-get install -y chromium)`;
}

export async function openBrowser(): Promise<EditorBrowser> {
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
	const pageErrors: string[] = [];
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
export async function screenshot(page: Page, dir: string, name: string): Promise<string> {
	fs.mkdirSync(dir, { recursive: true });
	const file = path.join(dir, `${name}.png`);
	await page.screenshot({ path: file });
	return file;
}

/** Keeps what the page showed when a step failed, in the temp folder; returns the screenshot path. */
export async function keepFailure(page: Page, withHtml: boolean): Promise<string> {
	const file = path.join(os.tmpdir(), 'evf-editor-failure.png');
	await page.screenshot({ path: file }).catch(() => undefined);
	if (withHtml)
		fs.writeFileSync(file.replace(/png$/, 'html'), await page.content().catch(() => ''));
	return file;
}

/** The test's switches, read here (n8n's lint keeps `process` out of the package's TypeScript). */
export const settings = {
	/** EVF_SCREENSHOTS=1: write the README's screenshots. */
	screenshots: process.env.EVF_SCREENSHOTS === '1',
	/** EVF_EDITOR_DEBUG=1: keep the failing page's HTML, print each credential test's answer. */
	debug: Boolean(process.env.EVF_EDITOR_DEBUG),
	/** EVF_EDITOR_N8N=2.8.4,2.41.3: the n8n versions to run the editor test on (default: the pinned one). */
	n8nVersions: (process.env.EVF_EDITOR_N8N || '').split(',').filter(Boolean),
};

/** One line on stderr, outside jest's console capture. */
export function note(message: string): void {
	process.stderr.write(`[editor test] ${message}\n`);
}
