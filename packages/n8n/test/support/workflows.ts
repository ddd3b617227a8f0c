/**
 * Workflow JSON for the real-n8n suites, written with the published node type names
 * (`n8n-nodes-evf.*`), as a user's workflows refer to the installed package.
 */
import { signWebhook } from '@evf/client';
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

export interface Vector {
	name: string;
	secrets: string[];
	headers: Record<string, string>;
	rawBody: string;
	now: number;
	expect: 'accept' | 'reject';
}

/** Seconds inside or beyond the 300 s window at which the boundary vectors are re-sent on a real clock. */
const BOUNDARY_MARGIN_S = 5;

function headerName(headers: Record<string, string>, lower: string): string | undefined {
	return Object.keys(headers).find((key) => key.toLowerCase() === lower);
}

/**
 * A shared signature vector moved to the real clock, for a receiver that checks timestamps against
 * its own now (real n8n, without faking its time). The timestamp keeps its distance from the vector's
 * receiver clock, and every `v1=` signature made with one of the vector's secrets is made again for the
 * new timestamp and the same bytes; anything the vector broke on purpose (a wrong secret, a tampered
 * body or timestamp, a malformed header) stays broken. The exact 300 s boundaries run at their fixed
 * clock in trigger.sandbox.test.ts; here a second can tick between signing and checking, so a boundary that
 * must pass moves 5 s inside and one that must fail 5 s further out.
 */
export function atCurrentTime(vector: Vector, nowS: number): Vector {
	const headers = { ...vector.headers };
	const tsKey = headerName(headers, 'x-service-timestamp');
	const sigKey = headerName(headers, 'x-service-signature');
	const oldTs = tsKey ? headers[tsKey] : undefined;
	if (!tsKey || !oldTs || !/^\d+$/.test(oldTs)) return { ...vector, now: nowS };
	let offset = Number(oldTs) - vector.now;
	if (Math.abs(Math.abs(offset) - 300) <= BOUNDARY_MARGIN_S) {
		const inward = vector.expect === 'accept';
		offset = Math.sign(offset) * (inward ? 300 - BOUNDARY_MARGIN_S : 300 + BOUNDARY_MARGIN_S + 1);
	}
	const newTs = nowS + offset;
	headers[tsKey] = String(newTs);
	if (sigKey) {
		headers[sigKey] = headers[sigKey]
			.split(',')
			.map((part) => {
				const trimmed = part.trim();
				const signer = vector.secrets.find(
					(secret) =>
						signWebhook({ rawBody: vector.rawBody, secret, timestamp: Number(oldTs) }) === trimmed,
				);
				if (!signer) return part;
				const lead = part.slice(0, part.indexOf(trimmed));
				return `${lead}${signWebhook({ rawBody: vector.rawBody, secret: signer, timestamp: newTs })}`;
			})
			.join(',');
	}
	return { ...vector, headers, now: nowS };
}
