/**
 * The example workflows as a user imports them. Real n8n runs the file flow in
 * whole-sheet.e2e.test.ts; Google Sheets needs Google, so the Sheets example is held to the file
 * flow here: the same nodes from the rows to the write-back (Get Results for Rows), and a write-back
 * of every row into the sheet by its row number.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- test code, never packed: files ships dist only */
import path from 'node:path';
import { listDir, readText } from './support/files';

interface Node {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
	credentials?: Record<string, unknown>;
	alwaysOutputData?: boolean;
}
interface Workflow {
	nodes: Node[];
	/** By source node, then connection type (main, ai_tool, ...), then output. */
	connections: Record<string, Record<string, Array<Array<{ node: string }> | null>>>;
}

const dir = path.join(__dirname, '..', 'examples');
const load = (file: string): Workflow => JSON.parse(readText(`${dir}/${file}`)) as Workflow;
const examples = listDir(dir).filter((file) => file.endsWith('.json'));
const fileFlow = load('file-bulk-verify-write-back.json');
const sheetFlow = load('google-sheets-bulk-verify.json');

function node(flow: Workflow, name: string): Node {
	const found = flow.nodes.find((n) => n.name === name);
	if (!found) throw new Error(`no node "${name}"`);
	return found;
}

/** The names of the nodes fed by `from`, on every output. */
function next(flow: Workflow, from: string): string[] {
	return (flow.connections[from]?.main ?? []).flatMap((out) => out ?? []).map((c) => c.node);
}

/** Every node reachable from `from`. */
function downstream(flow: Workflow, from: string): Set<string> {
	const seen = new Set<string>();
	const queue = [from];
	while (queue.length) {
		for (const name of next(flow, queue.shift()!)) {
			if (!seen.has(name)) {
				seen.add(name);
				queue.push(name);
			}
		}
	}
	return seen;
}

/** The nodes from the rows to the write-back, the part both sheet flows share. */
const SHARED = [
	'All Rows',
	'Submit One Job',
	'Job Submitted?',
	'Wait for the Job',
	'Rows and Their Jobs',
	'Write Results Beside Rows',
];

/** Where each shared node leads, on every output in order. */
const SHARED_NEXT: Record<string, string[]> = {
	'All Rows': ['Submit One Job', 'Rows and Their Jobs'],
	'Submit One Job': ['Job Submitted?'],
	// With no job (every open row malformed, or nothing fits today) the rows go straight on.
	'Job Submitted?': ['Wait for the Job', 'Rows and Their Jobs'],
	'Wait for the Job': ['Rows and Their Jobs'],
	'Rows and Their Jobs': ['Write Results Beside Rows'],
};

describe('example workflows', () => {
	it.each(examples)('%s connects only nodes it has', (file) => {
		const flow = load(file);
		const names = new Set(flow.nodes.map((n) => n.name));
		expect(names.size).toBe(flow.nodes.length);
		for (const [from, byType] of Object.entries(flow.connections)) {
			expect(names).toContain(from);
			for (const outputs of Object.values(byType)) {
				for (const target of outputs.flatMap((out) => out ?? []))
					expect(names).toContain(target.node);
			}
		}
	});

	it('the Google Sheets example writes every row back into the sheet, matched by row number', () => {
		expect(next(sheetFlow, 'Write Results Beside Rows')).toEqual(['Write Back to the Sheet']);
		const write = node(sheetFlow, 'Write Back to the Sheet');
		expect(write.type).toBe('n8n-nodes-base.googleSheets');
		expect(write.parameters).toMatchObject({
			operation: 'update',
			columns: { mappingMode: 'autoMapInputData', matchingColumns: ['row_number'] },
		});
		// The same document and sheet as the rows were read from.
		const read = node(sheetFlow, 'Read Leads Sheet');
		expect(write.parameters.documentId).toEqual(read.parameters.documentId);
		expect(write.parameters.sheetName).toEqual(read.parameters.sheetName);
		expect(downstream(sheetFlow, 'Read Leads Sheet')).toContain('Write Back to the Sheet');
	});

	it('both sheet flows run the same nodes from the rows to the write-back, so the real-n8n run of the file flow covers the Sheets one', () => {
		for (const name of SHARED) {
			const [a, b] = [node(fileFlow, name), node(sheetFlow, name)];
			expect({ name, type: b.type, parameters: b.parameters, always: b.alwaysOutputData }).toEqual({
				name,
				type: a.type,
				parameters: a.parameters,
				always: a.alwaysOutputData,
			});
		}
		for (const flow of [fileFlow, sheetFlow]) {
			for (const [from, to] of Object.entries(SHARED_NEXT)) expect(next(flow, from)).toEqual(to);
		}
	});

	it('holds no Code node and no hand-set row cap: the node sends what the allowance takes and writes rows back itself', () => {
		for (const flow of [fileFlow, sheetFlow]) {
			expect(flow.nodes.filter((n) => n.type === 'n8n-nodes-base.code')).toEqual([]);
			expect(JSON.stringify(node(flow, 'Settings').parameters)).not.toContain('maxRowsPerRun');
			const submit = node(flow, 'Submit One Job');
			expect(submit.parameters).toMatchObject({
				emailSource: 'field',
				options: { nothingToSend: 'report', skipAnswered: true },
			});
			// A stop part way is an output (the default), never a failed run.
			expect((submit.parameters.options as Record<string, unknown>).onStop).toBeUndefined();
			const write = node(flow, 'Write Results Beside Rows');
			expect(write.type).toBe('n8n-nodes-evf.emailVerification');
			expect(write.parameters).toMatchObject({
				resource: 'bulkJob',
				operation: 'getResultsForRows',
				emailField: submit.parameters.emailField,
				jobIds: "={{ $('Submit One Job').all().map(item => item.json.job_id) }}",
				options: {
					unsent: "={{ $('Submit One Job').first().json.unsent }}",
					continueAfter: "={{ $('Submit One Job').first().json.continue_after }}",
				},
			});
		}
	});

	it('the write-back gets the rows (the merge passes on its first input, All Rows) once the job is done', () => {
		for (const flow of [fileFlow, sheetFlow]) {
			const merge = node(flow, 'Rows and Their Jobs');
			expect(merge.type).toBe('n8n-nodes-base.merge');
			expect(merge.parameters).toEqual({ mode: 'chooseBranch', useDataOfInput: 1 });
			const into = (from: string) =>
				(flow.connections[from].main ?? [])
					.flatMap((out) => out ?? [])
					.filter((c) => c.node === 'Rows and Their Jobs')
					.map((c) => (c as { index?: number }).index);
			expect(into('All Rows')).toEqual([0]);
			expect(into('Wait for the Job')).toEqual([1]);
			expect(into('Job Submitted?')).toEqual([1]);
		}
	});

	it('the file flow reads and writes the one file named in Settings, as CSV or XLSX', () => {
		const settings = JSON.stringify(node(fileFlow, 'Settings').parameters);
		expect(settings).toContain('"name":"file"');
		expect(settings).toContain('"name":"emailColumn"');
		expect(node(fileFlow, 'Read File').parameters.fileSelector).toBe('={{ $json.file }}');
		expect(node(fileFlow, 'Write File').parameters.fileName).toBe(
			"={{ $('Settings').first().json.file }}",
		);
		expect(next(fileFlow, 'XLSX or CSV')).toEqual(['Extract XLSX', 'Extract CSV']);
		expect(next(fileFlow, 'Back to XLSX or CSV')).toEqual(['To XLSX', 'To CSV']);
		expect(downstream(fileFlow, 'Write Results Beside Rows')).toContain('Write File');
	});
});
