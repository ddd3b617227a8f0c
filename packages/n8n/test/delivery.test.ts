/**
 * The one delivery check (helpers/delivery.ts) through both of its callers: the On Bulk Job Finished
 * trigger and Wait for Completion's resume URL. Each must read the bytes the service signed (also when
 * n8n did not keep them, so the node reads them itself), accept a signed delivery, and answer anything
 * else 401 with the same words before any request to the service. The clock is fixed, never read.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-hardcoded-secrets -- test code, never packed: files ships dist only; the key and secret are made-up ones */
import nock from 'nock';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { buildWebhookDelivery, type WebhookBody } from '@evf/client';
import { replyWithFixture, useNock } from '../../../test/support/nock';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { EmailVerificationTrigger } from '../nodes/EmailVerificationTrigger/EmailVerificationTrigger.node';
import { rawBodyOf, verifiedDelivery } from '../nodes/EmailVerification/helpers/delivery';
import { webhookContext, type IncomingDelivery, type TestCredentials } from './support/context';

const ORIGIN = 'https://api.evf.test';
const SECRET = 'whsec_n8n_unit_delivery_51f0';
const credentials: TestCredentials = {
	apiKey: 'evf_n8n_unit_key_d31a77',
	baseUrl: `${ORIGIN}/api`,
	webhookSecret: SECRET,
};
const JOB = 'job_7f3c2a9e41b84d05';
const NOW_S = 1_800_000_000;

useNock();
beforeEach(() => {
	jest.spyOn(Date, 'now').mockReturnValue(NOW_S * 1000);
});
afterEach(() => {
	jest.restoreAllMocks();
});

const body: WebhookBody = {
	event: 'job.completed',
	job_id: JOB,
	status: 'completed',
	total_emails: 8,
	processed_emails: 8,
	verdicts: {} as WebhookBody['verdicts'],
	created_at: '2027-01-15T08:00:00Z',
	completed_at: '2027-01-15T08:00:30Z',
	results_url: `${ORIGIN}/api/v1/jobs/${JOB}/results`,
};

function signed(secret = SECRET, timestamp = NOW_S): IncomingDelivery {
	return buildWebhookDelivery({ body, secret, timestamp });
}

/** n8n did not keep the raw body (the trigger asks it not to parse): only readRawBody gives it. */
function withoutKeptBody(context: IWebhookFunctions, delivery: IncomingDelivery): void {
	const request = context.getRequestObject() as unknown as IDataObject;
	delete request.rawBody;
	request.readRawBody = async () => {
		request.rawBody = Buffer.from(delivery.rawBody, 'utf8');
	};
}

const BAD_DELIVERIES: [string, () => IncomingDelivery, string][] = [
	['a wrong secret', () => signed('whsec_someone_else_0000'), 'signature_mismatch'],
	['a timestamp 10 minutes old', () => signed(SECRET, NOW_S - 600), 'timestamp_too_old'],
	[
		'a body changed after signing',
		() => {
			const d = signed();
			return { ...d, rawBody: d.rawBody.replace('"completed"', '"failed"') };
		},
		'signature_mismatch',
	],
	['no signature', () => ({ rawBody: signed().rawBody, headers: {} }), 'missing_signature'],
];

describe('verifiedDelivery, the helper itself', () => {
	it('reads the kept raw body, or reads it when n8n did not keep it', async () => {
		const delivery = signed();
		const kept = webhookContext({ params: {}, credentials, delivery });
		expect(String(await rawBodyOf(kept.context.getRequestObject()))).toBe(delivery.rawBody);
		const read = webhookContext({ params: {}, credentials, delivery });
		withoutKeptBody(read.context, delivery);
		expect(String(await rawBodyOf(read.context.getRequestObject()))).toBe(delivery.rawBody);
	});

	it('gives the verified delivery and answers nothing itself', async () => {
		const harness = webhookContext({ params: {}, credentials, delivery: signed() });
		const verified = await verifiedDelivery(harness.context);
		expect(verified).toMatchObject({ jobId: JOB, event: 'job.completed', timestamp: NOW_S });
		expect(harness.answered).toEqual({});
	});

	it('with no signing secret in the credential, refuses with 401 no_secret', async () => {
		const harness = webhookContext({
			params: {},
			credentials: { ...credentials, webhookSecret: undefined },
			delivery: signed(),
		});
		expect(await verifiedDelivery(harness.context)).toBeUndefined();
		expect(harness.answered).toEqual({
			status: 401,
			body: { error: 'invalid_signature', code: 'no_secret' },
		});
	});
});

type Caller = [
	string,
	(
		delivery: IncomingDelivery,
		keptBody: boolean,
	) => Promise<{
		result: IWebhookResponseData;
		answered: { status?: number; body?: unknown };
		sent: number;
	}>,
];

const trigger = new EmailVerificationTrigger();
const action = new EmailVerification();

const CALLERS: Caller[] = [
	[
		'the trigger (On Bulk Job Finished)',
		async (delivery, keptBody) => {
			const harness = webhookContext({ params: { output: 'job' }, credentials, delivery });
			if (!keptBody) withoutKeptBody(harness.context, delivery);
			const result = await trigger.webhook.call(harness.context);
			return { result, answered: harness.answered, sent: harness.sent.length };
		},
	],
	[
		"Wait for Completion's resume URL",
		async (delivery, keptBody) => {
			const harness = webhookContext({
				params: { waitOutput: 'job' },
				credentials,
				delivery,
				nodeType: 'n8n-nodes-evf.emailVerification',
			});
			if (!keptBody) withoutKeptBody(harness.context, delivery);
			const result = await action.webhook.call(harness.context);
			return { result, answered: harness.answered, sent: harness.sent.length };
		},
	],
];

describe.each(CALLERS)('%s', (_name, receive) => {
	it.each([
		['n8n kept the raw body', true],
		['n8n did not keep the raw body', false],
	])('a signed delivery starts the workflow with the job (%s)', async (_case, keptBody) => {
		// The resume reads the job with the key; the trigger outputs the delivery's summary as it is.
		if (_name.includes('resume'))
			replyWithFixture(nock(`${ORIGIN}/api`).get(`/v1/jobs/${JOB}`), 'job.completed.200');
		const { result, answered } = await receive(signed(), keptBody);
		expect(answered.status ?? 200).toBe(200);
		const items = result.workflowData?.[0] ?? [];
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({ job_id: JOB });
	});

	it.each(BAD_DELIVERIES)(
		'%s: 401 with the failure code, nothing started, nothing sent',
		async (_case, make, code) => {
			const { result, answered, sent } = await receive(make(), false);
			expect(answered).toEqual({ status: 401, body: { error: 'invalid_signature', code } });
			expect(result).toEqual({ noWebhookResponse: true });
			expect(sent).toBe(0);
		},
	);
});
