/**
 * What an n8n user sees, in the real n8n editor (2.8.4) in Debian's Chromium: the package installed
 * from its `npm pack` tarball into the user folder's .n8n/nodes, the owner created and signed in, the
 * credential made in its dialog against the sandbox, every operation's panel, the job picker, a Verify
 * run, and both triggers. Any uncaught error in the page fails the test.
 *
 * Run by `npm run test:editor` (part of the package's `check`). EVF_SCREENSHOTS=1 also writes the
 * README's screenshots to packages/n8n/docs/.
 */
import type { INodeProperties } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { createClient } from '@evf/client/node';
import { EmailVerification } from '../../nodes/EmailVerification/EmailVerification.node';
import { EmailVerificationTrigger } from '../../nodes/EmailVerificationTrigger/EmailVerificationTrigger.node';
import { EmailVerificationApi } from '../../credentials/EmailVerificationApi.credentials';
import {
	keepFailure,
	missingBrowser,
	note,
	openBrowser,
	screenshot,
	settings,
	type EditorBrowser,
	type Locator,
	type Page,
} from './browser';
import {
	PACKAGE_DIR,
	PINNED,
	createInstance,
	discardTarball,
	freePort,
	installPackage,
	matrixVersions,
	packTarball,
	removeInstance,
	startN8n,
	type Instance,
	type N8nProcess,
} from '../harness/n8n-runner';
import { ACTION_DESCRIPTION, JOB_LABEL, PANEL_CASES, type PanelCase } from './panels';
import { describeWhenPresent } from '../../../../test/support/optional-suite';

jest.setTimeout(15 * 60_000);

// Without a browser: skipped with one line, or failing under EVF_REQUIRE_ALL_SUITES=1 (test/support/optional-suite.ts).
const missing = missingBrowser();
const OWNER = {
	email: 'owner@example.com',
	password: 'Editor-test-1',
	first: 'Olga',
	last: 'Owner',
};
const DOCS = `${PACKAGE_DIR}/docs`;

const action = new EmailVerification().description;
const trigger = new EmailVerificationTrigger().description;
/** What the credential dialog says when the service answers without the account. */
const credentialFailure = new EmailVerificationApi().test.rules![0].properties.message;

let sandbox: Sandbox;
let instance: Instance | undefined;
let n8n: N8nProcess;
let browser: EditorBrowser;
let page: Page;
let submittedJobId: string;
const timings: Record<string, number> = {};
/** The first step that failed: each step continues where the one before left the page. */
let broken: string | undefined;

function step(name: string, fn: () => Promise<void>): void {
	it(name, async () => {
		if (broken) throw new Error(`not run: the step "${broken}" failed`);
		let passed = false;
		try {
			await fn();
			passed = true;
		} finally {
			if (!passed) {
				broken = name;
				// What the page looked like, for whoever reads the failure.
				const file = await keepFailure(page, settings.debug);
				note(`"${name}" failed; the page at that moment: ${file}`);
			}
		}
	});
}

/** The label a user clicks for an option value of a parameter, from the node's own description. */
function optionName(name: string, value: string | boolean): string {
	const property = action.properties.find(
		(p) => p.name === name && (p.options ?? []).some((o) => 'value' in o && o.value === value),
	);
	const option = (property?.options ?? []).find((o) => 'value' in o && o.value === value);
	if (!option) throw new Error(`no option ${String(value)} for ${name}`);
	return (option as INodeProperties & { name: string }).name;
}

async function shot(name: string): Promise<void> {
	// The README shows the pinned n8n.
	if (!settings.screenshots || instance?.version !== PINNED) return;
	// n8n's toasts ("Node executed successfully") would cover the panel.
	for (const close of await page.locator('.el-notification__closeBtn').all())
		await close.click().catch(() => undefined);
	await page.waitForTimeout(500);
	await screenshot(page, DOCS, name);
}

const ndv = () => page.getByTestId('ndv');

/** Picks an option in an n8n select (element-plus): opens it, clicks the item with that exact text. */
async function choose(select: Locator, text: string): Promise<void> {
	await select.click();
	const item = page
		.locator('.el-select-dropdown__item:visible, .el-select-dropdown li:visible')
		.filter({ has: page.getByText(text, { exact: true }) })
		.first();
	await item.click();
	await page.waitForTimeout(150);
}

async function setParameter(name: string, value: string | boolean): Promise<void> {
	const input = ndv().getByTestId(`parameter-input-${name}`);
	if (typeof value === 'boolean') {
		const toggle = input.locator('.el-switch');
		const on = (await toggle.getAttribute('class'))?.includes('is-checked') ?? false;
		if (on !== value) await toggle.click();
		return;
	}
	await choose(input, optionName(name, value));
}

/** Top-level labels and notices of the parameters panel, top to bottom, as the user reads them. */
async function panelTexts(): Promise<string[]> {
	return await ndv()
		.getByTestId('node-parameters')
		.evaluate((root) => {
			const out: string[] = [];
			for (const el of Array.from(
				root.querySelectorAll('label.n8n-input-label, .notice.parameter-item'),
			)) {
				// Labels inside a collection's added options are not top-level parameters.
				if (el.closest('.collection-parameter, .fixed-collection-parameter')) continue;
				if (el.closest('[data-test-id="credentials-label"]')) continue;
				// The Settings tab's parameters are in the page too, hidden.
				if (!(el as HTMLElement).checkVisibility()) continue;
				// A label's first text is its title; the Fixed/Expression switch follows it.
				const title = el.matches('label') ? el.querySelector('span') : el;
				const text = (title?.textContent ?? '').replace(/\s+/g, ' ').trim();
				if (text) out.push(text);
			}
			return out;
		});
}

/** The options a collection parameter offers in its Add Option list. */
async function collectionOptions(name: string): Promise<string[]> {
	const collection = ndv()
		.getByTestId('parameter-item')
		.filter({ has: page.locator(`label[for="${name}"]`) })
		.last();
	await collection.getByTestId('collection-parameter-add').click();
	const items = page.locator('.el-select-dropdown:visible .el-select-dropdown__item');
	await items.first().waitFor();
	const texts = (await items.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
	await page.keyboard.press('Escape');
	await page.waitForTimeout(150);
	return texts;
}

async function openNodeCreator(search: string): Promise<Locator> {
	await page.keyboard.press('Escape');
	const add = page.getByTestId('canvas-add-button');
	if (await add.isVisible()) await add.click();
	else await page.getByTestId('node-creator-plus-button').click();
	const creator = page.getByTestId('node-creator');
	await creator.waitFor();
	await page.keyboard.type(search);
	return creator;
}

async function closeNdv(): Promise<void> {
	await page.getByTestId('ndv-close-button').click();
	await ndv().waitFor({ state: 'hidden' });
}

/**
 * Saves the credential dialog and returns the connection test's answer, and what the dialog then says:
 * the failure banner with its details opened ("More details" holds the message), the success line, or
 * nothing once newer n8n closes the dialog after a successful test.
 */
async function saveCredentialAndReadResult(): Promise<{ status: string; shown: string }> {
	const dialog = page.getByTestId('editCredential-modal');
	const tested = page.waitForResponse((r) => r.url().includes('/rest/credentials/test'));
	await dialog.getByTestId('credential-save-button').click();
	const response = await tested;
	const { status } = ((await response.json()) as { data: { status: string } }).data;
	if (settings.debug) {
		const sent = JSON.parse(response.request().postData() ?? '{}').credentials?.data ?? {};
		note(
			`credential test: baseUrl=${sent.baseUrl} key ok=${sent.apiKey === sandbox.apiKey} -> ${await response.text()}`,
		);
	}
	const outcome = dialog
		.getByText(/Connection tested successfully|Couldn.t connect with these settings/)
		.filter({ visible: true })
		.first();
	// A failure always stays on screen; a success may close the dialog instead.
	await outcome.waitFor({ timeout: status === 'OK' ? 3_000 : 30_000 }).catch(() => undefined);
	if (!(await dialog.isVisible())) return { status, shown: '' };
	const more = dialog.getByText('More details', { exact: true }).filter({ visible: true });
	if ((await more.count()) > 0) {
		await more.first().click();
		await page.waitForTimeout(300);
	}
	return { status, shown: await dialog.innerText() };
}

async function fillCredential(fields: Record<string, string>): Promise<void> {
	const dialog = page.getByTestId('editCredential-modal');
	for (const [name, value] of Object.entries(fields)) {
		const input = dialog.getByTestId(`parameter-input-${name}`).locator('input');
		// A saved secret shows as a placeholder: select it and paste over it, as a user does.
		await input.click();
		await page.keyboard.press('ControlOrMeta+a');
		await page.keyboard.insertText(value);
		await page.keyboard.press('Tab');
	}
}

function editorSuite(version: string): void {
	const needs = missing === undefined ? undefined : `editor test: ${missing}`;
	describeWhenPresent(`the n8n editor in Chromium, n8n ${version}`, needs, () => {
		beforeAll(async () => {
			const started = Date.now();
			sandbox = await startSandbox({ port: 0, timeScale: 0.01, allowInsecureWebhooks: true });
			const client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
			const submitted = await client.submitList({
				emails: ['valid.ada@example.com', 'invalid.bob@example.com', 'info@example.com'],
				name: 'Editor test list',
			});
			submittedJobId = submitted.jobs[0].job_id;
			await client.waitForJob(submittedJobId, { intervalMs: 200, timeoutMs: 60_000 });
			broken = undefined;
			instance = await createInstance({
				version,
				port: await freePort(),
				// The job picker shows times in the instance's timezone.
				extra: { GENERIC_TIMEZONE: 'UTC' },
			});
			installPackage(instance.folder, packTarball());
			n8n = await startN8n({ instance });
			browser = await openBrowser();
			page = browser.page;
			page.setDefaultTimeout(30_000);
			timings.setup = Date.now() - started;
		});

		afterAll(async () => {
			await browser?.close();
			await n8n?.stop();
			if (instance) removeInstance(instance);
			discardTarball();
			await sandbox?.close();
			note(`n8n ${version}: durations (ms): ${JSON.stringify(timings)}`);
		});

		afterEach(() => {
			// Any uncaught error in the page fails the step that caused it.
			const errors = browser?.pageErrors.splice(0) ?? [];
			expect(errors).toEqual([]);
		});

		step('creates the owner in the setup form, signs out, and signs in', async () => {
			const started = Date.now();
			// n8n answers its readiness check before every route is registered.
			for (let i = 0; i < 60; i++) {
				const settings = await fetch(`${n8n.url}/rest/settings`);
				if (settings.ok) break;
				await page.waitForTimeout(500);
			}
			await page.goto(`${n8n.url}/setup`);
			await page.locator('input[name=email]').fill(OWNER.email);
			await page.locator('input[name=firstName]').fill(OWNER.first);
			await page.locator('input[name=lastName]').fill(OWNER.last);
			await page.locator('input[name=password]').fill(OWNER.password);
			await page.getByTestId('form-submit-button').click();
			await page.waitForURL((url) => !url.pathname.startsWith('/setup'));
			// Signed in by the setup; forgetting the session cookie signs the browser out.
			await browser.context.clearCookies();
			await page.goto(`${n8n.url}/signin`);
			await page.locator('input[name=emailOrLdapLoginId]').fill(OWNER.email);
			await page.locator('input[name=password]').fill(OWNER.password);
			await page.getByTestId('form-submit-button').click();
			await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
			timings.signIn = Date.now() - started;
		});

		step(
			"the node creator shows the action node's own description, its triggers and actions",
			async () => {
				await page.goto(`${n8n.url}/workflow/new`);
				await page.getByTestId('canvas-add-button').waitFor();
				const creator = await openNodeCreator('Email Verification');
				await creator.getByText('Email Verification', { exact: true }).click();
				await creator.getByText(ACTION_DESCRIPTION, { exact: true }).first().waitFor();
				// The node's details panel (newer n8n also lists each entry's description above it, the
				// poll trigger's own included).
				const all = await creator.innerText();
				const text = all.slice(all.indexOf('Node details'));
				expect(text).not.toContain('Starts the workflow');
				expect(text).toContain('On bulk job finished');
				expect(text).not.toMatch(/On new Email Verification event/i);
				await creator.getByText(/^Actions \(\d+\)$/).click();
				await creator
					.getByText(
						'Verify one email address for 1 credit given the address and get its category and group and whether it is safe to send',
						{ exact: true },
					)
					.click();
				await ndv().waitFor();
			},
		);

		step(
			'creates the credential in its dialog: a Base URL without /api and a wrong key fail with the field to fix, the right ones connect',
			async () => {
				const started = Date.now();
				// n8n 2.8 offers a select with "Create new credential"; newer n8n a "Connect to …" button.
				const select = ndv().getByTestId('node-credentials-select');
				const connect = ndv().getByTestId('node-credentials-empty-state').getByRole('button');
				await select.or(connect).first().waitFor();
				if (await select.isVisible()) {
					await select.click();
					await page.getByTestId('node-credentials-select-item-new').click();
				} else await connect.click();
				const dialog = page.getByTestId('editCredential-modal');
				await dialog.waitFor();
				const baseUrl = dialog.getByTestId('parameter-input-baseUrl').locator('input');
				expect(await baseUrl.inputValue()).toBe('');
				expect(await baseUrl.getAttribute('placeholder')).toBe('https://<your service host>/api');

				await fillCredential({
					apiKey: sandbox.apiKey,
					baseUrl: sandbox.baseUrl.replace(/\/api$/, ''),
				});
				const wrongUrl = await saveCredentialAndReadResult();
				expect(wrongUrl.status).toBe('Error');
				expect(wrongUrl.shown).toContain(credentialFailure);

				await fillCredential({
					apiKey: `${sandbox.apiKey.slice(0, -4)}0000`,
					baseUrl: sandbox.baseUrl,
				});
				const wrongKey = await saveCredentialAndReadResult();
				expect(wrongKey.status).toBe('Error');
				expect(wrongKey.shown).toContain(credentialFailure);

				await fillCredential({
					apiKey: sandbox.apiKey,
					baseUrl: sandbox.baseUrl,
					webhookSecret: sandbox.webhookSecret,
				});
				const right = await saveCredentialAndReadResult();
				expect(right.status).toBe('OK');
				// n8n 2.8 keeps the dialog open with the result; newer n8n closes it on success.
				if (right.shown) {
					expect(right.shown).toContain('Connection tested successfully');
					await shot('credential');
					await dialog
						.locator('.el-dialog__headerbtn, [aria-label="Close this dialog"]')
						.first()
						.click();
				}
				await dialog.waitFor({ state: 'hidden' });
				timings.credential = Date.now() - started;
			},
		);

		for (const panel of PANEL_CASES) {
			step(`the panel of ${panel.title} shows exactly its fields`, async () => {
				// Leaving the resource and coming back gives the operation's defaults, as for a new node.
				const { resource, ...rest } = panel.set as { resource: string } & PanelCase['set'];
				await setParameter('resource', resource === 'account' ? 'email' : 'account');
				await setParameter('resource', resource);
				for (const [name, value] of Object.entries(rest)) await setParameter(name, value);
				await page.waitForTimeout(200);
				expect(await panelTexts()).toEqual(panel.visible);
				if (panel.options) expect(await collectionOptions('options')).toEqual(panel.options);
				if (panel.title === 'Bulk Job > Submit, waiting automatically for result rows')
					await shot('submit');
			});
		}

		step('the job picker lists the submitted job by what it is', async () => {
			await setParameter('resource', 'bulkJob');
			await setParameter('operation', 'get');
			await ndv().getByTestId('resource-locator-jobId').getByTestId('rlc-input').click();
			// Each job of the list, as the user reads it; none may look otherwise.
			const entries = page.getByText(/ address(es)? · /).filter({ visible: true });
			await entries.first().waitFor({ timeout: 30_000 });
			const labels = (await entries.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
			for (const label of labels) expect(label).toMatch(JOB_LABEL);
			expect(labels.some((l) => l.startsWith('3 addresses · completed · '))).toBe(true);
			expect(labels.join('\n')).not.toContain(submittedJobId);
			await shot('job-list');
			await page.keyboard.press('Escape');
		});
		step('runs Verify and shows its output', async () => {
			const started = Date.now();
			await setParameter('resource', 'email');
			await setParameter('operation', 'verify');
			await ndv()
				.getByTestId('parameter-input-email')
				.locator('input, [contenteditable]')
				.first()
				.fill('valid.editor@example.com');
			await ndv().getByTestId('node-execute-button').click();
			const output = ndv().getByTestId('output-panel');
			await output.getByText('safe_to_send').first().waitFor({ timeout: 60_000 });
			const text = await output.innerText();
			expect(text).toContain('valid.editor@example.com');
			expect(text).toMatch(/safe_to_send/);
			// The schema view lists every field with its value, the decision fields included.
			await output.getByTestId('radio-button-schema').click();
			for (const field of ['category', 'group', 'safe_to_send'])
				await output.getByText(field, { exact: true }).first().waitFor();
			await shot('output');
			timings.verify = Date.now() - started;
			await closeNdv();
		});

		step(
			'adds the webhook trigger: named by its event, with a panel about the Test URL',
			async () => {
				const creator = await openNodeCreator('Email Verification');
				await creator.getByText('Email Verification', { exact: true }).click();
				// With a node on the canvas, n8n opens the actions and folds the triggers.
				const event = creator.getByText('On bulk job finished', { exact: true });
				if (!(await event.isVisible())) await creator.getByText(/^Triggers \(\d+\)$/).click();
				await event.click();
				await ndv().waitFor();
				// The credential made above is picked for the new node; the trigger panel shows once it is set.
				const panel = ndv().getByTestId('trigger-header');
				await panel.waitFor({ timeout: 30_000 });
				expect(await panel.innerText()).toContain(
					(trigger.triggerPanel as { header: string }).header,
				);
				const whole = await ndv().innerText();
				expect(whole).not.toMatch(/Go to Email Verification/i);
				await shot('trigger');
				await closeNdv();
				const node = page.getByTestId('canvas-node').filter({ hasText: 'On Bulk Job Finished' });
				const canvasText = (await node.innerText()).replace(/\s+/g, ' ');
				expect(canvasText).toContain('Job summary');
				expect(canvasText.match(/On Bulk Job Finished/g)).toHaveLength(1);
			},
		);

		step('adds the poll trigger: its notice points at Poll Times above it', async () => {
			const creator = await openNodeCreator('Email Verification Poll');
			await creator.getByText('Email Verification Poll Trigger', { exact: true }).click();
			// A node with no actions to pick opens its details first, with its own description.
			await creator
				.getByText(/^Starts the workflow when a bulk job finishes, by checking/)
				.last()
				.waitFor();
			await creator.getByRole('button', { name: 'Add to workflow' }).click();
			await ndv().waitFor();
			const texts = await panelTexts();
			const pollTimes = texts.findIndex((t) => t.startsWith('Poll Times'));
			const notice = texts.findIndex((t) => t.includes('Poll Times set above'));
			expect(pollTimes).toBeGreaterThanOrEqual(0);
			expect(notice).toBeGreaterThan(pollTimes);
			expect(texts.join('\n')).not.toMatch(/interval below/);
			await closeNdv();
			const node = page.getByTestId('canvas-node').filter({ hasText: 'Polling' });
			const canvasText = (await node.innerText()).replace(/\s+/g, ' ');
			expect(canvasText.match(/On Bulk Job Finished/g)).toHaveLength(1);
		});
	});
}

// The pinned n8n always, the newest proven one too in CI or with EVF_N8N_MATRIX=1 (as the real-n8n
// suites); EVF_EDITOR_N8N=2.41.3 (comma-separated) names the versions instead. One suite each.
for (const version of settings.n8nVersions.length ? settings.n8nVersions : matrixVersions())
	editorSuite(version);
