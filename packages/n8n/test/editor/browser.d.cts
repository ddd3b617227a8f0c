import type { BrowserContext, Page } from 'playwright-core';
export type { Locator, Page } from 'playwright-core';
export interface EditorBrowser {
	context: BrowserContext;
	page: Page;
	/** Uncaught errors thrown in the page. */
	pageErrors: string[];
	close(): Promise<void>;
}
export const CHROMIUM: string;
export function missingBrowser(): string | undefined;
export function openBrowser(): Promise<EditorBrowser>;
export function screenshot(page: Page, dir: string, name: string): Promise<string>;
export function keepFailure(page: Page, withHtml: boolean): Promise<string>;
export const settings: { screenshots: boolean; debug: boolean; ci: boolean; n8nVersions: string[] };
export function note(message: string): void;
