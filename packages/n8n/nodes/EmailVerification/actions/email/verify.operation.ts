import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';
import {
	badInputVerdict,
	RateLimitError,
	ServiceUnavailableError,
	VerificationTimeoutError,
	VerificationUncertainError,
	withCategory,
	answeredRowFields,
	type BadInputVerdict,
	type EmailVerificationClient,
} from '@evf/client';
import { errorJson, toNodeError } from '../../helpers/errors';
import { itemFor } from '../../helpers/items';
import { answerStore } from '../../helpers/listMemory';

const properties: INodeProperties[] = [
	{
		displayName: 'Email',
		name: 'email',
		type: 'string',
		placeholder: 'name@example.com',
		default: '',
		required: true,
		description: 'The address to verify (costs 1 credit)',
		hint: "For an AI agent, let the model fill it with $fromAI('email', 'The email address to verify', 'string')",
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Check Mail Server (SMTP)',
				name: 'checkSmtp',
				type: 'boolean',
				default: true,
				description: 'Whether to ask the mail server. Turning it off is faster but less certain.',
			},
			{
				displayName: 'On Bad Input',
				name: 'onBadInput',
				type: 'options',
				default: 'verdict',
				description:
					'What to do with an empty cell, a malformed address or several addresses in one cell',
				options: [
					{
						name: 'Return an Invalid Verdict (Free)',
						value: 'verdict',
						description:
							'Output an item with category Invalid and a reason saying what to fix; nothing is sent or charged',
					},
					{
						name: 'Fail the Node',
						value: 'fail',
						description: 'Stop with an error naming the item (or continue on fail)',
					},
				],
			},
			{
				displayName: 'On Stop Part Way',
				name: 'onStop',
				type: 'options',
				default: 'output',
				description:
					"What to do when the account's allowance (429) or a pause of the service (503) stops the run before every item was sent",
				options: [
					{
						name: 'Output Not-Sent Items',
						value: 'output',
						description:
							'Output the answered items and, for each item not sent, one with sent false and send_after (the time it can go)',
					},
					{
						name: 'Fail the Node',
						value: 'fail',
						description:
							'Stop with an error that says how many items were answered (with Continue On Fail, the answered items still come out)',
					},
				],
			},
			{
				displayName: 'On Timeout',
				name: 'onTimeout',
				type: 'options',
				default: 'output',
				description:
					'What to do when the mail server gives no answer within 30 seconds (the credit is refunded)',
				options: [
					{
						name: 'Output an Item',
						value: 'output',
						description: 'Output the address with timed_out set to true and keep going',
					},
					{ name: 'Fail', value: 'fail', description: 'Stop with an error (or continue on fail)' },
				],
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['email'], operation: ['verify'] } },
	properties,
);

interface VerifyOptions {
	checkSmtp?: boolean;
	onBadInput?: 'verdict' | 'fail';
	onStop?: 'output' | 'fail';
	onTimeout?: 'output' | 'fail';
}

/** The service's own "not now" that stopped the run: nothing more is sent in this execution. */
interface Stop {
	error: StopCause;
	/** When the items not sent can go (ISO 8601), when the service said. */
	sendAfter?: string;
	/** The same time in the workflow's time zone, for the words. */
	sendAfterLocal?: string;
	/** Items that got a verdict (and were charged) before the stop. */
	answered: number;
	/** The first item not sent. */
	at: number;
	/** How the user chose to take it, read from the item that met the stop. */
	mode: 'output' | 'fail';
}

type StopCause = RateLimitError | ServiceUnavailableError;

/**
 * The client throws these only for a proven refusal (the service's JSON and its wait header) it would
 * not wait out itself, so the address was not charged and may go again later.
 */
function isStopCause(error: unknown): error is StopCause {
	return error instanceof RateLimitError || error instanceof ServiceUnavailableError;
}

/** A time as n8n's users set the workflow's clock: its time zone (Settings > Timezone). */
function localTime(iso: string, timeZone: string): string {
	try {
		const text = new Intl.DateTimeFormat('en-CA', {
			timeZone,
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			hourCycle: 'h23',
		}).format(new Date(iso));
		return `${text.replace(',', '')} ${timeZone}`;
	} catch {
		return iso;
	}
}

function stopOf(
	error: StopCause,
	at: number,
	answered: number,
	mode: Stop['mode'],
	timeZone: string,
): Stop {
	const sendAfter = error.retryAt === undefined ? undefined : new Date(error.retryAt).toISOString();
	const sendAfterLocal = sendAfter === undefined ? undefined : localTime(sendAfter, timeZone);
	return { error, sendAfter, sendAfterLocal, answered, at, mode };
}

function cellText(cell: unknown): string {
	return typeof cell === 'string' ? cell.trim() : String(cell ?? '').trim();
}

/** An item the stop kept from being sent: what it is, why, and when it can go. */
function notSentJson(cell: unknown, stop: Stop): IDataObject {
	const why =
		stop.error instanceof RateLimitError
			? "the account's API allowance is used up for now (it counts verified addresses and all the account's keys share it)"
			: 'the service paused new work for now';
	const when = stop.sendAfter
		? `Verify it again after ${stop.sendAfterLocal} (send_after, ${stop.sendAfter}: map it into a Wait node's time or a sheet column).`
		: 'Verify it again later.';
	return {
		email: cellText(cell),
		sent: false,
		status: 'not_sent',
		stopped_by: stop.error instanceof RateLimitError ? 'allowance' : 'paused',
		...(stop.sendAfter ? { send_after: stop.sendAfter } : {}),
		reason: `Not sent: ${why}. Nothing was charged for this address. ${when}`,
		credits_used: 0,
		timed_out: false,
	};
}

/** The stop as an n8n error that says what was answered and what was not. */
function stopError(
	context: IExecuteFunctions,
	stop: Stop,
	itemIndex: number,
	total: number,
): NodeApiError | NodeOperationError {
	const error = toNodeError(context.getNode(), stop.error, itemIndex) as
		| NodeApiError
		| NodeOperationError;
	const notSent = total - stop.at;
	error.description = [
		`${stop.answered} of ${total} items were answered (and charged) before this stop; ${notSent === 1 ? `item ${stop.at + 1} was` : `items ${stop.at + 1} to ${total} were`} not sent (bad cells among them get their free verdict)${stop.sendAfter ? ` and can go after ${stop.sendAfterLocal} (${stop.sendAfter})` : ''}.`,
		'Set "On Stop Part Way" to "Output Not-Sent Items", or turn on Continue On Fail, to keep the answered items; then run only the items not sent.',
		error.description,
	]
		.filter(Boolean)
		.join(' ');
	error.context.answered = stop.answered;
	error.context.notSent = notSent;
	if (stop.sendAfter) error.context.sendAfter = stop.sendAfter;
	return error;
}

function badInputError(
	context: IExecuteFunctions,
	bad: BadInputVerdict,
	itemIndex: number,
): NodeOperationError {
	return new NodeOperationError(context.getNode(), bad.reason, {
		itemIndex,
		description:
			'Set "On Bad Input" to "Return an Invalid Verdict (Free)" to route such rows as invalid instead.',
	});
}

/** The item's answer, or the service's "not now" that stops the run (returned, to be kept whole). */
async function verifyOne(
	context: IExecuteFunctions,
	client: EmailVerificationClient,
	cell: unknown,
	options: VerifyOptions,
	itemIndex: number,
): Promise<IDataObject | StopCause | LostAnswer> {
	try {
		const result = await client.verifyCell(cell, {
			check_smtp: options.checkSmtp,
			signal: context.getExecutionCancelSignal(),
		});
		// An Unknown answer says when to try again; the count goes on from the item's verify_attempts.
		const earlier = context.getInputData()[itemIndex]?.json?.verify_attempts;
		return {
			...withCategory(result),
			timed_out: false,
			...answeredRowFields(earlier, result, Date.now()),
		} as unknown as IDataObject;
	} catch (error) {
		if (error instanceof VerificationTimeoutError && (options.onTimeout ?? 'output') === 'output') {
			return {
				email: cellText(cell),
				timed_out: true,
				credits_refunded: true,
				message: error.message,
			};
		}
		if (isStopCause(error)) return error;
		// Told apart from a refusal: its address stays marked in doubt, so no retry sends it again.
		if (error instanceof VerificationUncertainError)
			return new LostAnswer(toNodeError(context.getNode(), error, itemIndex));
		throw toNodeError(context.getNode(), error, itemIndex);
	}
}

/** A request that left with no clear answer: it may have been charged. */
class LostAnswer {
	constructor(readonly error: Error) {}
}

/**
 * Requests in flight at once. The spec limits addresses (the allowance), not requests, and a single
 * verification may take up to 30 s: five at once keep 20 items at 5 s per answer to about 20 s, and a
 * 429 or 503 stops at most four more requests, each free.
 */
export const VERIFY_CONCURRENCY = 5;

type Slot =
	| { kind: 'json'; json: IDataObject; paid: boolean }
	| { kind: 'stop'; cause: StopCause }
	| { kind: 'not_sent' }
	| { kind: 'error'; error: unknown };

/** An item whose request left with no clear answer, in an earlier try of this run: never sent again. */
function inDoubtJson(cell: unknown, sentAt: string): IDataObject {
	return {
		email: cellText(cell),
		sent: true,
		status: 'in_doubt',
		reason: `Sent at ${sentAt} with no clear answer: it may have been verified and charged 1 credit. Not sent again, so it is never charged twice; verify it again after a day to get its answer.`,
		credits_used: 0,
		timed_out: false,
	};
}

/** The key of an address in Verify's memory: the address as sent and the SMTP choice. */
function memoryKey(cell: unknown, options: VerifyOptions): string {
	return `${cellText(cell).toLowerCase()}|${options.checkSmtp !== false}`;
}

/**
 * Verifies the input items, VERIFY_CONCURRENCY at a time, and outputs them in input order, each paired
 * with its item. A bad cell is a free verdict (nothing sent). Each answer is remembered (static data,
 * a day) before the next try could need it, and each request is marked in doubt before it leaves, so
 * Retry On Fail and a retried execution send only the items not answered, and never resend one whose
 * answer was lost. When the service stops the run with its own "not now" (429, 503), nothing more is
 * sent, and the items already answered are kept: they were paid for.
 */
export async function execute(
	this: IExecuteFunctions,
	client: EmailVerificationClient,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const memory = answerStore(this, Date.now());
	const slots: Slot[] = [];
	let stopped = false;
	let halted = false;
	let next = 0;
	const one = async (i: number): Promise<Slot> => {
		const cell: unknown = this.getNodeParameter('email', i);
		const options = this.getNodeParameter('options', i, {}) as VerifyOptions;
		const bad = badInputVerdict(cell);
		if (bad) {
			if (options.onBadInput === 'fail') throw badInputError(this, bad, i);
			return {
				kind: 'json',
				json: { ...bad, timed_out: false } as unknown as IDataObject,
				paid: false,
			};
		}
		if (stopped) return { kind: 'not_sent' };
		const key = memoryKey(cell, options);
		const known = memory.get(key);
		if (known?.state === 'answered')
			return { kind: 'json', json: { ...known.json, answered_earlier: true }, paid: false };
		if (known?.state === 'in_doubt')
			return { kind: 'json', json: inDoubtJson(cell, known.sentAt), paid: false };
		memory.set(key, { at: Date.now(), state: 'in_doubt', sentAt: new Date().toISOString() });
		let answer: Awaited<ReturnType<typeof verifyOne>>;
		try {
			answer = await verifyOne(this, client, cell, options, i);
		} catch (error) {
			// A refusal charged nothing: the mark goes.
			memory.delete(key);
			return { kind: 'error', error };
		}
		// The mark stays: the answer was lost, and the address may have been charged.
		if (answer instanceof LostAnswer) return { kind: 'error', error: answer.error };
		if (isStopCause(answer)) {
			memory.delete(key);
			stopped = true;
			return { kind: 'stop', cause: answer };
		}
		// A 408 is refunded: only verdicts count as paid for, and only they are remembered.
		if (answer.timed_out === true) memory.delete(key);
		else memory.set(key, { at: Date.now(), state: 'answered', json: answer });
		return { kind: 'json', json: answer, paid: answer.timed_out !== true };
	};
	const worker = async () => {
		while (next < items.length && !halted) {
			const i = next++;
			try {
				slots[i] = await one(i);
			} catch (error) {
				slots[i] = { kind: 'error', error };
			}
			// Without Continue On Fail the node fails at this item: send nothing more.
			if (slots[i]!.kind === 'error' && !this.continueOnFail()) halted = true;
		}
	};
	await Promise.all(Array.from({ length: Math.min(VERIFY_CONCURRENCY, items.length) }, worker));

	const out: INodeExecutionData[] = [];
	let stop: Stop | undefined;
	let answered = 0;
	const firstStop = slots.find(
		(slot): slot is Extract<Slot, { kind: 'stop' }> => slot?.kind === 'stop',
	);
	for (let i = 0; i < items.length; i++) {
		const slot = slots[i];
		try {
			if (!slot)
				throw new NodeOperationError(this.getNode(), 'Not sent: an earlier item failed the node.', {
					itemIndex: i,
				});
			if (slot.kind === 'error') throw slot.error;
			if (slot.kind === 'json') {
				out.push(itemFor(slot.json, i));
				if (slot.paid) answered++;
				continue;
			}
			const options = this.getNodeParameter('options', i, {}) as VerifyOptions;
			stop ??= stopOf(
				firstStop!.cause,
				i,
				answered,
				options.onStop ?? 'output',
				this.getTimezone(),
			);
			if (stop.mode === 'fail' && !this.continueOnFail())
				throw stopError(this, stop, i, items.length);
			const cell: unknown = this.getNodeParameter('email', i);
			// With Continue On Fail, a chosen failure is an error item that still says when it can go.
			const json =
				stop.mode === 'output'
					? notSentJson(cell, stop)
					: { ...notSentJson(cell, stop), ...errorJson(stopError(this, stop, i, items.length)) };
			out.push(itemFor(json, i));
		} catch (error) {
			const nodeError = toNodeError(this.getNode(), error, i);
			if (!this.continueOnFail()) throw nodeError;
			out.push(itemFor(errorJson(nodeError), i));
		}
	}
	return out;
}
