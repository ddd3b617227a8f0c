/**
 * Email > Verify over a sheet's rows on a Starter account whose allowance runs out part way, against
 * the sandbox answering in the spec's shape: the answered items come out, the rest say "not sent" with
 * the time they can go, and a rerun of only those rows charges each address once. The same for the
 * service pausing new work (503) after the first row.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { createClient } from '@evf/client/node';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { VERIFY_CONCURRENCY } from '../nodes/EmailVerification/actions/email/verify.operation';
import { executeContext, type TestCredentials } from './support/context';

const DAY_MS = 24 * 3600_000;
const STARTER_PER_DAY = 10_000;
const node = new EmailVerification();
let sb: Sandbox;

beforeAll(async () => {
	sb = await startSandbox({ port: 0, timeScale: 0.01 });
});
afterAll(async () => {
	await sb.close();
});

async function verify(
	credentials: TestCredentials,
	cells: unknown[],
	extra: { options?: IDataObject; continueOnFail?: boolean; beforeItem?: (i: number) => void } = {},
): Promise<INodeExecutionData[]> {
	const seen = new Set<number>();
	const harness = executeContext({
		params: (name, i) => {
			if (name === 'email' && !seen.has(i)) {
				seen.add(i);
				extra.beforeItem?.(i);
			}
			return {
				resource: 'email',
				operation: 'verify',
				email: cells[i],
				options: extra.options ?? {},
			}[name];
		},
		items: cells.map((email) => ({ json: { email } as IDataObject })),
		credentials,
		continueOnFail: extra.continueOnFail,
	});
	return (await node.execute.call(harness.context))[0];
}

function singleChecks(): number {
	return sb.requests.filter((r) => r.path === '/v1/verify/single').length;
}

describe('Email > Verify on a Starter account, allowance used up part way', () => {
	it('outputs the answered items, the rest "not sent" with a date; a rerun of those charges each once', async () => {
		const acct = sb.addAccount({ plan: 'starter', credits: 100_000 });
		const credentials = { apiKey: acct.apiKey, baseUrl: sb.baseUrl };
		// Today's allowance all but spent by an earlier bulk job: 3 addresses are left.
		const client = createClient(credentials);
		const earlier = Array.from(
			{ length: STARTER_PER_DAY - 3 },
			(_, i) => `valid.earlier${i}@example.com`,
		);
		await client.submitBulk({ emails: earlier });
		const cells = [
			'valid.row1@example.com',
			'valid.row2@example.com',
			'',
			'valid.row3@example.com',
			'valid.row4@example.com',
			'a@b.co, c@d.co',
			'valid.row5@example.com',
		];
		const charged = sb.ledger(acct.apiKey).charged;
		const checks = singleChecks();

		const first = await verify(credentials, cells);

		expect(first.map((o) => o.pairedItem)).toEqual(cells.map((_, item) => ({ item })));
		const answered = first.filter((o) => o.json.credits_used === 1);
		expect(answered.map((o) => o.json.email)).toEqual([
			'valid.row1@example.com',
			'valid.row2@example.com',
			'valid.row3@example.com',
		]);
		expect(first[2].json).toMatchObject({ category: 'Invalid', problem: 'empty' });
		expect(first[5].json).toMatchObject({ category: 'Invalid', problem: 'several_addresses' });
		const notSent = first.filter((o) => o.json.status === 'not_sent');
		expect(notSent.map((o) => o.json.email)).toEqual([
			'valid.row4@example.com',
			'valid.row5@example.com',
		]);
		for (const item of notSent) {
			expect(item.json).toMatchObject({ sent: false, stopped_by: 'allowance', credits_used: 0 });
			const sendAfter = Date.parse(String(item.json.send_after));
			// Starter's day window: the reset is a day after the earlier job, not an hour.
			expect(sendAfter).toBeGreaterThan(Date.now() + DAY_MS - 3600_000);
			expect(String(item.json.reason)).toContain(String(item.json.send_after));
		}
		expect(sb.ledger(acct.apiKey).charged - charged).toBe(3);
		// Three answered, then the refusals: a 429 stops every request not yet started, and the few
		// already in flight (fewer than VERIFY_CONCURRENCY) are refused too, free.
		expect(singleChecks() - checks).toBeGreaterThanOrEqual(4);
		expect(singleChecks() - checks).toBeLessThanOrEqual(3 + VERIFY_CONCURRENCY);

		// The next day, the user runs only the rows that were not sent.
		sb.advanceTime(DAY_MS + 60_000);
		const rerun = await verify(
			credentials,
			notSent.map((o) => o.json.email),
		);
		expect(rerun.map((o) => [o.json.email, o.json.credits_used, o.json.group])).toEqual([
			['valid.row4@example.com', 1, 'safe_to_send'],
			['valid.row5@example.com', 1, 'safe_to_send'],
		]);
		// Every address of the sheet charged exactly once over both runs; bad cells never.
		expect(sb.ledger(acct.apiKey).charged - charged).toBe(5);
	});

	it('"Fail the Node" with Continue On Fail: the answered items still come out', async () => {
		const acct = sb.addAccount({ plan: 'starter', credits: 100_000 });
		const credentials = { apiKey: acct.apiKey, baseUrl: sb.baseUrl };
		const client = createClient(credentials);
		await client.submitBulk({
			emails: Array.from({ length: STARTER_PER_DAY - 1 }, (_, i) => `valid.e${i}@example.com`),
		});
		const cells = ['valid.f1@example.com', 'valid.f2@example.com'];
		const failing = verify(credentials, cells, { options: { onStop: 'fail' } });
		await expect(failing).rejects.toMatchObject({
			httpCode: '429',
			context: { answered: 1, notSent: 1 },
		});
		const acct2 = sb.addAccount({ plan: 'starter', credits: 100_000 });
		const credentials2 = { apiKey: acct2.apiKey, baseUrl: sb.baseUrl };
		await createClient(credentials2).submitBulk({
			emails: Array.from({ length: STARTER_PER_DAY - 1 }, (_, i) => `valid.g${i}@example.com`),
		});
		const kept = await verify(credentials2, cells, {
			options: { onStop: 'fail' },
			continueOnFail: true,
		});
		expect(kept[0].json).toMatchObject({ email: 'valid.f1@example.com', credits_used: 1 });
		expect(kept[1].json).toMatchObject({
			email: 'valid.f2@example.com',
			sent: false,
			httpCode: '429',
		});
		expect(String(kept[1].json.error)).toMatch(/allowance/);
	});
});

describe('Email > Verify when the service pauses new work part way', () => {
	it('outputs the answer it got and the rest "not sent" until the Retry-After time', async () => {
		const acct = sb.addAccount({ plan: 'pro', credits: 1_000 });
		const credentials = { apiKey: acct.apiKey, baseUrl: sb.baseUrl };
		const cells = ['valid.p1@example.com', 'valid.p2@example.com', 'valid.p3@example.com'];
		const charged = sb.ledger(acct.apiKey).charged;
		// Two of the three requests, sent at once, meet the pause (2 hours of spec time: longer than the
		// client waits by itself); which two is the network's choice, so the test counts, not names.
		sb.faults.failNext({
			path: '/v1/verify/single',
			status: 503,
			retryAfterSeconds: 7200,
			count: 2,
		});
		const output = await verify(credentials, cells);
		expect(output.map((o) => o.pairedItem)).toEqual(cells.map((_, item) => ({ item })));
		const answered = output.filter((o) => o.json.credits_used === 1);
		expect(answered).toHaveLength(1);
		const notSent = output.filter((o) => o.json.status === 'not_sent');
		expect(notSent).toHaveLength(2);
		for (const item of notSent) {
			expect(item.json).toMatchObject({
				stopped_by: 'paused',
				send_after: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
			});
		}
		expect(sb.ledger(acct.apiKey).charged - charged).toBe(1);
	});
});
