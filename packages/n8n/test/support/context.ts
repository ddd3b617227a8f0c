/**
 * A minimal stand-in for the contexts n8n hands a node (execute, webhook, poll, list search), with the
 * one part that matters done for real: `httpRequestWithAuthentication` sends real HTTP (to the
 * in-process sandbox on loopback), adds the credential's X-API-Key header as the credential's
 * `authenticate` block says, and answers with n8n's shapes: `returnFullResponse` gives
 * { body, headers, statusCode }, `ignoreHttpStatusErrors` returns error statuses, and a network
 * failure throws NodeApiError wrapping an error with the socket code, as n8n 2.8 does.
 * The real n8n runs the same bundle in real-n8n.e2e.test.ts.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	INodeExecutionData,
	IPollFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

export interface TestCredentials {
	apiKey: string;
	baseUrl: string;
	webhookSecret?: string;
	previousWebhookSecret?: string;
}

export interface HarnessOptions {
	params: Record<string, unknown> | ((name: string, itemIndex: number) => unknown);
	items?: INodeExecutionData[];
	credentials: TestCredentials;
	continueOnFail?: boolean;
	resumeUrl?: string;
	nodeType?: string;
	mode?: string;
}

export interface Harness<T> {
	/** The node's static data (getWorkflowStaticData('node')): pass the same object to the next run. */
	staticData?: IDataObject;
	context: T;
	/** Dates passed to putExecutionToWait. */
	waits: Date[];
	/** Requests the node sent through the helper. */
	sent: { method: string; url: string; headers: Record<string, string> }[];
	abort: AbortController;
}

function testNode(type: string): INode {
	return {
		id: 'node-under-test',
		name: 'Email Verification',
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

function errorCode(error: unknown): string | undefined {
	const e = error as { name?: string; cause?: { code?: string } };
	if (e?.name === 'TimeoutError') return 'ECONNABORTED';
	if (e?.name === 'AbortError') return 'ERR_CANCELED';
	return e?.cause?.code;
}

function makeHttp(node: INode, credentials: TestCredentials, sent: Harness<unknown>['sent']) {
	return async function httpRequestWithAuthentication(
		credentialsType: string,
		options: IHttpRequestOptions,
	): Promise<unknown> {
		if (credentialsType !== 'emailVerificationApi')
			throw new Error(`unexpected credential ${credentialsType}`);
		const headers: Record<string, string> = {
			...((options.headers ?? {}) as Record<string, string>),
			'X-API-Key': credentials.apiKey,
		};
		sent.push({ method: String(options.method ?? 'GET'), url: options.url, headers });
		const signals: AbortSignal[] = [];
		if (options.timeout) signals.push(AbortSignal.timeout(options.timeout));
		if (options.abortSignal) signals.push(options.abortSignal as AbortSignal);
		let response: Response;
		try {
			response = await fetch(options.url, {
				method: options.method ?? 'GET',
				headers,
				body: options.body as string | undefined,
				redirect: options.disableFollowRedirect ? 'manual' : 'follow',
				signal: signals.length ? AbortSignal.any(signals) : undefined,
			});
		} catch (error) {
			const wrapped = Object.assign(new Error((error as Error).message), {
				code: errorCode(error),
			});
			throw new NodeApiError(node, wrapped as unknown as JsonObject);
		}
		const text = await response.text();
		if (!options.ignoreHttpStatusErrors && response.status >= 400) {
			throw new NodeApiError(node, { message: text, httpCode: String(response.status) });
		}
		const responseHeaders: Record<string, string> = {};
		response.headers.forEach((value, key) => (responseHeaders[key] = value));
		if (!options.returnFullResponse) return options.encoding === 'text' ? text : JSON.parse(text);
		return {
			body: text,
			headers: responseHeaders,
			statusCode: response.status,
			statusMessage: response.statusText,
		};
	};
}

function paramReader(options: HarnessOptions) {
	return (
		name: string,
		itemIndex: number,
		fallback?: unknown,
		extra?: { extractValue?: boolean },
	) => {
		const raw =
			typeof options.params === 'function' ? options.params(name, itemIndex) : options.params[name];
		const value = raw === undefined ? fallback : raw;
		if (value === undefined) throw new Error(`The test gave no value for parameter "${name}"`);
		if (
			extra?.extractValue &&
			value &&
			typeof value === 'object' &&
			'value' in (value as IDataObject)
		) {
			return (value as IDataObject).value;
		}
		return value;
	};
}

export function executeContext(
	options: HarnessOptions & {
		staticData?: IDataObject;
		/** The workflow the node belongs to; by default a new one per context. */
		workflowId?: string;
	},
): Harness<IExecuteFunctions> {
	const node = testNode(options.nodeType ?? 'n8n-nodes-evf.emailVerification');
	const sent: Harness<unknown>['sent'] = [];
	const waits: Date[] = [];
	const abort = new AbortController();
	const read = paramReader(options);
	const items = options.items ?? [{ json: {} }];
	const staticData = options.staticData ?? {};
	const workflowId = options.workflowId ?? crypto.randomUUID();
	const context = {
		getInputData: () => items,
		// An active workflow's run (n8n saves its static data) unless a test asks for a manual one.
		getMode: () => options.mode ?? 'trigger',
		getNodeParameter: read,
		getNode: () => node,
		getWorkflow: () => ({ id: workflowId, name: 'Test workflow', active: true }),
		getCredentials: async () => ({ ...options.credentials }),
		// n8n's default (GENERIC_TIMEZONE) when the instance sets none.
		getTimezone: () => 'America/New_York',
		continueOnFail: () => options.continueOnFail ?? false,
		getExecutionCancelSignal: () => abort.signal,
		evaluateExpression: (expression: string) => {
			if (expression.includes('$execution.resumeUrl')) return options.resumeUrl ?? '';
			throw new Error(`unexpected expression ${expression}`);
		},
		putExecutionToWait: async (date: Date) => {
			waits.push(date);
		},
		getWorkflowStaticData: (type: string) => {
			if (type !== 'node') throw new Error(`unexpected static data type ${type}`);
			return staticData;
		},
		helpers: {} as IExecuteFunctions['helpers'],
	} as unknown as IExecuteFunctions;
	(context.helpers as unknown as IDataObject).httpRequestWithAuthentication = makeHttp(
		node,
		options.credentials,
		sent,
	);
	return { context, waits, sent, abort, staticData };
}

export interface IncomingDelivery {
	rawBody: string;
	headers: Record<string, string>;
}

export interface WebhookHarness extends Harness<IWebhookFunctions> {
	/** What the node answered itself (status and JSON) when it took over the response. */
	answered: { status?: number; body?: unknown };
	/** How many requests to the service the node had made when it answered. */
	requestsBeforeAnswer: { count?: number };
	staticData: IDataObject;
}

export function webhookContext(
	options: HarnessOptions & {
		delivery: IncomingDelivery;
		staticData?: IDataObject;
		/** The workflow the trigger belongs to; by default a new one per context. */
		workflowId?: string;
	},
): WebhookHarness {
	const node = testNode(options.nodeType ?? 'n8n-nodes-evf.emailVerificationTrigger');
	const sent: Harness<unknown>['sent'] = [];
	const answered: WebhookHarness['answered'] = {};
	const requestsBeforeAnswer: WebhookHarness['requestsBeforeAnswer'] = {};
	const staticData = options.staticData ?? {};
	const workflowId = options.workflowId ?? crypto.randomUUID();
	const read = paramReader(options);
	const headers: Record<string, string> = {};
	// Node's HTTP server gives header names in lower case.
	for (const [k, v] of Object.entries(options.delivery.headers)) headers[k.toLowerCase()] = v;
	const request = { rawBody: Buffer.from(options.delivery.rawBody, 'utf8'), headers };
	const response = {
		status(code: number) {
			answered.status = code;
			return response;
		},
		json(body: unknown) {
			answered.body = body;
			requestsBeforeAnswer.count = sent.length;
			return response;
		},
	};
	const context = {
		getRequestObject: () => request,
		getResponseObject: () => response,
		getNodeParameter: (name: string, fallback?: unknown) => read(name, 0, fallback),
		getNode: () => node,
		getWorkflow: () => ({ id: workflowId, name: 'Test workflow', active: true }),
		getMode: () => options.mode ?? 'webhook',
		getCredentials: async () => ({ ...options.credentials }),
		getWorkflowStaticData: () => staticData,
		helpers: {} as IWebhookFunctions['helpers'],
	} as unknown as IWebhookFunctions;
	(context.helpers as unknown as IDataObject).httpRequestWithAuthentication = makeHttp(
		node,
		options.credentials,
		sent,
	);
	return {
		context,
		waits: [],
		sent,
		abort: new AbortController(),
		answered,
		requestsBeforeAnswer,
		staticData,
	};
}

export function pollContext(
	options: HarnessOptions & { mode?: 'manual' | 'trigger'; staticData?: IDataObject },
): Harness<IPollFunctions> & { staticData: IDataObject } {
	const node = testNode('n8n-nodes-evf.emailVerificationPollTrigger');
	const sent: Harness<unknown>['sent'] = [];
	const staticData = options.staticData ?? {};
	const read = paramReader(options);
	const context = {
		getNode: () => node,
		getNodeParameter: (name: string, fallback?: unknown) => read(name, 0, fallback),
		getMode: () => options.mode ?? 'trigger',
		getCredentials: async () => ({ ...options.credentials }),
		getWorkflowStaticData: () => staticData,
		helpers: {} as IPollFunctions['helpers'],
	} as unknown as IPollFunctions;
	(context.helpers as unknown as IDataObject).httpRequestWithAuthentication = makeHttp(
		node,
		options.credentials,
		sent,
	);
	return { context, waits: [], sent, abort: new AbortController(), staticData };
}

export function loadOptionsContext(credentials: TestCredentials): Harness<ILoadOptionsFunctions> {
	const node = testNode('n8n-nodes-evf.emailVerification');
	const sent: Harness<unknown>['sent'] = [];
	const context = {
		getNode: () => node,
		getCredentials: async () => ({ ...credentials }),
		// n8n's default (GENERIC_TIMEZONE) when the instance sets none.
		getTimezone: () => 'America/New_York',
		helpers: {} as ILoadOptionsFunctions['helpers'],
	} as unknown as ILoadOptionsFunctions;
	(context.helpers as unknown as IDataObject).httpRequestWithAuthentication = makeHttp(
		node,
		credentials,
		sent,
	);
	return { context, waits: [], sent, abort: new AbortController() };
}
