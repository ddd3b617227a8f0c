/**
 * Email > Verify over several items on contract fixtures (nock): a bad cell is a free verdict that
 * routes like any other, and a 429 part way keeps the answers already paid for, with the rest as items
 * that say they were not sent and when they can go (or a failure that says how many were answered).
 * nock refuses any request it was not told about, so "nothing sent" is checked by construction.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- test code, never packed: files ships dist only; the key is a made-up one nock checks */
import nock from 'nock';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { replyWithFixture, useNock } from '../../../test/support/nock';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { executeContext, type TestCredentials } from './support/context';

const ORIGIN = 'https://api.evf.test';
const credentials: TestCredentials = {
	apiKey: 'evf_n8n_unit_key_7c2e90',
	baseUrl: `${ORIGIN}/api`,
};
const node = new EmailVerification();
/** An epoch-seconds X-RateLimit-Reset far ahead: the client waits out only resets within a minute. */
const RESET_EPOCH_S = 2_000_000_000;
const RESET_ISO = new Date(RESET_EPOCH_S * 1000).toISOString();

useNock();

const api = () => nock(`${ORIGIN}/api`, { reqheaders: { 'x-api-key': credentials.apiKey } });

/** Answers one POST /v1/verify/single for `email` with the contract's 200, and records the body. */
function answers(email: string, sent: string[]): void {
	replyWithFixture(
		api().post('/v1/verify/single', (body: { email: string }) => {
			if (body.email !== email) return false;
			sent.push(body.email);
			return true;
		}),
		'verify-single.200',
		(body: IDataObject) => ({ ...body, email }),
	);
}

function refusesWith429(email: string, sent: string[]): void {
	replyWithFixture(
		api().post('/v1/verify/single', (body: { email: string }) => {
			if (body.email !== email) return false;
			sent.push(body.email);
			return true;
		}),
		'error.429.single',
		undefined,
		{ 'x-ratelimit-reset': String(RESET_EPOCH_S) },
	);
}

async function run(
	cells: unknown[],
	options: IDataObject = {},
	continueOnFail = false,
): Promise<INodeExecutionData[]> {
	const items = cells.map((email) => ({ json: { email } as IDataObject }));
	const harness = executeContext({
		params: (name, i) =>
			({ resource: 'email', operation: 'verify', email: cells[i], options })[name],
		items,
		credentials,
		continueOnFail,
	});
	return (await node.execute.call(harness.context))[0];
}

describe('Email > Verify: a bad cell is a free verdict', () => {
	it.each([
		['an empty cell', '', 'empty'],
		['a missing field (null)', null, 'empty'],
		['a malformed address', 'ada@@acme', 'malformed'],
		['"n/a"', 'n/a', 'malformed'],
		['two addresses in one cell', 'a@b.co, c@d.co', 'several_addresses'],
	])(
		'%s: category Invalid, a reason, credits_used 0, nothing sent',
		async (_name, cell, problem) => {
			const [item] = await run([cell]);
			expect(item.json).toMatchObject({
				category: 'Invalid',
				group: 'invalid',
				safe_to_send: false,
				credits_used: 0,
				sent: false,
				problem,
			});
			expect(String(item.json.reason)).toMatch(/Nothing was sent or charged/);
			expect(item.pairedItem).toEqual({ item: 0 });
		},
	);

	it('routes with the answered items, each paired to its input item', async () => {
		const sent: string[] = [];
		answers('valid.anna@acme-corp.com', sent);
		const output = await run(['', 'valid.anna@acme-corp.com', 'ada@@acme']);
		expect(sent).toEqual(['valid.anna@acme-corp.com']);
		expect(output.map((o) => [o.json.group, o.pairedItem])).toEqual([
			['invalid', { item: 0 }],
			['safe_to_send', { item: 1 }],
			['invalid', { item: 2 }],
		]);
	});

	it('"On Bad Input: Fail the Node" fails naming the item, or gives an error item with Continue On Fail', async () => {
		const failing = run(['ada@@acme'], { onBadInput: 'fail' });
		await expect(failing).rejects.toBeInstanceOf(NodeOperationError);
		await expect(failing).rejects.toThrow(/"ada@@acme" is not an email address/);
		await expect(failing).rejects.toMatchObject({ context: { itemIndex: 0 } });
		const kept = await run(['n/a'], { onBadInput: 'fail' }, true);
		expect(kept).toHaveLength(1);
		expect(String(kept[0].json.error)).toMatch(/"n\/a" is not an email address/);
		expect(kept[0].pairedItem).toEqual({ item: 0 });
	});

	it('a refused key still fails the node', async () => {
		replyWithFixture(api().post('/v1/verify/single'), 'error.401');
		await expect(run(['valid.anna@acme-corp.com'])).rejects.toBeInstanceOf(NodeApiError);
	});
});

describe('Email > Verify: a 429 part way keeps what was paid for', () => {
	const cells = [
		'valid.one@acme-corp.com',
		'valid.two@acme-corp.com',
		'valid.three@acme-corp.com',
		'ada@@acme',
		'valid.four@acme-corp.com',
	];

	// Verify sends up to VERIFY_CONCURRENCY items at once, so the four addresses leave together: the
	// allowance refuses the last two, and nothing is started after a 429 (nock refuses any other request).
	it('outputs the answered items and, for each item not sent, when it can go', async () => {
		const sent: string[] = [];
		answers(cells[0], sent);
		answers(cells[1], sent);
		refusesWith429(cells[2], sent);
		refusesWith429(cells[4], sent);
		const output = await run(cells);
		expect(sent.sort()).toEqual([cells[0], cells[1], cells[2], cells[4]].sort());
		expect(output.map((o) => o.pairedItem)).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
		expect(output.slice(0, 2).map((o) => o.json.group)).toEqual(['safe_to_send', 'safe_to_send']);
		// A bad cell after the stop still gets its free verdict: it needs no request.
		expect(output[3].json).toMatchObject({ category: 'Invalid', problem: 'malformed' });
		for (const [index, item] of [
			[2, output[2]],
			[4, output[4]],
		] as const) {
			expect(item.json).toMatchObject({
				email: cells[index],
				sent: false,
				status: 'not_sent',
				stopped_by: 'allowance',
				send_after: RESET_ISO,
				credits_used: 0,
			});
			expect(String(item.json.reason)).toContain(RESET_ISO);
			// The words give the time in the workflow's time zone too (the harness's America/New_York).
			expect(String(item.json.reason)).toContain('after 2033-05-17 23:33 America/New_York');
			expect(String(item.json.reason)).toMatch(/Nothing was charged/);
			expect(item.json.category).toBeUndefined();
		}
	});

	it('"On Stop Part Way: Fail the Node" fails with how many were answered and when the rest can go', async () => {
		const sent: string[] = [];
		answers(cells[0], sent);
		for (const index of [1, 2, 4]) refusesWith429(cells[index], sent);
		const failing = run(cells, { onStop: 'fail' });
		await expect(failing).rejects.toMatchObject({
			httpCode: '429',
			context: { itemIndex: 1, answered: 1, notSent: 4, sendAfter: RESET_ISO },
		});
		await expect(failing).rejects.toMatchObject({
			description: expect.stringContaining('1 of 5 items were answered'),
		});
		expect(sent.sort()).toEqual([cells[0], cells[1], cells[2], cells[4]].sort());
	});

	it('with Continue On Fail, the answered items still come out and each item not sent is an error item', async () => {
		const sent: string[] = [];
		answers(cells[0], sent);
		for (const index of [1, 2, 4]) refusesWith429(cells[index], sent);
		const output = await run(cells, { onStop: 'fail' }, true);
		expect(sent.sort()).toEqual([cells[0], cells[1], cells[2], cells[4]].sort());
		expect(output).toHaveLength(5);
		expect(output[0].json.group).toBe('safe_to_send');
		for (const index of [1, 2, 4]) {
			expect(output[index].json).toMatchObject({
				email: cells[index],
				sent: false,
				send_after: RESET_ISO,
				httpCode: '429',
			});
			expect(String(output[index].json.error)).toMatch(/allowance/);
			expect(output[index].pairedItem).toEqual({ item: index });
		}
		expect(output[3].json).toMatchObject({ category: 'Invalid' });
	});
});
