/**
 * A real MCP client (@modelcontextprotocol/sdk) for the MCP Server Trigger's endpoint, as an MCP host
 * connects to it, with no model in between: what the tools answer is what the test reads. Each
 * session runs in a child process (mcp-client-child.ts says why).
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals --
 * test code beside n8n, never packed: it starts a Node process. */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';

export type McpStep =
	| { kind: 'list' }
	| { kind: 'call'; name: string; args: Record<string, unknown> };

export interface McpTool {
	name: string;
	description?: string;
	inputSchema: unknown;
}

export type McpStepAnswer =
	| { kind: 'list'; tools: McpTool[] }
	| { kind: 'call'; isError: boolean; text: string };

export interface McpRequest {
	url: string;
	token: string;
	transport: 'streamable-http' | 'sse';
	steps: McpStep[];
}

export interface McpSessionResult {
	answers: McpStepAnswer[];
	/** Why the session stopped early (a refused connection, a protocol error). */
	error?: string;
}

const CHILD = path.join(__dirname, 'mcp-client-child.ts');

/** Connects (Streamable HTTP or SSE, bearer token), runs the steps in one session, and closes. */
export async function runMcpSession(request: McpRequest): Promise<McpSessionResult> {
	const { stdout } = await promisify(execFile)(
		process.execPath,
		['--import', 'tsx', CHILD, JSON.stringify(request)],
		{ encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 2 ** 20 },
	);
	return JSON.parse(stdout.trim().split('\n').pop()!) as McpSessionResult;
}
