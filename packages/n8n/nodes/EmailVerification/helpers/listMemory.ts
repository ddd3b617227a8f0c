/**
 * Where Submit keeps the client's replay memory (nextSend / rememberRun) between executions: the node's
 * workflow static data, the one store n8n gives a node across runs. n8n saves it only for an active
 * workflow started by its trigger, and only when the execution succeeds (docs.n8n.io, "getWorkflowStaticData":
 * "Static data isn't available when testing workflows"); a manual run reads it but never saves it. So the
 * memory is a safety net for scheduled reruns and replays, and the node's output (`unsent`,
 * `continue_after`) stays the way a flow continues a list.
 */
import type { IDataObject } from 'n8n-workflow';
import {
	nextSend,
	rememberRun,
	type ListMemory,
	type ListSubmission,
	type NextSend,
} from '@evf/client';

interface Entry {
	memory: ListMemory;
	/** When a run last changed it (epoch ms), to let a finished list go. */
	updatedAt: number;
}

/** Static data is saved with the workflow: a few lists at a time, never an unbounded log. */
const MAX_LISTS = 20;
/**
 * A finished list is kept for a day after the run that finished it: a replay at once or the next
 * scheduled run charges nothing, and verifying the same list again later (a new intent) is not blocked.
 */
const KEEP_FINISHED_MS = 24 * 60 * 60_000;

const KEY = 'listMemory';

function entriesOf(staticData: IDataObject, now: number): Entry[] {
	const raw = Array.isArray(staticData[KEY]) ? (staticData[KEY] as unknown as Entry[]) : [];
	return raw.filter(
		(e) =>
			e &&
			typeof e === 'object' &&
			e.memory &&
			Array.isArray(e.memory.lists) &&
			(e.memory.unsent.length > 0 || now - e.updatedAt <= KEEP_FINISHED_MS),
	);
}

export interface Remembered {
	next: NextSend;
	memory: ListMemory;
}

/** The memory of this list, and what it says to send now; undefined for a list no run stopped part way. */
export function recall(
	staticData: IDataObject,
	emails: string | readonly unknown[],
	now: number,
): Remembered | undefined {
	for (const entry of entriesOf(staticData, now)) {
		const next = nextSend(emails, entry.memory, now);
		if (next.remembered) return { next, memory: entry.memory };
	}
	return undefined;
}

/**
 * Records a run, whether it sent the whole list or stopped part way: a replay of either charges nothing
 * (no replay charges an address twice). A finished list is let go a day later, and the
 * option can be turned off to verify a list again at once.
 */
export function record(
	staticData: IDataObject,
	emails: string | readonly unknown[],
	previous: ListMemory | undefined,
	run: Pick<ListSubmission, 'jobs' | 'unsent' | 'unsentAfter' | 'stoppedBy'>,
	now: number,
): void {
	if (!previous && run.jobs.length === 0 && run.unsent.length === 0) return;
	const memory = rememberRun(previous, emails, run);
	const others = entriesOf(staticData, now).filter((e) => e.memory !== previous);
	staticData[KEY] = [{ memory, updatedAt: now }, ...others].slice(
		0,
		MAX_LISTS,
	) as unknown as IDataObject[];
}
