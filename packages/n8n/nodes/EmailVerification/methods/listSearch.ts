import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { createClient } from '../transport';
import { toNodeError } from '../helpers/errors';

/** The job picker: recent jobs, newest first, filtered by the text typed into the list. */
export async function searchJobs(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	try {
		const client = await createClient(this);
		const wanted = filter?.trim().toLowerCase();
		const results: INodeListSearchResult['results'] = [];
		for await (const job of client.jobs({ maxItems: 100 })) {
			const name = `${job.job_id} (${job.status}, ${job.total_emails} addresses, ${job.created_at})`;
			if (wanted && !name.toLowerCase().includes(wanted)) continue;
			results.push({ name, value: job.job_id });
		}
		return { results };
	} catch (error) {
		throw toNodeError(this.getNode(), error);
	}
}
