/**
 * The one place this package makes requests. The shared client does all the domain work (validation,
 * retries, pagination, signatures); this file only hands it n8n's authenticated HTTP helper as its
 * transport and n8n's sleep as its clock.
 */
import {
	sleep,
	type IExecuteFunctions,
	type IHookFunctions,
	type IHttpRequestMethods,
	type IHttpRequestOptions,
	type ILoadOptionsFunctions,
	type IPollFunctions,
	type IWebhookFunctions,
	type NodeApiError,
} from 'n8n-workflow';
import {
	EmailVerificationClient,
	assertApiKey,
	failureContextOf,
	lowerCaseHeaders,
	transportFailure,
	type Runtime,
	type Transport,
} from '@evf/client';

export const CREDENTIAL_TYPE = 'emailVerificationApi';

export type RequestContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IPollFunctions
	| IHookFunctions
	| IWebhookFunctions;

export interface EvfCredentials {
	apiKey: string;
	baseUrl: string;
	webhookSecret?: string;
	previousWebhookSecret?: string;
}

/** The secrets a delivery may be signed with: the current one and, during a rotation, the previous one. */
export function signingSecrets(credentials: EvfCredentials): string[] {
	return [credentials.webhookSecret, credentials.previousWebhookSecret].filter(
		(secret): secret is string => typeof secret === 'string' && secret !== '',
	);
}

interface FullResponse {
	body: unknown;
	headers: Record<string, unknown>;
	statusCode: number;
}

/**
 * The longest single `sleep` while a wait can be cancelled: a cancelled execution stops within this.
 * Short enough for a user who presses Stop, long enough that a 15 s poll interval is 15 calls.
 */
export const CANCEL_CHECK_MS = 1000;

function cancelled(signal: AbortSignal): Error {
	return signal.reason instanceof Error ? signal.reason : new Error('The execution was cancelled.');
}

/**
 * Waits `ms` with n8n-workflow's `sleep`, the one wait every supported n8n has (`sleepWithAbort` is
 * gone since n8n-workflow 2.34.0; community nodes may not use timers). It sleeps in short steps and
 * checks the execution's cancel signal between them, so Stop still ends a long wait.
 */
export async function sleepUnlessCancelled(ms: number, signal?: AbortSignal): Promise<void> {
	if (!signal) return await sleep(Math.max(0, ms));
	const until = Date.now() + Math.max(0, ms);
	for (;;) {
		if (signal.aborted) throw cancelled(signal);
		const left = until - Date.now();
		if (left <= 0) return;
		await sleep(Math.min(left, CANCEL_CHECK_MS));
	}
}

/** n8n's sleep instead of timers: community nodes may not touch setTimeout. */
export const n8nRuntime: Runtime = {
	now: () => Date.now(),
	sleep: sleepUnlessCancelled,
	random: () => Math.random(),
};

/**
 * What n8n keeps of a failed request. httpRequestWithAuthentication wraps axios' error in a NodeApiError
 * (n8n-core, request-helper-functions.ts), and NodeApiError does not keep the error it wraps: its class
 * field `cause` is reset after the constructor sets it (n8n-workflow, execution-base.error.ts). It keeps
 * the system error's code in `httpCode` (a status would be digits) and the system error's own message,
 * `<syscall> <code> <address>`, first in `messages`: those are handed to the client's adapter kit.
 */
function keptByN8n(error: unknown): unknown {
	// Read by shape, not by class: n8n-core may throw it from its own copy of n8n-workflow.
	const { httpCode, messages, message } = (error ?? {}) as Partial<NodeApiError>;
	if (!Array.isArray(messages) || typeof httpCode !== 'string') return error;
	const code = /^\d+$/.test(httpCode) ? undefined : httpCode;
	return { code, message: messages[0] ?? message, cause: error };
}

/**
 * The client's transport over n8n's authenticated HTTP helper. What a failure proves (never sent, or
 * maybe sent) is the client's adapter kit's decision: n8n wraps axios' error in a NodeApiError, and the
 * kit reads the system error at the end of that chain.
 */
export function n8nTransport(context: RequestContext): Transport {
	return async (request) => {
		const failure = failureContextOf(request);
		const options: IHttpRequestOptions = {
			method: request.method as IHttpRequestMethods,
			url: request.url,
			headers: request.headers,
			body: request.body,
			timeout: request.timeoutMs,
			json: false,
			// Raw text: the client parses it, so an error body of any shape reaches it intact.
			encoding: 'text',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			abortSignal: request.signal,
		};
		let response: FullResponse;
		try {
			response = (await context.helpers.httpRequestWithAuthentication.call(
				context,
				CREDENTIAL_TYPE,
				options,
			)) as FullResponse;
		} catch (error) {
			throw transportFailure(keptByN8n(error), failure);
		}
		const body = response.body;
		return {
			status: response.statusCode,
			headers: lowerCaseHeaders(response.headers),
			body:
				typeof body === 'string'
					? body
					: body === undefined || body === null
						? ''
						: JSON.stringify(body),
		};
	};
}

export async function getCredentialsOf(context: RequestContext): Promise<EvfCredentials> {
	const credentials = (await context.getCredentials(CREDENTIAL_TYPE)) as unknown as EvfCredentials;
	// A bad key is named before any request goes out; n8n itself puts it into the X-API-Key header.
	assertApiKey(credentials.apiKey);
	return credentials;
}

export async function clientFor(context: RequestContext): Promise<EmailVerificationClient> {
	const credentials = await getCredentialsOf(context);
	return new EmailVerificationClient({
		// n8n puts the key into X-API-Key through the credential's `authenticate`.
		authenticatedByTransport: true,
		baseUrl: credentials.baseUrl,
		transport: n8nTransport(context),
		runtime: n8nRuntime,
		userAgent: 'n8n-nodes-evf',
	});
}
