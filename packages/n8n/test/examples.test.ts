/**
 * The example workflows as a user imports them. Real n8n runs the file flow in
 * whole-sheet.e2e.test.ts; Google Sheets needs Google, so the Sheets example is held to the file
 * flow here: the same nodes from the rows to the merge, the same merge code, and a write-back of every
 * merged row into the sheet by its row number.
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

/** The nodes from the rows to the merge, the part both sheet flows share. */
const SHARED = [
	'Rows Not Yet Verified',
	'Submit One Job',
	'Job Submitted?',
	'Wait for the Job',
	'Read Results',
	'Write Results Beside Rows',
];

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

	it('the Google Sheets example writes every merged row back into the sheet, matched by row number', () => {
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

	it('both sheet flows run the same nodes from the rows to the merge, so the real-n8n run of the file flow covers the Sheets one', () => {
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
			expect(next(flow, 'All Rows')).toEqual([SHARED[0]]);
			SHARED.slice(0, -1).forEach((name, i) =>
				expect(next(flow, name)).toEqual(
					// With no job (every open row malformed) the merge runs straight away.
					name === 'Job Submitted?'
						? [SHARED[i + 1], 'Write Results Beside Rows']
						: [SHARED[i + 1]],
				),
			);
		}
	});

	it('a run whose open rows are all malformed outputs the pre-flight report, not an error, and the merge matches rows by what Submit sent', () => {
		for (const flow of [fileFlow, sheetFlow]) {
			const submit = node(flow, 'Submit One Job');
			expect(submit.parameters).toMatchObject({
				emailSource: 'field',
				options: { nothingToSend: 'report' },
			});
			const merge = String(node(flow, 'Write Results Beside Rows').parameters.jsCode);
			expect(merge).toContain('report.addresses_by_item');
			expect(merge).toContain("$('Wait for the Job').isExecuted");
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

	it('reads a job that found no rows without stopping before the merge (Read Results always outputs)', () => {
		// n8n runs no later node after one with no output items: the merge must still mark the rows.
		expect(node(fileFlow, 'Read Results').alwaysOutputData).toBe(true);
	});
});
