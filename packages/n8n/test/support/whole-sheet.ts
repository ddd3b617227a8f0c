/**
 * The whole-sheet flow (`examples/file-bulk-verify-write-back.json`) in a real n8n, for its end-to-end
 * test and its benchmark: a lead list written as CSV or XLSX, an n8n user folder with the package, the
 * credential and the example imported as shipped (only its Settings node pointed at the file), a
 * headless run, the file read back, and the executions n8n recorded for it in its own database.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions --
 * test code, never packed (files ships dist only): it writes the user's file and reads n8n's database
 * with n8n's own Node.js in a child process */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { categorize } from '@evf/client';
import { resultRow, type Sandbox } from '@evf/sandbox';
import * as runner from '../harness/n8n-runner';
import { nodeFor } from '../harness/ensure-n8n';
import { credential } from './workflows';

export type Lead = Record<string, string>;

export const FLOW_FILE = path.join(
	runner.PACKAGE_DIR,
	'examples',
	'file-bulk-verify-write-back.json',
);
export const FLOW_ID = 'evfExampleFile001';
export const EMAIL_COLUMN = 'Email';
/** The columns the flow adds beside the user's own. */
export const RESULT_COLUMNS = ['Category', 'Group', 'Safe to Send', 'Reason', 'Verification'];

/**
 * A CRM export of `n` leads: mostly distinct addresses with every outcome the sandbox gives (valid,
 * invalid, catch-all, role, disposable, unknown: refunded at the job's end), every 500th row repeating
 * the row before in capitals (a duplicate, charged once), every 1000th a malformed address (never sent),
 * and names with commas and quotes that a CSV must quote.
 */
export function leads(n: number, tag = 'lead'): Lead[] {
	const rows: Lead[] = [];
	for (let i = 0; i < n; i++) {
		let email: string;
		if (i % 1000 === 999) email = `broken${i}@`;
		else if (i % 500 === 250) email = rows[i - 1].Email.toUpperCase();
		else if (i % 97 === 0) email = `info.${tag}${i}@company${i % 89}.com`;
		else if (i % 89 === 0) email = `unknown.${tag}${i}@company${i % 83}.com`;
		else if (i % 53 === 0) email = `catchall.${tag}${i}@bigco${i % 7}.com`;
		else if (i % 61 === 0) email = `temp.${tag}${i}@mailinator.com`;
		else email = `${tag}${i}@company${i % 89}.com`;
		const name = i % 10 === 0 ? `"Lee" ${i}, Jr.` : `Lead ${i}`;
		rows.push({ Name: name, Email: email, Company: `Company ${i % 89}` });
	}
	return rows;
}

/** What a correct write-back holds for each row, worked out from the sandbox's own answers. */
export interface Expected {
	/** Per row: its category and group, `duplicate` when an earlier row has the address, or `skipped`. */
	rows: Array<{
		verification: 'verified' | 'duplicate' | 'skipped';
		category?: string;
		group?: string;
	}>;
	/** Distinct well-formed addresses (lower case): each is charged once. */
	unique: Set<string>;
	/** Distinct addresses per group. */
	groups: Record<string, number>;
	/** Rows per Verification value once every row is done. */
	verifications: Record<string, number>;
}

export function expected(rows: readonly Lead[]): Expected {
	const unique = new Set<string>();
	const groups: Record<string, number> = { safe_to_send: 0, risky: 0, invalid: 0 };
	const out: Expected['rows'] = rows.map((row) => {
		const email = row[EMAIL_COLUMN];
		if (/^broken\d+@$/.test(email)) return { verification: 'skipped' }; // the malformed rows leads() writes
		const key = email.toLowerCase();
		const { category, group } = categorize(resultRow(email).details);
		if (unique.has(key)) return { verification: 'duplicate', category, group };
		unique.add(key);
		groups[group] += 1;
		return { verification: 'verified', category, group };
	});
	const verifications: Record<string, number> = {};
	for (const row of out)
		verifications[row.verification] = (verifications[row.verification] ?? 0) + 1;
	return { rows: out, unique, groups, verifications };
}

/** SheetJS as the n8n install ships it: writes the user's file and reads the flow's output. */
interface SheetJs {
	utils: {
		json_to_sheet(rows: readonly object[]): unknown;
		book_new(): unknown;
		book_append_sheet(book: unknown, sheet: unknown, name: string): void;
		sheet_to_json<T>(sheet: unknown, options: { defval: string; raw: boolean }): T[];
	};
	write(book: unknown, options: { type: 'buffer'; bookType: 'xlsx' }): Buffer;
	read(
		data: Buffer,
		options: { type: 'buffer'; raw: boolean },
	): {
		SheetNames: string[];
		Sheets: Record<string, unknown>;
	};
}

/** SheetJS from that n8n's own install: `xlsx` up to 2.8.x, its fork `@e965/xlsx` in newer versions. */
function sheetJs(version: string): SheetJs {
	const load = createRequire(path.join(runner.n8nHome(version), 'package.json'));
	for (const name of ['xlsx', '@e965/xlsx']) {
		try {
			return load(name) as SheetJs;
		} catch {
			// not in this version
		}
	}
	throw new Error(`n8n ${version} ships neither xlsx nor @e965/xlsx`);
}

function csvCell(value: string): string {
	return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** Writes the leads as the user's file: RFC 4180 CSV, or XLSX with one sheet. */
export function writeLeads(file: string, rows: readonly Lead[], version: string): void {
	if (file.endsWith('.xlsx')) {
		const xlsx = sheetJs(version);
		const book = xlsx.utils.book_new();
		xlsx.utils.book_append_sheet(book, xlsx.utils.json_to_sheet(rows), 'Leads');
		fs.writeFileSync(file, xlsx.write(book, { type: 'buffer', bookType: 'xlsx' }));
		return;
	}
	const header = Object.keys(rows[0]);
	const lines = [
		header.join(','),
		...rows.map((row) => header.map((h) => csvCell(row[h])).join(',')),
	];
	fs.writeFileSync(file, `${lines.join('\r\n')}\r\n`);
}

/** The file as the flow left it: one record per data row, every cell as text. */
export function readBack(file: string, version: string): Lead[] {
	const xlsx = sheetJs(version);
	const book = xlsx.read(fs.readFileSync(file), { type: 'buffer', raw: true });
	return xlsx.utils.sheet_to_json<Lead>(book.Sheets[book.SheetNames[0]], {
		defval: '',
		raw: false,
	});
}

export interface Flow {
	instance: runner.Instance;
	/** The folder n8n may read and write (N8N_RESTRICT_FILE_ACCESS_TO), where the user's file lives. */
	files: string;
	run(): Promise<runner.CliResult>;
	/** The flow's executions as n8n counts them, e.g. { production_success: 1 }. */
	executions(): Record<string, number>;
	remove(): void;
}

/** An n8n user folder with the package from `tarball`, the credential and the example as shipped. */
export async function prepareFlow({
	version,
	sandbox,
	tarball,
	file,
	settings: overrides = {},
	apiKey = sandbox.apiKey,
	submitOptions = {},
}: {
	version: string;
	sandbox: Sandbox;
	tarball: string;
	/** The file's name inside the allowed folder, e.g. leads.csv. */
	file: string;
	/** Other Settings values than the shipped ones, e.g. { emailColumn: 'Mail' }. */
	settings?: Record<string, string | number>;
	/** The API key of another account than the sandbox's own (e.g. one on the Starter plan). */
	apiKey?: string;
	/** Submit's options changed from the shipped ones, e.g. { rememberLists: false }. */
	submitOptions?: Record<string, unknown>;
}): Promise<Flow> {
	const instance = await runner.createInstance({ version });
	const files = path.join(instance.folder, 'n8n-files');
	fs.mkdirSync(files);
	// n8n 2.x reads and writes files only inside N8N_RESTRICT_FILE_ACCESS_TO (default ~/.n8n-files).
	instance.env.N8N_RESTRICT_FILE_ACCESS_TO = files;
	runner.installPackage(instance.folder, tarball);
	await runner.importCredentials(instance, [
		{
			...credential('evfSandboxCred01', {
				apiKey,
				baseUrl: sandbox.baseUrl,
				webhookSecret: sandbox.webhookSecret,
			}),
			name: 'Email Verification (local sandbox)',
		},
	]);
	const flow = JSON.parse(fs.readFileSync(FLOW_FILE, 'utf8')) as {
		nodes: Array<{
			name: string;
			parameters: {
				assignments?: { assignments: Array<{ name: string; value: unknown }> };
				options?: Record<string, unknown>;
			};
		}>;
	};
	const submit = flow.nodes.find((node) => node.name === 'Submit One Job');
	if (!submit?.parameters.options) throw new Error(`${FLOW_FILE} has no Submit One Job node`);
	Object.assign(submit.parameters.options, submitOptions);
	const fields = flow.nodes.find((node) => node.name === 'Settings')?.parameters.assignments
		?.assignments;
	for (const [name, value] of Object.entries({ file: path.join(files, file), ...overrides })) {
		const field = fields?.find((a) => a.name === name);
		if (!field) throw new Error(`${FLOW_FILE} has no Settings node with a "${name}" field`);
		field.value = value;
	}
	await runner.importWorkflows(instance, [flow]);
	return {
		instance,
		files,
		run: () => runner.runCli(instance, ['execute', `--id=${FLOW_ID}`], { timeoutMs: 15 * 60_000 }),
		executions: () => executionsOf(instance, FLOW_ID),
		remove: () => runner.removeInstance(instance),
	};
}

/**
 * Runs one SQL query on an instance's n8n SQLite database with the sqlite3 module n8n itself runs on,
 * in the Node.js of that n8n version.
 */
function queryN8n<T>(instance: runner.Instance, sql: string, params: unknown[]): T[] {
	const database = path.join(runner.n8nFolder(instance.folder), 'database.sqlite');
	const sqlite = path.join(runner.n8nHome(instance.version), 'node_modules', 'sqlite3');
	const script = `
		const sqlite3 = require(${JSON.stringify(sqlite)});
		const [file, sql, params] = process.argv.slice(1);
		const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY);
		db.all(sql, JSON.parse(params), (error, rows) => {
			if (error) { console.error(error.message); process.exit(1); }
			console.log(JSON.stringify(rows));
			db.close();
		});`;
	const result = spawnSync(
		nodeFor(instance.version),
		['-e', script, database, sql, JSON.stringify(params)],
		{ encoding: 'utf8' },
	);
	if (result.status !== 0) throw new Error(`reading n8n's database failed: ${result.stderr}`);
	return JSON.parse(result.stdout) as T[];
}

/**
 * A workflow's executions as n8n counts them itself (its `workflow_statistics`: production_success,
 * production_error, manual_success, ...), kept whether or not a run's data is saved. Every mode but a
 * manual run counts as production, `n8n execute` included.
 */
export function executionsOf(
	instance: runner.Instance,
	workflowId: string,
): Record<string, number> {
	const rows = queryN8n<{ name: string; count: number }>(
		instance,
		'SELECT name, count FROM workflow_statistics WHERE workflowId = ?',
		[workflowId],
	);
	return Object.fromEntries(rows.map((row) => [row.name, Number(row.count)]));
}

/** Job IDs the flow read, in the order it first asked for them (the sandbox logs paths, not bodies). */
export function jobsAsked(sandbox: Sandbox, from = 0): string[] {
	const ids: string[] = [];
	for (const entry of sandbox.requests.slice(from)) {
		const match = /^\/v1\/jobs\/([^/]+)$/.exec(entry.path);
		if (match && !ids.includes(match[1])) ids.push(match[1]);
	}
	return ids;
}

export function submissions(sandbox: Sandbox, from = 0): number {
	return sandbox.requests
		.slice(from)
		.filter((entry) => entry.method === 'POST' && entry.path === '/v1/verify/bulk').length;
}
