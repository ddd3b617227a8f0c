/**
 * Where this package keeps memory between runs: the node's workflow static data, the one store n8n gives
 * a node. Everything else about a list (what to send, the doubt before a charge, settling it from the
 * service) is the client's list run; this module only says where its book lives and what n8n does with it.
 *
 * What n8n does with static data (n8n's source, checked in n8n 2.8.4):
 * - It is saved after every execution that is not manual, whether it succeeded or failed: the
 *   `workflowExecuteAfter` hook in packages/cli/src/execution-lifecycle/execution-lifecycle-hooks.ts saves
 *   it when `this.mode !== 'manual'`, with no check of the status. A manual execution reads it and never
 *   saves it: within that execution it is kept (Retry On Fail sees it), after it, it is gone.
 * - Retry On Fail re-runs the node in the same execution, with the same input and the same static data
 *   object, up to maxTries (default 3, 2 to 5) with waitBetweenTries (default 1 s, at most 5 s) between:
 *   the retry loop in packages/core/src/execution-engine/workflow-execute.ts.
 * - Retrying a failed execution (packages/cli/src/executions/execution.service.ts, `retry`) starts a new
 *   execution in mode `retry` from the failed node. "With the original workflow" runs on the workflow as
 *   the failed execution stored it, static data included as it was when that execution started; "with the
 *   currently saved workflow" loads the saved one, with the static data saved after the failure.
 * So a retried execution may read a memory older than the run it retries: like a manual run, it asks
 * the service before charging a list it does not remember.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { ListBook } from '@evf/client';

const BOOK_KEY = 'listBook';
/** The memory before the list run (one entry per list, `updatedAt` in epoch ms): read once, then replaced. */
const OLD_KEY = 'listMemory';

export interface ListStore {
	/** The book as stored now. */
	read(): unknown;
	/** Stores the book (into the static data object n8n saves after the execution). */
	write(book: ListBook): void;
	/** False in a manual execution: n8n will not save what is written. */
	kept: boolean;
	/** Ask the service before charging a list the book does not know: a manual or retried execution. */
	checkService: boolean;
	/** In words, when the memory will not outlive this execution. */
	whyNotKept?: string;
}

interface OldEntry {
	memory: ListBook['lists'][number]['memory'];
	updatedAt: number;
}

function fromOld(staticData: IDataObject): ListBook | undefined {
	const old = staticData[OLD_KEY] as unknown;
	if (!Array.isArray(old)) return undefined;
	const lists = (old as OldEntry[])
		.filter((e) => e && typeof e.updatedAt === 'number' && e.memory)
		.map((e) => ({ memory: e.memory, lastSeen: new Date(e.updatedAt).toISOString() }));
	return { v: 1, lists };
}

/** The list book of this node, in its static data. */
export function listStore(context: IExecuteFunctions): ListStore {
	const staticData = context.getWorkflowStaticData('node');
	const mode = context.getMode();
	const kept = mode !== 'manual';
	return {
		read: () => staticData[BOOK_KEY] ?? fromOld(staticData),
		write: (book) => {
			staticData[BOOK_KEY] = book as unknown as IDataObject;
			delete staticData[OLD_KEY];
		},
		kept,
		checkService: mode === 'manual' || mode === 'retry',
		...(kept
			? {}
			: {
					whyNotKept:
						'n8n saves no static data for manual executions, so nothing this run sends is remembered after it',
				}),
	};
}

const ANSWERS_KEY = 'answers';
/** Answers are kept for the retries of the run that got them: a day covers a retry the next morning. */
const KEEP_ANSWERS_MS = 24 * 60 * 60_000;
/** Static data is saved with the workflow: the newest answers only. */
const MAX_ANSWERS = 2000;

/** What Verify remembers of one address: its answer, or that a request left with no clear answer. */
export type Remembered =
	| { at: number; state: 'answered'; json: IDataObject }
	| { at: number; state: 'in_doubt'; sentAt: string };

export interface AnswerStore {
	get(key: string): Remembered | undefined;
	set(key: string, value: Remembered): void;
	delete(key: string): void;
}

/**
 * The same answers in this n8n process too, by workflow and node: a retry "with the original workflow"
 * reads the static data as it was before the failed run, and a manual run saves none, but when either
 * runs in the process that got the answers (n8n's regular mode), they are found here. (In queue mode a
 * retry may run on another worker, which only the static data reaches.)
 */
const processAnswers = new Map<string, Remembered>();
const MAX_PROCESS_ANSWERS = 20_000;

/**
 * Verify's answers in the node's static data (and this process), by address and SMTP choice, so Retry
 * On Fail and a retried execution send only the items not answered yet, and never resend one whose
 * answer was lost.
 */
export function answerStore(context: IExecuteFunctions, now: number): AnswerStore {
	const staticData = context.getWorkflowStaticData('node');
	const scope = `${context.getWorkflow().id ?? ''}:${context.getNode().id}:`;
	const raw = staticData[ANSWERS_KEY];
	const all: Record<string, Remembered> =
		raw && typeof raw === 'object' && !Array.isArray(raw)
			? (raw as unknown as Record<string, Remembered>)
			: {};
	const fresh = (value: Remembered | undefined) =>
		!!value && typeof value.at === 'number' && now - value.at <= KEEP_ANSWERS_MS;
	for (const [key, value] of Object.entries(all)) if (!fresh(value)) delete all[key];
	let size = Object.keys(all).length;
	staticData[ANSWERS_KEY] = all as unknown as IDataObject;
	const prune = () => {
		// Oldest first out (an object and a Map keep insertion order, and set() re-inserts), in batches.
		if (size > MAX_ANSWERS * 1.1) {
			const keys = Object.keys(all);
			for (const key of keys.slice(0, keys.length - MAX_ANSWERS)) delete all[key];
			size = MAX_ANSWERS;
		}
		if (processAnswers.size > MAX_PROCESS_ANSWERS * 1.1) {
			const keys = [...processAnswers.keys()];
			for (const key of keys.slice(0, keys.length - MAX_PROCESS_ANSWERS))
				processAnswers.delete(key);
		}
	};
	return {
		get: (key) => {
			if (all[key]) return all[key];
			const known = processAnswers.get(scope + key);
			return fresh(known) ? known : undefined;
		},
		set: (key, value) => {
			if (!(key in all)) size++;
			delete all[key];
			all[key] = value;
			processAnswers.delete(scope + key);
			processAnswers.set(scope + key, value);
			prune();
		},
		delete: (key) => {
			if (key in all) size--;
			delete all[key];
			processAnswers.delete(scope + key);
		},
	};
}
