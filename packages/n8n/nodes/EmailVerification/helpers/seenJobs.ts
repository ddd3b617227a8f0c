import type { IDataObject } from 'n8n-workflow';

/** Enough to cover every retry window of the service many times over, and small enough to save with the workflow. */
const MAX_REMEMBERED = 1000;

/**
 * Records a job ID in the node's static data. Returns false when it was already there: the service
 * sends one message per job, so a second one is a retry or a replay and starts nothing.
 */
export function rememberJob(staticData: IDataObject, jobId: string): boolean {
	const seen = Array.isArray(staticData.seenJobIds) ? (staticData.seenJobIds as string[]) : [];
	if (seen.includes(jobId)) return false;
	seen.push(jobId);
	staticData.seenJobIds = seen.length > MAX_REMEMBERED ? seen.slice(-MAX_REMEMBERED) : seen;
	return true;
}

/** How long this process remembers a delivery it accepted: far longer than n8n needs to save static data. */
const CLAIM_TTL_MS = 15 * 60_000;
const MAX_CLAIMS = 10_000;

/**
 * Deliveries this n8n process accepted recently, by trigger node and job. n8n reads a webhook's static
 * data when a request arrives and saves it after the node answers, so two copies of one delivery that
 * arrive at the same moment both find the job unseen there. They meet here first: a check-and-add on
 * one event loop cannot interleave. (Copies that reach two different n8n processes at the same moment
 * are only caught by the static data; n8n's queue-mode setup routes webhooks to the webhook processes.)
 */
const claims = new Map<string, number>();

export function claimJob(
	scope: string,
	staticData: IDataObject,
	jobId: string,
	now: number,
): boolean {
	for (const [key, at] of claims) {
		if (now - at <= CLAIM_TTL_MS && claims.size <= MAX_CLAIMS) break;
		claims.delete(key);
	}
	const key = `${scope}\n${jobId}`;
	if (claims.has(key)) return false;
	if (!rememberJob(staticData, jobId)) return false;
	claims.set(key, now);
	return true;
}
