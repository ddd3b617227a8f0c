/**
 * The whole-sheet flow a user imports (`examples/file-bulk-verify-write-back.json`), as shipped, in real
 * n8n with the package installed from its tarball, against the sandbox on loopback, for each n8n version
 * of the run:
 * - a 50,000-row CSV export becomes one bulk job in one n8n execution (as n8n counts them in its database), and
 *   every row comes back in the same file beside its own columns: each distinct address charged once
 *   and answered once, duplicates with their first copy's answer, malformed rows never sent, every
 *   group's count equal to the job's;
 * - a list larger than a day of the Starter plan (the account in the spec's shape) sends what the
 *   allowance takes, marks the rest "Not sent yet" with the time, and the next day's run sends only
 *   those: each address charged once;
 * - an XLSX list whose job fails part way gets the rows verified so far written and the rest marked
 *   not_verified; the next run sends only those open rows (nothing verified is sent twice), and a run
 *   on a finished file sends nothing at all;
 * - cells in the forms people paste (`Name <address>`, `mailto:`) are verified once and answered in their
 *   own rows, so a rerun does not send them again; a run whose open rows are all malformed marks them
 *   skipped, sends nothing and ends cleanly.
 * Run by `npm run test:e2e` in packages/n8n (the root jest config leaves the real-n8n *.e2e.test.ts out).
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { categorize, verifyAgainFields } from '@evf/client';
import { createClient } from '@evf/client/node';
import * as runner from './harness/n8n-runner';
import {
	RESULT_COLUMNS,
	expected,
	jobsAsked,
	leads,
	prepareFlow,
	readBack,
	submissions,
	writeLeads,
	type Flow,
	type Lead,
} from './support/whole-sheet';

jest.setTimeout(30 * 60_000);

const ROWS = 50_000;

let tarball: string;
beforeAll(() => {
	tarball = runner.packTarball();
});
afterAll(() => runner.discardTarball());

function ok(result: runner.CliResult): void {
	if (result.code !== 0) {
		throw new Error(
			`n8n execute exited ${result.code}:\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`,
		);
	}
}

function tally(rows: readonly Lead[], column: string): Record<string, number> {
	const out: Record<string, number> = {};
	for (const row of rows) out[row[column]] = (out[row[column]] ?? 0) + 1;
	return out;
}

describe.each(runner.matrixVersions())('n8n %s: the whole-sheet flow as shipped', (version) => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		await runner.ensureN8n(version);
		sandbox = await startSandbox({ port: 0, timeScale: 0.001, rowsPerSecond: 200_000 });
	});
	afterAll(async () => {
		await sandbox?.close();
	});

	/** A run on a file with no open row: nothing is sent and the file stays as it is. */
	async function expectRunSendsNothing(flow: Flow, file: string): Promise<void> {
		const before = readBack(file, version);
		const from = sandbox.requests.length;
		ok(await flow.run());
		expect(sandbox.requests.slice(from)).toEqual([]);
		expect(readBack(file, version)).toEqual(before);
	}

	/** The flow as shipped (Settings changed as in prepareFlow) on `file`, written with `rows`. */
	async function flowOn(
		file: string,
		rows: Lead[],
		settings?: Record<string, string | number>,
	): Promise<Flow> {
		const flow = await prepareFlow({ version, sandbox, tarball, file, settings });
		writeLeads(`${flow.files}/${file}`, rows, version);
		return flow;
	}

	/** The addresses a job holds, lower-cased, read back from the service. */
	async function addressesOf(jobId: string): Promise<Set<string>> {
		const client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
		const sent = new Set<string>();
		for await (const row of client.results(jobId)) sent.add(row.email.toLowerCase());
		return sent;
	}

	describe(`a ${ROWS.toLocaleString('en')}-row CSV export`, () => {
		let flow: Flow;
		const rows = leads(ROWS);
		const want = expected(rows);
		let back: Lead[];
		const before = { requests: 0, charged: 0, refunded: 0 };

		beforeAll(async () => {
			flow = await flowOn('leads.csv', rows);
			before.requests = sandbox.requests.length;
			Object.assign(before, {
				charged: sandbox.ledger().charged,
				refunded: sandbox.ledger().refunded,
			});
			ok(await flow.run());
			back = readBack(`${flow.files}/leads.csv`, version);
		});
		afterAll(() => flow?.remove());

		it('ran as one execution that submitted one job', () => {
			expect(flow.executions()).toEqual({ production_success: 1 });
			expect(submissions(sandbox, before.requests)).toBe(1);
		});

		it("wrote every row back in its place, beside its own columns, with the flow's five columns and when to verify again", () => {
			expect(back).toHaveLength(ROWS);
			// The five result columns, then the client's verify-again fields (verifyAgainFields) Get Results
			// for Rows puts beside each answered row.
			expect(Object.keys(back[0])).toEqual([
				'Name',
				'Email',
				'Company',
				...RESULT_COLUMNS,
				...Object.keys(verifyAgainFields(undefined, 'valid')),
			]);
			const moved = back.filter(
				(row, i) =>
					row.Name !== rows[i].Name ||
					row.Email !== rows[i].Email ||
					row.Company !== rows[i].Company,
			);
			expect(moved).toEqual([]);
		});

		it('charged each distinct address once and answered every row with the sandbox answer for it', () => {
			const ledger = sandbox.ledger();
			expect(ledger.charged - before.charged).toBe(want.unique.size);
			const wrong = back
				.map((row, i) => ({ row, want: want.rows[i], line: i + 2 }))
				.filter(
					({ row, want: w }) =>
						row.Verification !== w.verification ||
						(w.verification === 'skipped'
							? !row.Reason.startsWith('Not sent (not charged): malformed address')
							: row.Category !== w.category ||
								row.Group !== w.group ||
								row['Safe to Send'] !== (w.group === 'safe_to_send' ? 'TRUE' : 'FALSE')),
				);
			expect(wrong.slice(0, 5)).toEqual([]);
			// Every paid address is answered by exactly one 'verified' row: none lost, none twice.
			const verified = back.filter((row) => row.Verification === 'verified');
			expect(verified).toHaveLength(want.unique.size);
			expect(new Set(verified.map((row) => row.Email.toLowerCase()))).toEqual(want.unique);
		});

		it("holds each group's rows exactly as the job counted them, and the refund of unknowns", async () => {
			const [jobId] = jobsAsked(sandbox, before.requests);
			const job = sandbox.job(jobId)!;
			expect(job.status).toBe('completed');
			const verified = back.filter((row) => row.Verification === 'verified');
			expect(tally(verified, 'Group')).toEqual(job.buckets);
			expect(tally(verified, 'Group')).toEqual(want.groups);
			const unknowns = verified.filter((row) => row.Category.startsWith('Unknown')).length;
			expect(unknowns).toBeGreaterThan(0);
			expect(sandbox.ledger().refunded - before.refunded).toBe(unknowns);
			// Duplicates carry their first copy's answer; malformed rows were never sent.
			expect(tally(back, 'Verification')).toEqual(want.verifications);
		});
	});

	describe('a list larger than a day of Starter (10,000), run on two days', () => {
		const ROWS_STARTER = 12_000;
		const DAY_MS = 24 * 3600_000;
		let flow: Flow;
		const rows = leads(ROWS_STARTER, 's');
		const want = expected(rows);
		const file = () => `${flow.files}/leads.csv`;
		let starter: { apiKey: string; accountId: string };

		beforeAll(async () => {
			starter = sandbox.addAccount({ plan: 'starter', credits: 100_000 });
			// The service's clock is moved a day below, n8n's is not: the node's memory of the list reads
			// n8n's clock and would hold the rest back. Here the sheet's own Verification column carries
			// the list over (the memory is measured in submit-over-days.sandbox.test.ts).
			flow = await prepareFlow({
				version,
				sandbox,
				tarball,
				file: 'leads.csv',
				apiKey: starter.apiKey,
				submitOptions: { rememberLists: false },
			});
			writeLeads(file(), rows, version);
		});
		afterAll(() => flow?.remove());

		it('sends what the allowance takes, marks the rest "Not sent yet" with the time, and the next day sends only those: each address charged once', async () => {
			const client = createClient({ apiKey: starter.apiKey, baseUrl: sandbox.baseUrl });
			const sent: string[] = [];
			const from = sandbox.requests.length;
			ok(await flow.run());
			expect(submissions(sandbox, from)).toBe(1);
			const [firstJob] = jobsAsked(sandbox, from);
			for await (const row of client.results(firstJob)) sent.push(row.email.toLowerCase());
			expect(sent).toHaveLength(10_000);
			const day1 = readBack(file(), version);
			const waiting = day1.filter((row) => row.Reason.startsWith('Not sent yet'));
			expect(waiting.length).toBeGreaterThan(0);
			for (const row of waiting) {
				expect(row.Verification).toBe('not_verified');
				expect(row.Reason).toMatch(/runs again after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d.\d{3}Z$/);
			}
			expect(sandbox.ledger(starter.accountId).charged).toBe(10_000);

			sandbox.advanceTime(DAY_MS + 60_000);
			const next = sandbox.requests.length;
			ok(await flow.run());
			expect(submissions(sandbox, next)).toBe(1);
			const [secondJob] = jobsAsked(sandbox, next);
			for await (const row of client.results(secondJob)) sent.push(row.email.toLowerCase());
			expect(sent).toHaveLength(want.unique.size);
			expect(new Set(sent)).toEqual(want.unique);
			expect(sandbox.ledger(starter.accountId).charged).toBe(want.unique.size);
			const back = readBack(file(), version);
			expect(tally(back, 'Verification')).toEqual(want.verifications);
			expect(back.filter((row) => row.Reason.startsWith('Not sent yet'))).toEqual([]);
		});
	});

	describe('cells in pasted forms (Name <address>, mailto:), and a last run whose open rows are all malformed', () => {
		// The pasted forms and their duplicate go in the first job; the two malformed rows are added to
		// the file after it, so they are all the second run has open.
		const rows: Lead[] = [
			{ Name: 'Ada', Email: 'Ada Lovelace <ada.p@company1.com>', Company: 'One' },
			{ Name: 'Bob', Email: 'mailto:bob.p@company2.com', Company: 'Two' },
			{ Name: 'Lee', Email: '"Lee, Jr." <lee.p@company3.com>', Company: 'Three' },
			{ Name: 'Bob again', Email: 'BOB <BOB.P@company2.com>', Company: 'Two' },
		];
		const added: Lead[] = [
			{ Name: 'Broken', Email: 'broken.p@', Company: 'Four' },
			{ Name: 'Spaced', Email: 'not an address', Company: 'Five' },
		];
		let flow: Flow;
		const file = () => `${flow.files}/leads.csv`;
		let firstRun: { from: number; charged: number };
		let first: Lead[];

		beforeAll(async () => {
			flow = await flowOn('leads.csv', rows);
			firstRun = { from: sandbox.requests.length, charged: sandbox.ledger().charged };
			ok(await flow.run());
			first = readBack(file(), version);
		});
		afterAll(() => flow?.remove());

		it('verifies the address inside each pasted cell once and writes its answer back to that row', async () => {
			expect(submissions(sandbox, firstRun.from)).toBe(1);
			const [job] = jobsAsked(sandbox, firstRun.from);
			const client = createClient({ apiKey: sandbox.apiKey, baseUrl: sandbox.baseUrl });
			const answers = new Map<string, string>();
			for await (const row of client.results(job))
				answers.set(row.email.toLowerCase(), categorize(row.details).category);
			expect([...answers.keys()].sort()).toEqual([
				'ada.p@company1.com',
				'bob.p@company2.com',
				'lee.p@company3.com',
			]);
			expect(sandbox.ledger().charged - firstRun.charged).toBe(3);
			expect(first.map((row) => row.Email)).toEqual(rows.map((row) => row.Email));
			expect(first.map((row) => row.Verification)).toEqual([
				'verified',
				'verified',
				'verified',
				'duplicate',
			]);
			const sentFor = [
				'ada.p@company1.com',
				'bob.p@company2.com',
				'lee.p@company3.com',
				'bob.p@company2.com',
			];
			sentFor.forEach((address, i) => expect(first[i].Category).toBe(answers.get(address)));
		});

		it('the next run has only malformed rows open: it marks them skipped, sends and charges nothing, and ends cleanly', async () => {
			const blank = { Category: '', Group: '', 'Safe to Send': '', Reason: '', Verification: '' };
			writeLeads(file(), [...first, ...added.map((row) => ({ ...row, ...blank }))], version);
			const from = sandbox.requests.length;
			const charged = sandbox.ledger().charged;
			ok(await flow.run());
			expect(sandbox.requests.slice(from)).toEqual([]);
			expect(sandbox.ledger().charged).toBe(charged);
			const back = readBack(file(), version);
			expect(back.slice(0, 4)).toEqual(first.slice(0, 4));
			for (const row of back.slice(4)) {
				expect(row).toMatchObject({
					Category: '',
					Group: '',
					'Safe to Send': '',
					Verification: 'skipped',
				});
				expect(row.Reason).toMatch(/^Not sent \(not charged\): malformed address/);
			}
		});

		it('a run after that sends nothing and leaves the file as it is', async () => {
			await expectRunSendsNothing(flow, file());
			expect(flow.executions()).toEqual({ production_success: 3 });
		});
	});

	describe('an XLSX list whose job fails part way, then run again', () => {
		const ROWS_SMALL = 3_000;
		const FAIL_AFTER = 1_200;
		let flow: Flow;
		const rows = leads(ROWS_SMALL, 'x');
		const want = expected(rows);
		const file = () => `${flow.files}/leads.xlsx`;
		let first: Lead[];
		let firstJob: string;
		let openAfterFirst: Set<string>;

		beforeAll(async () => {
			flow = await flowOn('leads.xlsx', rows);
			const from = sandbox.requests.length;
			sandbox.faults.failJob(undefined, {
				afterRows: FAIL_AFTER,
				error: 'mail servers unreachable',
			});
			ok(await flow.run());
			first = readBack(file(), version);
			[firstJob] = jobsAsked(sandbox, from);
			openAfterFirst = new Set(
				first
					.filter((row) => row.Verification === 'not_verified')
					.map((r) => r.Email.toLowerCase()),
			);
		});
		afterAll(() => flow?.remove());

		it('writes the rows verified before the failure and marks every other sent row not_verified, with the reason', () => {
			expect(sandbox.job(firstJob)).toMatchObject({ status: 'failed', processed: FAIL_AFTER });
			expect(first).toHaveLength(ROWS_SMALL);
			const verified = first.filter((row) => row.Verification === 'verified');
			expect(verified).toHaveLength(FAIL_AFTER);
			const open = first.filter((row) => row.Verification === 'not_verified');
			expect(open.length).toBeGreaterThan(0);
			for (const row of open) {
				expect(row).toMatchObject({ Category: '', Group: '', 'Safe to Send': '' });
				expect(row.Reason).toContain(`job ${firstJob} failed: mail servers unreachable`);
			}
			// Every row is accounted for: answered, a duplicate, skipped as malformed, or open.
			const counted = tally(first, 'Verification');
			expect(
				(counted.verified ?? 0) +
					(counted.duplicate ?? 0) +
					(counted.skipped ?? 0) +
					(counted.not_verified ?? 0),
			).toBe(ROWS_SMALL);
			expect(counted.skipped).toBe(want.verifications.skipped);
		});

		it('the next run sends only the open rows, none already verified, and completes the file', async () => {
			const from = sandbox.requests.length;
			ok(await flow.run());
			expect(submissions(sandbox, from)).toBe(1);
			const [secondJob] = jobsAsked(sandbox, from);
			expect(await addressesOf(secondJob)).toEqual(openAfterFirst);
			const again = readBack(file(), version);
			// The first run's answers stay as they were; every open row now has its own.
			expect(again.filter((_, i) => first[i].Verification !== 'not_verified')).toEqual(
				first.filter((row) => row.Verification !== 'not_verified'),
			);
			expect(again.filter((row) => row.Verification === 'not_verified')).toEqual([]);
			expect(tally(again, 'Verification')).toEqual(want.verifications);
			const wrong = again.filter(
				(row, i) =>
					want.rows[i].verification !== 'skipped' && row.Category !== want.rows[i].category,
			);
			expect(wrong.slice(0, 5)).toEqual([]);
		});

		it('a run on a finished file sends nothing and leaves the file as it is', async () => {
			await expectRunSendsNothing(flow, file());
			expect(flow.executions()).toEqual({ production_success: 3 });
		});
	});
});
