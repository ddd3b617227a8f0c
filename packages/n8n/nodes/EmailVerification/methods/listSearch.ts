import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import type { JobListItem } from '@evf/client';
import { clientFor } from '../transport';
import { toNodeError } from '../helpers/errors';

type LabelledJob = Pick<
	JobListItem,
	'job_id' | 'status' | 'total_emails' | 'progress_percent' | 'created_at'
>;

function dateParts(date: Date, timeZone: string): Record<string, string> {
	let format: Intl.DateTimeFormat;
	try {
		format = new Intl.DateTimeFormat('en-GB', {
			timeZone,
			year: 'numeric',
			month: 'short',
			day: 'numeric',
			hour: '2-digit',
			minute: '2-digit',
			hourCycle: 'h23',
		});
	} catch {
		// An instance timezone this runtime does not know: UTC, and the label says so.
		return { ...dateParts(date, 'UTC'), zone: ' UTC' };
	}
	const parts: Record<string, string> = { zone: '' };
	for (const part of format.formatToParts(date)) parts[part.type] = part.value;
	return parts;
}

/**
 * What a user tells jobs apart by, e.g. "3 addresses · completed · 26 Nov 04:39" in the instance's
 * timezone (the year only when it is not this year). The job ID stays the value, not the label.
 */
export function jobLabel(job: LabelledJob, timeZone: string, now = new Date()): string {
	const count = `${job.total_emails.toLocaleString('en-US')} ${job.total_emails === 1 ? 'address' : 'addresses'}`;
	const status =
		job.status === 'processing' && Number.isFinite(job.progress_percent)
			? `processing ${Math.floor(job.progress_percent)}%`
			: job.status;
	const created = new Date(job.created_at);
	if (Number.isNaN(created.getTime())) return `${count} · ${status}`;
	const when = dateParts(created, timeZone);
	const year = when.year !== dateParts(now, timeZone).year ? ` ${when.year}` : '';
	return `${count} · ${status} · ${when.day} ${when.month}${year} ${when.hour}:${when.minute}${when.zone}`;
}

/** The job picker: recent jobs, newest first, filtered by the text typed into the list (label or ID). */
export async function searchJobs(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	try {
		const client = await clientFor(this);
		const timeZone = this.getTimezone();
		const wanted = filter?.trim().toLowerCase();
		const results: INodeListSearchResult['results'] = [];
		for await (const job of client.jobs({ maxItems: 100 })) {
			const name = jobLabel(job, timeZone);
			if (wanted && !`${name} ${job.job_id}`.toLowerCase().includes(wanted)) continue;
			results.push({ name, value: job.job_id });
		}
		return { results };
	} catch (error) {
		throw toNodeError(this.getNode(), error);
	}
}
