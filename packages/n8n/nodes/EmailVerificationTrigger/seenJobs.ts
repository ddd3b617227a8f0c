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
