/**
 * Pace against a slow service, proven by counting and by the node's own clock, never by the machine's
 * speed: the poll trigger delivers every finished job once however many finished between two polls, and
 * each poll ends within n8n's shortest poll interval (one minute) at 0, 5 and 9 s per answer; Verify
 * keeps five requests in flight, so 20 items at 5 s per answer take four rounds (20 s), not 100 s.
 * "s per answer" moves the node's clock (Date.now) on by that much for each answer it gets.
 */
import type { IDataObject, IPollFunctions, IExecuteFunctions } from 'n8n-workflow';
import { createClient } from '@evf/client/node';
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { EmailVerification } from '../nodes/EmailVerification/EmailVerification.node';
import { VERIFY_CONCURRENCY } from '../nodes/EmailVerification/actions/email/verify.operation';
import {
	EmailVerificationPollTrigger,
	POLL_BUDGET_MS,
} from '../nodes/EmailVerificationPollTrigger/EmailVerificationPollTrigger.node';
import { executeContext, pollContext, type TestCredentials } from './support/context';
import { waitFor } from './support/timing';

/** n8n's shortest poll interval: Poll Times > Every Minute (n8n-workflow's node-helpers). */
const SHORTEST_POLL_MS = 60_000;
const PER_ANSWER_S = [0, 5, 9];

let sandbox: Sandbox;
let offset = 0;
const realNow = Date.now.bind(Date);
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 200_000 });
	jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
});
afterAll(async () => {
	jest.restoreAllMocks();
	await sandbox.close();
});

interface Meter {
	requests: number;
	maxInFlight: number;
}

/** Wraps a context's HTTP helper: counts requests and overlap, and moves the node's clock per answer. */
function meter(context: IPollFunctions | IExecuteFunctions, perAnswerMs: number): Meter {
	const m: Meter = { requests: 0, maxInFlight: 0 };
	let inFlight = 0;
	const helpers = context.helpers as unknown as IDataObject;
	const send = helpers.httpRequestWithAuthentication as (...args: unknown[]) => Promise<unknown>;
	helpers.httpRequestWithAuthentication = async function (this: unknown, ...args: unknown[]) {
		m.requests++;
		m.maxInFlight = Math.max(m.maxInFlight, ++inFlight);
		try {
			return await send.apply(this, args);
		} finally {
			inFlight--;
			offset += perAnswerMs;
		}
	};
	return m;
}

describe.each([121, 401])('%i jobs finish between two polls', (count) => {
	const trigger = new EmailVerificationPollTrigger();
	let credentials: TestCredentials;
	let learned: IDataObject;
	let created: string[];

	beforeAll(async () => {
		const acct = sandbox.addAccount({ plan: 'pro', credits: 100_000 });
		credentials = { apiKey: acct.apiKey, baseUrl: sandbox.baseUrl };
		// The trigger was activated before the jobs were made: its first poll learns an empty list.
		learned = {};
		expect(
			await trigger.poll.call(
				pollContext({ params: {}, credentials, staticData: learned }).context,
			),
		).toBeNull();
		const client = createClient(credentials);
		created = [];
		for (let i = 0; i < count; i++) {
			created.push(
				(await client.submitBulk({ emails: [`valid.j${i}@poll${count}.example.com`] })).job_id,
			);
		}
		await waitFor(() => created.every((id) => sandbox.job(id)?.terminal === true), {
			what: `${count} jobs finished`,
			timeoutMs: 60_000,
		});
	}, 120_000);

	it.each(PER_ANSWER_S)(
		'at %i s per answer: each job delivered once, the poll within a minute',
		async (seconds) => {
			const staticData = structuredClone(learned);
			const harness = pollContext({ params: {}, credentials, staticData });
			const m = meter(harness.context, seconds * 1000);
			const out = await trigger.poll.call(harness.context);
			const delivered = (out?.[0] ?? []).map((item) => String(item.json.job_id));
			expect(new Set(delivered).size).toBe(delivered.length);
			expect(delivered.sort()).toEqual([...created].sort());
			// The list items' own fields are delivered: one request per page of 100, none per job.
			expect(m.requests).toBe(Math.ceil((count + 1) / 100));
			expect(out?.[0][0].json).toMatchObject({ status: 'completed', total_emails: 1 });
			// Each answer takes `seconds` on the node's clock: the reads fit the budget, the budget the interval.
			expect(m.requests * seconds * 1000).toBeLessThanOrEqual(POLL_BUDGET_MS);
			expect(POLL_BUDGET_MS + seconds * 1000).toBeLessThan(SHORTEST_POLL_MS);
			// The next poll delivers nothing again.
			const again = await trigger.poll.call(
				pollContext({ params: {}, credentials, staticData }).context,
			);
			expect(again).toBeNull();
		},
	);
});

describe('401 jobs at 20 s per answer: polls cut short by their budget go on where they stopped', () => {
	it('every job, and those made between the polls, delivered once over the polls', async () => {
		const trigger = new EmailVerificationPollTrigger();
		const acct = sandbox.addAccount({ plan: 'pro', credits: 100_000 });
		const credentials = { apiKey: acct.apiKey, baseUrl: sandbox.baseUrl };
		const staticData: IDataObject = {};
		expect(
			await trigger.poll.call(pollContext({ params: {}, credentials, staticData }).context),
		).toBeNull();
		const client = createClient(credentials);
		const made: string[] = [];
		const make = async (n: number, tag: string) => {
			for (let i = 0; i < n; i++) {
				made.push(
					(await client.submitBulk({ emails: [`valid.${tag}${i}@sweep.example.com`] })).job_id,
				);
			}
			await waitFor(() => made.every((id) => sandbox.job(id)?.terminal === true), {
				what: 'jobs finished',
				timeoutMs: 60_000,
			});
		};
		await make(401, 'a');
		const delivered: string[] = [];
		const pagesPerPoll: number[] = [];
		for (let poll = 0; poll < 6; poll++) {
			const harness = pollContext({ params: {}, credentials, staticData });
			const m = meter(harness.context, 20_000);
			const out = await trigger.poll.call(harness.context);
			pagesPerPoll.push(m.requests);
			for (const item of out?.[0] ?? []) delivered.push(String(item.json.job_id));
			// New jobs finish between the first two polls: above the point where the sweep started.
			if (poll === 0) await make(30, 'b');
		}
		// 50 s of budget at 20 s per answer: three reads a poll, each within the one-minute interval.
		expect(Math.max(...pagesPerPoll)).toBe(3);
		expect(pagesPerPoll[0]).toBe(3);
		expect(new Set(delivered).size).toBe(delivered.length);
		expect(delivered.sort()).toEqual([...made].sort());
	}, 120_000);
});

describe('Email > Verify keeps pace with a slow service', () => {
	it.each(PER_ANSWER_S)(
		'20 items at %i s per answer: five in flight, in order, four rounds',
		async (seconds) => {
			const acct = sandbox.addAccount({ plan: 'pro', credits: 1_000 });
			const credentials = { apiKey: acct.apiKey, baseUrl: sandbox.baseUrl };
			const cells = Array.from({ length: 20 }, (_, i) => `valid.pace${i}@example.com`);
			const harness = executeContext({
				params: (name, i) =>
					({ resource: 'email', operation: 'verify', email: cells[i], options: {} })[name],
				items: cells.map((email) => ({ json: { email } })),
				credentials,
			});
			const m = meter(harness.context, 0);
			const [out] = await new EmailVerification().execute.call(harness.context);
			expect(out.map((o) => [o.pairedItem, o.json.email])).toEqual(
				cells.map((email, item) => [{ item }, email]),
			);
			expect(m.requests).toBe(cells.length);
			// Overlap, not wall time: every round holds VERIFY_CONCURRENCY requests at once.
			expect(m.maxInFlight).toBe(VERIFY_CONCURRENCY);
			const rounds = Math.ceil(cells.length / m.maxInFlight);
			expect(rounds).toBe(4);
			// At 5 s per answer: 20 s, under the 30 s asked (one at a time took 100 s); at 9 s: 36 s, not 180.
			if (seconds === 5) expect(rounds * seconds).toBeLessThan(30);
		},
	);
});
