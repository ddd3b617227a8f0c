/**
 * One MCP client session (@modelcontextprotocol/sdk), run in its own Node process by mcp-client.ts:
 * jest resolves packages with the workspace's "source" export condition, under which the SDK's
 * dependencies load as untranspiled TypeScript; plain Node loads the SDK as it ships. Reads the steps
 * as JSON from argv, prints one JSON line: the answers, or the error that stopped the session.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-globals, import-x/no-unresolved --
 * test code beside n8n, never packed: it reads argv and writes stdout. The SDK exports its client
 * transports through a wildcard in its package exports, which the lint's resolver does not read
 * (TypeScript and Node do). */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpRequest, McpStepAnswer } from './mcp-client';

async function main(): Promise<void> {
	const request = JSON.parse(process.argv[2]) as McpRequest;
	const headers = { Authorization: `Bearer ${request.token}` };
	const url = new URL(request.url);
	const transport =
		request.transport === 'sse'
			? new SSEClientTransport(url, {
					requestInit: { headers },
					// The SSE stream itself is a GET that needs the token too.
					eventSourceInit: {
						fetch: (input, init) =>
							fetch(input, { ...init, headers: { ...init?.headers, ...headers } }),
					},
				})
			: new StreamableHTTPClientTransport(url, { requestInit: { headers } });
	const client = new Client({ name: 'evf-n8n-e2e', version: '1.0.0' });
	const answers: McpStepAnswer[] = [];
	try {
		await client.connect(transport);
		for (const step of request.steps) {
			if (step.kind === 'list') {
				const { tools } = await client.listTools();
				answers.push({
					kind: 'list',
					tools: tools.map((t) => ({
						name: t.name,
						description: t.description,
						inputSchema: t.inputSchema,
					})),
				});
			} else {
				const result = await client.callTool({ name: step.name, arguments: step.args });
				const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
				answers.push({
					kind: 'call',
					isError: result.isError === true,
					text: content
						.filter((part) => part.type === 'text')
						.map((part) => part.text ?? '')
						.join('\n'),
				});
			}
		}
		await client.close();
		process.stdout.write(`${JSON.stringify({ answers })}\n`);
	} catch (error) {
		process.stdout.write(
			`${JSON.stringify({ answers, error: String((error as Error).message) })}\n`,
		);
	}
}

void main();
