/**
 * The n8n part of `npm run demo`: runs this package's node inside the real n8n (when it is installed)
 * against the service or sandbox the demo gives, and logs what a workflow user would see. Secrets are
 * handed to n8n as a credential and never logged.
 */
import * as runner from '../test/harness/n8n-runner';

export interface DemoOptions {
	baseUrl: string;
	apiKey: string;
	webhookSecret?: string;
	log: (line?: string) => void;
}

const WORKFLOW_ID = 'evfDemoWorkflow1';
const CREDENTIAL_ID = 'evfDemoCredent01';

function node(name: string, x: number, parameters: Record<string, unknown>) {
	return {
		id: `${WORKFLOW_ID}-${x}`,
		name,
		type: `${runner.PACKAGE_NAME}.emailVerification`,
		typeVersion: 1,
		position: [x, 0],
		parameters,
		credentials: { emailVerificationApi: { id: CREDENTIAL_ID, name: 'Demo' } },
	};
}

const LEADS = [
	'valid.anna@acme-corp.com',
	'VALID.ANNA@acme-corp.com',
	'info@acme-corp.com',
	'catchall.bob@bigco.com',
	'invalid.carl@nowhere.org',
	'temp.dora@mailinator.com',
	'not-an-address',
];

function demoWorkflow() {
	const names = ['Start', 'Verify One Address', 'Verify the Sheet as One Job'];
	return {
		id: WORKFLOW_ID,
		name: 'n8n-nodes-evf demo',
		nodes: [
			{
				id: `${WORKFLOW_ID}-0`,
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			node('Verify One Address', 200, {
				resource: 'email',
				operation: 'verify',
				email: 'valid.anna@acme-corp.com',
				options: {},
			}),
			node('Verify the Sheet as One Job', 400, {
				resource: 'bulkJob',
				operation: 'submit',
				emailSource: 'list',
				emails: LEADS.join('\n'),
				waitForCompletion: true,
				waitMethod: 'polling',
				pollIntervalSeconds: 10,
				timeoutMinutes: 10,
				waitOutput: 'results',
				resultOptions: { simplify: true },
				options: { name: 'n8n demo sheet' },
			}),
		],
		connections: Object.fromEntries(
			names
				.slice(0, -1)
				.map((from, i) => [from, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]),
		),
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

export async function runDemo({ baseUrl, apiKey, webhookSecret, log }: DemoOptions): Promise<void> {
	log(
		`n8n: the Email Verification node inside a real n8n ${runner.PINNED}, installed from its npm tarball`,
	);
	if (!runner.isInstalled()) {
		log(
			'  Skipped: n8n is not installed here; install it once with npm run n8n:install -w n8n-nodes-evf (about 6 minutes, 2.4 GB, outside the repository), then run the demo again.',
		);
		return;
	}
	const tarball = runner.packTarball();
	const instance = await runner.createInstance();
	try {
		runner.installPackage(instance.folder, tarball);
		await runner.importCredentials(instance, [
			{
				id: CREDENTIAL_ID,
				name: 'Demo',
				type: 'emailVerificationApi',
				data: { apiKey, baseUrl, webhookSecret: webhookSecret ?? '' },
			},
		]);
		await runner.importWorkflows(instance, [demoWorkflow()]);
		log(
			`  Running a workflow headless (n8n execute): verify one address, then ${LEADS.length} sheet rows as ONE bulk job, waiting by polling...`,
		);
		const { run } = await runner.executeWorkflow(instance, WORKFLOW_ID);
		const single = runner.nodeOutput(run, 'Verify One Address');
		const rows = runner.nodeOutput(run, 'Verify the Sheet as One Job');
		if (!Array.isArray(single) || !Array.isArray(rows)) {
			throw new Error(
				`The workflow did not finish: ${JSON.stringify(Array.isArray(rows) ? single : rows).slice(0, 500)}`,
			);
		}
		log(`  Verify One Address -> ${single[0].email}: ${single[0].category} (${single[0].group})`);
		log(
			`  Verify the Sheet as One Job -> ${rows.length} result rows for ${LEADS.length} sheet rows (pre-flight reported the duplicate and the malformed one; neither was charged):`,
		);
		for (const row of rows)
			log(`    ${String(row.email).padEnd(28)} ${String(row.group).padEnd(13)} ${row.category}`);
	} finally {
		runner.removeInstance(instance);
	}
}
