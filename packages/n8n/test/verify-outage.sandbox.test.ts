/**
 * Email > Verify during an outage: a 500, a gateway's 502 or a 503 with no wait on the single check is an
 * error of the node, never an item with an "unknown" verdict, and the check is not sent twice (it may
 * have used a credit). The rule is the client's: only the service's answer is a verdict.
 */
import type { IDataObject } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { executeContext } from './support/context';

const node = new EmailVerification();
let sb: Sandbox;

beforeAll(async () => {
	sb = await startSandbox({ port: 0, timeScale: 0.01 });
});
afterAll(async () => {
	await sb.close();
});

it.each([
	[500, 'service' as const],
	[502, 'gateway' as const],
	[503, 'gateway' as const],
])(
	'a %i on the single check fails the node, with no verdict and one request',
	async (status, from) => {
		const acct = sb.addAccount({ plan: 'pro', credits: 1_000 });
		sb.faults.failNext({ path: '/v1/verify/single', method: 'POST', status, when: 'after', from });
		const before = sb.requests.filter((r) => r.path === '/v1/verify/single').length;
		const harness = executeContext({
			params: (name) =>
				({
					resource: 'email',
					operation: 'verify',
					email: 'valid.outage@acme-corp.com',
					options: {},
				})[name],
			items: [{ json: { email: 'valid.outage@acme-corp.com' } as IDataObject }],
			credentials: { apiKey: acct.apiKey, baseUrl: sb.baseUrl },
		});
		await expect(node.execute.call(harness.context)).rejects.toThrow(
			/may have been verified and charged/,
		);
		expect(sb.requests.filter((r) => r.path === '/v1/verify/single').length - before).toBe(1);
	},
);
