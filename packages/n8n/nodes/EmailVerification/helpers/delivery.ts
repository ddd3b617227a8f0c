/**
 * The one check of a delivery from the service, for both receivers: the trigger's webhook and Wait for
 * Completion's resume URL. Both must read the same bytes the service signed and answer a failed check
 * the same way, so the rule lives here once; the signature itself is the client's verifyWebhook.
 */
import type { IWebhookFunctions } from 'n8n-workflow';
import { verifyWebhook, WebhookVerificationError, type VerifiedWebhook } from '@evf/client';
import { toNodeError } from './errors';
import { getCredentialsOf, signingSecrets } from '../transport';

type DeliveryRequest = ReturnType<IWebhookFunctions['getRequestObject']> & {
	rawBody?: Buffer;
	readRawBody?: () => Promise<void>;
};

/**
 * The bytes the service signed. n8n keeps them as `rawBody` when it parsed the body itself; a node
 * that asked n8n not to parse (options.binaryData, so a body that is not JSON still reaches this
 * check) gets them from `readRawBody`.
 */
export async function rawBodyOf(request: DeliveryRequest): Promise<Buffer | string> {
	if (request.rawBody === undefined && typeof request.readRawBody === 'function')
		await request.readRawBody();
	return request.rawBody ?? '';
}

/**
 * Checks the delivery against the credential's signing secrets (the current one and, during a
 * rotation, the previous one). A delivery that fails is answered 401 with the failure's code (never a
 * secret) and gives undefined: the caller starts or resumes nothing, and the service may send it again.
 */
export async function verifiedDelivery(
	context: IWebhookFunctions,
): Promise<VerifiedWebhook | undefined> {
	const request = context.getRequestObject() as DeliveryRequest;
	const rawBody = await rawBodyOf(request);
	const credentials = await getCredentialsOf(context);
	try {
		return verifyWebhook({
			rawBody,
			headers: request.headers,
			secrets: signingSecrets(credentials),
		});
	} catch (error) {
		if (!(error instanceof WebhookVerificationError)) throw toNodeError(context.getNode(), error);
		context.getResponseObject().status(401).json({ error: 'invalid_signature', code: error.code });
		return undefined;
	}
}
