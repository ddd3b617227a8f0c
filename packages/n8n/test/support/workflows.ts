/**
 * Workflow JSON for the real-n8n suites, written with the published node type names
 * (`n8n-nodes-evf.*`), as a user's workflows refer to the installed package.
 */
import { PACKAGE_NAME } from '../harness/n8n-runner';

export type Row = Record<string, unknown>;

export const EVF = PACKAGE_NAME;

export function id16(prefix: string): string {
	return `${prefix}${crypto.randomUUID().replace(/-/g, '')}`.slice(0, 16);
}

export function manualStart(): Row {
	return {
		id: crypto.randomUUID(),
		name: 'Start',
		type: 'n8n-nodes-base.manualTrigger',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

export function webhookStart(path: string): Row {
	return {
		id: crypto.randomUUID(),
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: crypto.randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	};
}

export function evfNode(name: string, parameters: Row, credentialId: string, x: number): Row {
	return {
		id: crypto.randomUUID(),
		name,
		type: `${EVF}.emailVerification`,
		typeVersion: 1,
		position: [x, 0],
		parameters,
		credentials: { emailVerificationApi: { id: credentialId, name: credentialId } },
	};
}

export function triggerNode(webhookId: string, credentialId: string): Row {
	return {
		id: crypto.randomUUID(),
		name: 'On Bulk Job Finished',
		type: `${EVF}.emailVerificationTrigger`,
		typeVersion: 1,
		position: [0, 0],
		webhookId,
		parameters: { output: 'job' },
		credentials: { emailVerificationApi: { id: credentialId, name: credentialId } },
	};
}

/** An HTTP Request node that POSTs `jsonBody` (an n8n expression) to `url`. */
export function report(
	name: string,
	url: string,
	x: number,
	jsonBody = '={{ JSON.stringify($json) }}',
): Row {
	return {
		id: crypto.randomUUID(),
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [x, 0],
		parameters: {
			method: 'POST',
			url,
			sendBody: true,
			specifyBody: 'json',
			jsonBody,
			options: {},
		},
	};
}

export function chain(names: string[]): Row {
	const connections: Row = {};
	for (let i = 0; i < names.length - 1; i++) {
		connections[names[i]] = { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] };
	}
	return connections;
}

/** A workflow whose nodes run one after another, in the given order. */
export function workflow(id: string, name: string, nodes: Row[]): Row {
	return {
		id,
		name,
		nodes,
		connections: chain(nodes.map((n) => String(n.name))),
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

export function credential(id: string, data: Row, type = 'emailVerificationApi'): Row {
	return { id, name: id, type, data };
}

/** The node's credential for a sandbox: its API key, address and webhook signing secret. */
export function sandboxCredential(
	id: string,
	service: { apiKey: string; baseUrl: string; webhookSecret: string },
): Row {
	return credential(id, {
		apiKey: service.apiKey,
		baseUrl: service.baseUrl,
		webhookSecret: service.webhookSecret,
	});
}

/** n8n's MCP Server Trigger (version 2: Streamable HTTP on POST, SSE on GET) with bearer auth. */
export function mcpTriggerNode(path: string, bearerCredentialId: string): Row {
	return {
		id: crypto.randomUUID(),
		name: 'MCP Server Trigger',
		type: '@n8n/n8n-nodes-langchain.mcpTrigger',
		typeVersion: 2,
		position: [0, 0],
		webhookId: crypto.randomUUID(),
		parameters: { path, authentication: 'bearerAuth' },
		credentials: { httpBearerAuth: { id: bearerCredentialId, name: bearerCredentialId } },
	};
}

/** This package's node as an AI tool: the type n8n derives from `usableAsTool`. */
export function evfToolNode(name: string, parameters: Row, credentialId: string, x: number): Row {
	return { ...evfNode(name, parameters, credentialId, x), type: `${EVF}.emailVerificationTool` };
}

/** A workflow of one MCP Server Trigger and tool nodes connected to it as `ai_tool`. */
export function mcpWorkflow(id: string, name: string, trigger: Row, tools: Row[]): Row {
	const connections: Row = {};
	for (const tool of tools) {
		connections[String(tool.name)] = {
			ai_tool: [[{ node: String(trigger.name), type: 'ai_tool', index: 0 }]],
		};
	}
	return {
		id,
		name,
		nodes: [trigger, ...tools],
		connections,
		active: false,
		settings: { executionOrder: 'v1' },
		pinData: {},
	};
}

export { atCurrentTime, type Vector } from './vectors';
