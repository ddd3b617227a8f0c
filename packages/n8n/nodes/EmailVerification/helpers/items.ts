import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IPairedItemData,
} from 'n8n-workflow';
import { errorJson, toNodeError } from './errors';

/** The link from an output item to the input item(s) it came from. */
export function pairedItemFor(
	from: number | readonly number[],
): IPairedItemData | IPairedItemData[] {
	return typeof from === 'number' ? { item: from } : from.map((item) => ({ item }));
}

/** One output item linked to the input item(s) it came from. */
export function itemFor(json: IDataObject, from: number | readonly number[]): INodeExecutionData {
	return { json, pairedItem: pairedItemFor(from) };
}

/** Reads a possibly nested field ("contact.email") from an item's JSON. */
export function readField(json: IDataObject, path: string): unknown {
	if (Object.prototype.hasOwnProperty.call(json, path)) return json[path];
	let value: unknown = json;
	for (const key of path.split('.')) {
		if (value === null || typeof value !== 'object') return undefined;
		value = (value as IDataObject)[key];
	}
	return value;
}

/** Simplify's fields. */
export const SIMPLE_RESULT_FIELDS = [
	'email',
	'category',
	'group',
	'safe_to_send',
	'status',
	'score',
	'reason',
] as const;

/** What a sheet needs from a result row: the smallest output, for large jobs on small containers. */
export const SHEET_RESULT_FIELDS = [
	'email',
	'category',
	'group',
	'safe_to_send',
	'reason',
] as const;

/** A row with only the named fields (those it has). */
export function pickFields(row: IDataObject, keys: readonly string[]): IDataObject {
	const out: IDataObject = {};
	for (const key of keys) if (row[key] !== undefined) out[key] = row[key];
	return out;
}

/**
 * Runs `run` for each input item. With "Continue On Fail" a failing item becomes an error item linked
 * to it and the others go on; without it the first failure stops the node, naming the item.
 */
export async function forEachItem(
	context: IExecuteFunctions,
	items: readonly INodeExecutionData[],
	run: (itemIndex: number) => Promise<INodeExecutionData[]>,
): Promise<INodeExecutionData[]> {
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			for (const item of await run(i)) out.push(item);
		} catch (error) {
			const nodeError = toNodeError(context.getNode(), error, i);
			if (!context.continueOnFail()) throw nodeError;
			out.push(itemFor(errorJson(nodeError), i));
		}
	}
	return out;
}
