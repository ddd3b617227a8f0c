/**
 * Client errors become n8n errors whose message a no-code user can act on. The client already words its
 * messages for people (and keeps secrets out of them); this adds the HTTP code and a short hint.
 */
import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import {
	ApiError,
	EvfError,
	InputError,
	PartialSubmissionError,
	RateLimitError,
	SubmissionUncertainError,
	VerificationUncertainError,
	WebhookVerificationError,
	errorField,
	errorStatus,
} from '@evf/client';

const HINTS: Record<number, string> = {
	401: 'Open the Email Verification API credential and paste a current API key (it starts with evf_).',
	400: 'The request was malformed in a way the node did not catch; check the fields of this operation.',
	402: 'Add credits or a top-up in the app, then run the workflow again.',
	403: 'The key is valid but the account may not use the API (any paid plan or top-up gives access). A new key will not help; change the plan in the app.',
	404: 'Check the ID: it may be mistyped or belong to another account.',
	408: 'The address could not be verified within 30 seconds. The credit was refunded; try again later, or set "On Timeout" to "Output an Item" to keep going.',
	422: 'Fix the addresses or fields the service named. Nothing was charged.',
	429: 'Your plan allowance counts verified addresses. Wait for the reset time, split the work, or upgrade the plan.',
	503: 'The service paused new jobs. Run the workflow again later.',
};

export function toNodeError(node: INode, error: unknown, itemIndex?: number): Error {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	// AllowanceExceededError (one job larger than the daily allowance) is an InputError, so it lands here
	// and is never a retry-later error. No input to this package's steps reaches it today: the client
	// throws it only under `maxJobs`, which no operation sets, and without a cap it cuts a list into
	// jobs that fit (the plan's window, or the smallest daily allowance after a 429) and outputs the rest
	// as unsent. The mapping stays for the client's other callers' path (submit-stops.test.ts).
	if (error instanceof InputError) {
		return new NodeOperationError(node, error.message, {
			itemIndex,
			description: `Field "${error.field}" (rule: ${error.rule}). Nothing was sent or charged.`,
		});
	}
	if (error instanceof ApiError) {
		const response: JsonObject = {
			status: error.status,
			message: error.message,
			...(error.requestId ? { requestId: error.requestId } : {}),
		};
		let hint =
			HINTS[error.status] ?? (error.status >= 500 ? 'Try again in a few minutes.' : undefined);
		if (error instanceof RateLimitError && error.retryAt !== undefined) {
			hint =
				`${hint ?? ''} The allowance resets at ${new Date(error.retryAt).toISOString()}.`.trim();
		}
		// The field the service named in its 400/422 body, in n8n's words: which parameter to fix.
		const field = errorField(error);
		if (field) hint = `Field "${field}": ${hint ?? 'fix it and run the node again.'}`;
		return new NodeApiError(node, response, {
			message: error.message,
			description: hint,
			httpCode: String(error.status),
			itemIndex,
		});
	}
	if (error instanceof SubmissionUncertainError || error instanceof PartialSubmissionError) {
		return new NodeOperationError(node, error.message, {
			itemIndex,
			description:
				'Do not resubmit blindly: look at Bulk Job > Get Many first, so no list is charged twice.',
		});
	}
	if (error instanceof VerificationUncertainError) {
		return new NodeOperationError(node, error.message, {
			itemIndex,
			description:
				'The answer was lost on the way back; the address may have been charged. Verify it again later if you need the answer.',
		});
	}
	if (error instanceof WebhookVerificationError || error instanceof EvfError) {
		return new NodeOperationError(node, error.message, { itemIndex });
	}
	return new NodeOperationError(node, error instanceof Error ? error : String(error), {
		itemIndex,
	});
}

/** The JSON of an error item when "Continue On Fail" is on: message and code, never a secret. */
export function errorJson(error: unknown): JsonObject {
	const json: JsonObject = { error: error instanceof Error ? error.message : String(error) };
	const status = errorStatus(error);
	if (status !== undefined) json.httpCode = status;
	const field = errorField(error);
	if (field) json.field = field;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.description) json.description = error.description;
	}
	return json;
}
