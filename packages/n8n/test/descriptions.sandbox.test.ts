/**
 * The text and display rules a user meets in the n8n editor, checked with n8n-workflow's own display
 * functions (the ones the editor calls). The same expectations run in the real editor in
 * test/editor/editor.e2e.test.ts.
 */
import { NodeHelpers } from 'n8n-workflow';
import { startSandbox } from '@evf/sandbox';
import { createClient } from '@evf/client/node';
import type { INodeParameters, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { EmailVerificationTrigger } from '../nodes/EmailVerificationTrigger/EmailVerificationTrigger.node';
import { EmailVerificationPollTrigger } from '../nodes/EmailVerificationPollTrigger/EmailVerificationPollTrigger.node';
import { EmailVerificationApi } from '../credentials/EmailVerificationApi.credentials';
import { jobLabel, searchJobs } from '../nodes/EmailVerification/methods/listSearch';
import { loadOptionsContext } from './support/context';
import { ACTION_DESCRIPTION, JOB_LABEL, PANEL_CASES } from './editor/panels';

const action = new EmailVerification().description;
const trigger = new EmailVerificationTrigger().description;
const pollTrigger = new EmailVerificationPollTrigger().description;
const credential = new EmailVerificationApi();
const node = { typeVersion: 1 };

/** The node's parameters as the editor keeps them after the user sets `set`, defaults filled in. */
function resolve(description: INodeTypeDescription, set: INodeParameters): INodeParameters {
	let values: INodeParameters = {};
	// One value at a time, as a user sets them: each choice can reveal the next parameter.
	for (const [name, value] of Object.entries(set)) {
		values = { ...values, [name]: value };
		values = NodeHelpers.getNodeParameters(
			description.properties,
			values,
			true,
			false,
			node,
			description,
		) as INodeParameters;
	}
	return NodeHelpers.getNodeParameters(
		description.properties,
		values,
		true,
		false,
		node,
		description,
	) as INodeParameters;
}

function shown(description: INodeTypeDescription, values: INodeParameters): INodeProperties[] {
	return description.properties.filter((p) =>
		NodeHelpers.displayParameter(values, p, node, description),
	);
}

describe('the action node panel, for every resource, operation, wait method and output', () => {
	it.each(PANEL_CASES.map((c) => [c.title, c] as const))('%s', (_title, panel) => {
		const values = resolve(action, panel.set);
		const visible = shown(action, values);
		expect(visible.map((p) => p.displayName)).toEqual(panel.visible);
		if (panel.options) {
			const options = visible.find((p) => p.name === 'options');
			const offered = (options?.options as INodeProperties[]).filter((o) =>
				NodeHelpers.displayParameter(
					(values.options as INodeParameters) ?? {},
					o,
					node,
					action,
					values,
				),
			);
			expect(offered.map((o) => o.displayName)).toEqual(panel.options);
		}
		if (panel.notices) {
			expect(visible.filter((p) => p.type === 'notice').map((p) => p.displayName)).toEqual(
				panel.notices,
			);
		}
	});

	it("gives an AI agent each operation's use, cost and input, not n8n's generic text (the tool description n8n builds)", () => {
		const nodeType = new EmailVerification();
		const resources = action.properties.find((p) => p.name === 'resource')!.options as Array<{
			value: string;
		}>;
		const descriptions: string[] = [];
		for (const { value: resource } of resources) {
			const operations = action.properties.find(
				(p) => p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
			)!.options as Array<{ value: string }>;
			for (const { value: operation } of operations) {
				const toolNode = {
					id: 'tool',
					name: 'Tool',
					type: 'n8n-nodes-evf.emailVerificationTool',
					typeVersion: 1,
					position: [0, 0] as [number, number],
					parameters: { resource, operation, descriptionType: 'auto' },
				};
				const text = NodeHelpers.getToolDescriptionForNode(toolNode, nodeType);
				descriptions.push(text);
				// What it costs, and what to pass where the operation needs an input.
				expect(text).toMatch(/ for free | for 1 credit | cannot be undone /);
				if (!['getMany', 'getAccount', 'getCredits', 'getSubscription'].includes(operation))
					expect(text).toMatch(/ given (the|its) /);
				expect(text.split(' ').length).toBeGreaterThan(8);
			}
		}
		expect(descriptions).toHaveLength(11);
		expect(new Set(descriptions).size).toBe(descriptions.length);
	});

	it('no text a user reads carries a raw expression, except where the user types one', () => {
		const texts: string[] = [];
		const walk = (props: INodeProperties[]) => {
			for (const p of props) {
				if (p.type === 'notice' || p.hint)
					texts.push(p.type === 'notice' ? p.displayName : p.hint!);
				for (const o of (p.options ?? []) as Array<Partial<INodeProperties>>) {
					if (o.description && !('type' in o)) texts.push(o.description);
				}
			}
		};
		walk(action.properties);
		walk(trigger.properties);
		walk(pollTrigger.properties);
		expect(texts.length).toBeGreaterThan(5);
		for (const text of texts) expect(text).not.toMatch(/\{\{|\$execution|\$json/);
	});

	it('the action keeps its own description', () => {
		expect(action.description).toBe(ACTION_DESCRIPTION);
	});
});

describe('the triggers', () => {
	it('n8n merges the webhook trigger into the action entry and shows its description there: it is the action description; its event is named', () => {
		// n8n's node creator pairs a trigger with the node whose name is the trigger's minus "Trigger"
		// and shows the trigger's description for the pair.
		expect(trigger.name.replace('Trigger', '')).toBe(action.name);
		expect(trigger.description).toBe(ACTION_DESCRIPTION);
		// n8n lists the options of a property named "Event" as the trigger's actions.
		const event = trigger.properties.find((p) => p.displayName === 'Event');
		expect(event?.options).toEqual([expect.objectContaining({ name: 'Bulk Job Finished' })]);
	});

	it('subtitles add to the node name instead of repeating it', () => {
		expect(trigger.subtitle).not.toContain(trigger.defaults.name);
		expect(pollTrigger.subtitle ?? '').not.toContain(String(pollTrigger.defaults.name));
		expect(trigger.subtitle).toContain('$parameter["output"]');
	});

	it("the webhook trigger's panel tells the user to submit a job with its Test URL", () => {
		const panel = trigger.triggerPanel as Exclude<typeof trigger.triggerPanel, boolean | undefined>;
		expect(panel.header).toMatch(/Test URL/);
		expect(JSON.stringify(panel.executionsHelp)).toMatch(/Test URL[\s\S]*Production URL/);
	});

	it("the poll trigger's notices point at Poll Times above them", () => {
		const notices = pollTrigger.properties.filter((p) => p.type === 'notice');
		expect(notices.length).toBeGreaterThan(0);
		for (const notice of notices) {
			expect(notice.displayName).toMatch(/Poll Times set above/);
			expect(notice.displayName).not.toMatch(/below/);
		}
	});
});

describe('the credential', () => {
	const baseUrl = credential.properties.find((p) => p.name === 'baseUrl')!;

	it('Base URL has no default to keep by mistake, is required, and its help is about the service', () => {
		expect(baseUrl.default).toBe('');
		expect(baseUrl.required).toBe(true);
		expect(baseUrl.placeholder).toMatch(/^https:\/\/.*\/api$/);
		expect(`${baseUrl.description} ${baseUrl.placeholder}`).not.toMatch(
			/sandbox|127\.0\.0\.1|8787/,
		);
	});

	it('the connection test takes any answer and, without an account in it, names the fields to check', () => {
		expect(credential.test.request.ignoreHttpStatusErrors).toBe(true);
		const [rule, ...others] = credential.test.rules ?? [];
		expect(others).toEqual([]);
		expect(rule).toMatchObject({
			type: 'responseSuccessBody',
			properties: { key: 'plan', value: undefined },
		});
		expect(rule.properties.message).toMatch(/Base URL.*\/api.*API key/);
	});
});

describe('the job picker labels', () => {
	const job = {
		job_id: 'job_8f2c1a',
		status: 'completed',
		total_emails: 3,
		progress_percent: 100,
		created_at: '2026-11-26T04:39:12Z',
	};
	const now = new Date('2026-11-26T06:00:00Z');

	it('says what the job is, in the instance timezone', () => {
		expect(jobLabel(job, 'UTC', now)).toBe('3 addresses · completed · 26 Nov 04:39');
		expect(jobLabel(job, 'Europe/Berlin', now)).toBe('3 addresses · completed · 26 Nov 05:39');
		expect(jobLabel(job, 'UTC', now)).toMatch(JOB_LABEL);
	});

	it('one address, a running job, a job from another year, and a timezone the runtime lacks', () => {
		expect(
			jobLabel(
				{ ...job, total_emails: 1, status: 'processing', progress_percent: 42.7 },
				'UTC',
				now,
			),
		).toBe('1 address · processing 42% · 26 Nov 04:39');
		expect(jobLabel({ ...job, total_emails: 12000 }, 'UTC', new Date('2027-01-02T00:00:00Z'))).toBe(
			'12,000 addresses · completed · 26 Nov 2026 04:39',
		);
		expect(jobLabel(job, 'Not/AZone', now)).toBe('3 addresses · completed · 26 Nov 04:39 UTC');
		expect(jobLabel({ ...job, created_at: 'yesterday' }, 'UTC', now)).toBe(
			'3 addresses · completed',
		);
	});
});

describe('the job picker against the sandbox', () => {
	it('lists a submitted job by what it is, with its ID as the value, and finds it by ID or label', async () => {
		const sandbox = await startSandbox({ port: 0, timeScale: 0.01 });
		try {
			const client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
			const submitted = await client.submitList({
				emails: ['a@example.com', 'b@example.com', 'c@example.com'],
			});
			const jobId = submitted.jobs[0].job_id;
			const { context } = loadOptionsContext({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
			const all = await searchJobs.call(context);
			const mine = all.results.find((r) => r.value === jobId);
			expect(mine?.name).toMatch(JOB_LABEL);
			expect(mine?.name).toMatch(/^3 addresses · /);
			expect(mine?.name).not.toContain(jobId);
			const byId = await searchJobs.call(context, jobId.slice(-6));
			expect(byId.results.map((r) => r.value)).toEqual([jobId]);
			const byLabel = await searchJobs.call(context, '3 addresses');
			expect(byLabel.results.map((r) => r.value)).toContain(jobId);
		} finally {
			await sandbox.close();
		}
	});
});
