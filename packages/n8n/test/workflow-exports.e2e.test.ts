/**
 * The bundle may only import n8n-workflow exports that every supported n8n has. n8n provides
 * n8n-workflow at run time, so an export missing from the user's n8n fails only there: `sleepWithAbort`,
 * removed in n8n-workflow 2.34.0, broke every polling wait on n8n >= 2.34 this way. The lists compared
 * are the real exports of both ends of the range, `require`d in a separate Node.js process: 2.8.0 (the
 * repo's devDependency, what n8n 2.8.x ships) and the n8n-workflow the newest proven n8n pins
 * (installed alone into the n8n cache outside the repo).
 */
import { NEWEST, PINNED, RECIPES, ensureWorkflowPackage } from './harness/ensure-n8n';
import {
	bundledWorkflowImports,
	exportsOf,
	repoWorkflowDir,
	workflowImports,
} from './support/workflow-exports';

jest.setTimeout(5 * 60_000);

let imported: string[];
let oldest: { version: string; names: string[] };
let newest: { version: string; names: string[] };

beforeAll(async () => {
	imported = await bundledWorkflowImports();
	oldest = exportsOf(repoWorkflowDir());
	newest = exportsOf(await ensureWorkflowPackage(RECIPES[NEWEST].workflow));
});

describe(`the bundle's n8n-workflow imports exist from n8n ${PINNED} to n8n ${NEWEST}`, () => {
	it('reads the imports of the real bundle', () => {
		expect(imported).toEqual(
			expect.arrayContaining(['NodeApiError', 'NodeOperationError', 'sleep']),
		);
	});

	it(`every import exists in the oldest supported n8n-workflow, ${RECIPES[PINNED].workflow}`, () => {
		expect(oldest.version).toBe(RECIPES[PINNED].workflow);
		expect(imported.filter((name) => !oldest.names.includes(name))).toEqual([]);
	});

	it(`every import exists in the n8n-workflow of n8n ${NEWEST}, ${RECIPES[NEWEST].workflow}`, () => {
		expect(newest.version).toBe(RECIPES[NEWEST].workflow);
		expect(imported.filter((name) => !newest.names.includes(name))).toEqual([]);
	});

	it('would catch the sleepWithAbort import that broke polling on n8n >= 2.34', () => {
		const before =
			'var import_n8n_workflow = require("n8n-workflow");\n(0, import_n8n_workflow.sleepWithAbort)(1, s);';
		expect([...workflowImports(before)]).toEqual(['sleepWithAbort']);
		expect(oldest.names).toContain('sleepWithAbort');
		expect(newest.names).not.toContain('sleepWithAbort');
	});

	it('refuses a bundle that uses n8n-workflow in a way it cannot list', () => {
		expect(() =>
			workflowImports('var w = require("n8n-workflow");\nconst all = w;\nall.sleepWithAbort(1);'),
		).toThrow(/other than as w\.<export>/);
		expect(() => workflowImports('const { sleep } = require("n8n-workflow");')).toThrow(
			/form this check does not read/,
		);
	});
});
