/**
 * Bulk Job > Submit reads the balance first (free) and, when it cannot cover the list, says how many
 * credits are missing before anything is charged: by default it fails and sends nothing; with "Send What
 * the Balance Covers" it sends that many and keeps the rest unsent for a run after a top-up.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { executeContext } from './support/context';

const node = new EmailVerification();
let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 200_000 });
});
afterAll(async () => {
	await sandbox.close();
});

const rows: INodeExecutionData[] = Array.from({ length: 5 }, (_, i) => ({
	json: { Email: `valid.short${i}@example.com` },
}));
const params = (options: IDataObject) => ({
	resource: 'bulkJob',
	operation: 'submit',
	emailSource: 'field',
	emailField: 'Email',
	waitForCompletion: false,
	options,
});
const posts = () =>
	sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/v1/verify/bulk').length;

async function run(apiKey: string, options: IDataObject, staticData: IDataObject) {
	const harness = executeContext({
		params: params(options),
		items: rows,
		credentials: { apiKey, baseUrl: sandbox.baseUrl },
		staticData,
		mode: 'trigger',
	});
	const [out] = await node.execute.call(harness.context);
	return out.map((item) => item.json);
}

test('a list larger than the balance stops before any charge, saying how many credits are missing', async () => {
	const poor = sandbox.addAccount({ id: 'acct_short', plan: 'pro', credits: 3 });
	const before = posts();
	await expect(run(poor.apiKey, {}, {})).rejects.toThrow(
		'The list has 5 addresses and 3 credits are left: 2 credits are missing. Nothing was sent and nothing was charged.',
	);
	expect(posts()).toBe(before);
	expect(sandbox.ledger(poor.accountId)).toMatchObject({ credits: 3, charged: 0 });
});

test('Send What the Balance Covers sends 3 of 5 and keeps 2 unsent for the run after a top-up', async () => {
	const poor = sandbox.addAccount({ id: 'acct_covers', plan: 'pro', credits: 3 });
	const staticData: IDataObject = {};
	const [job] = await run(poor.apiKey, { onShortCredit: 'sendWhatFits' }, staticData);
	expect(job).toMatchObject({ credits_used_total: 3 });
	expect(job.unsent).toHaveLength(2);
	expect(String(job.credit_note)).toMatch(/2 credits are missing\. Sending the first 3/);
	expect(sandbox.ledger(poor.accountId)).toMatchObject({ credits: 0, charged: 3 });
	// No credits left: the next run sends nothing and charges nothing.
	const before = posts();
	await expect(run(poor.apiKey, { onShortCredit: 'sendWhatFits' }, staticData)).rejects.toThrow(
		/The list has 2 addresses and 0 credits are left: 2 credits are missing/,
	);
	expect(posts()).toBe(before);
});
