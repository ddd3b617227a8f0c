/**
 * The rows of one job repeat most of what they hold: the same status and reason strings, the same
 * label reasons and tags, often the same details for every address at one domain. JSON.parse gives
 * each row its own copy of all of it. A platform that keeps a whole job's rows at once (n8n holds
 * them as items, then serializes the execution once or twice) pays for every copy, and in a
 * 512 MiB container that decides whether a 50,000-row job finishes or the process runs out of heap.
 *
 * A row sharer gives each repeated part once: equal strings become one string, and a nested array or
 * object (a row's `details`, its `tags`, `label_reasons`) equal to one seen before becomes that same
 * object. Shared parts are frozen, so a step that tried to change one row's part in place fails loudly
 * instead of changing it in every row that shares it. The row object itself stays the caller's, unshared
 * and writable. The values are equal to what came in: only memory changes.
 */

export interface RowSharerOptions {
  /** Top-level fields whose values differ on every row (the address): never remembered. */
  distinctFields?: readonly string[];
  /** How many distinct strings and parts to remember; past it new ones are kept as they are. */
  maxRemembered?: number;
}

/** Longer strings are rarely repeated word for word, and keying them costs more than sharing saves. */
const MAX_SHARED_STRING = 256;
const MAX_PART_KEY = 2048;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Returns a function that rewrites a row's values in place to the shared ones and returns the row. */
export function createRowSharer(options: RowSharerOptions = {}): <T extends object>(row: T) => T {
  const distinct = new Set(options.distinctFields ?? ['email']);
  const max = options.maxRemembered ?? 5_000;
  const strings = new Map<string, string>();
  const parts = new Map<string, Json>();

  const shareString = (value: string): string => {
    if (value.length > MAX_SHARED_STRING) return value;
    const known = strings.get(value);
    if (known !== undefined) return known;
    if (strings.size < max) strings.set(value, value);
    return value;
  };

  const share = (value: Json): Json => {
    if (typeof value === 'string') return shareString(value);
    if (value === null || typeof value !== 'object') return value;
    let part: Json;
    if (Array.isArray(value)) part = value.map(share);
    else {
      const object: { [key: string]: Json } = {};
      for (const key of Object.keys(value)) {
        // JSON.parse makes "__proto__" an own field; plain assignment would set the prototype instead.
        if (key === '__proto__')
          Object.defineProperty(object, key, {
            value: share(value[key]!),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        else object[key] = share(value[key]!);
      }
      part = object;
    }
    const key = JSON.stringify(part);
    if (key.length > MAX_PART_KEY) return Object.freeze(part) as Json;
    const known = parts.get(key);
    if (known !== undefined) return known;
    Object.freeze(part);
    if (parts.size < max) parts.set(key, part);
    return part;
  };

  return <T extends object>(row: T): T => {
    const fields = row as unknown as { [key: string]: Json };
    for (const key of Object.keys(fields)) {
      const value = fields[key]!;
      if (distinct.has(key)) continue;
      fields[key] = share(value);
    }
    return row;
  };
}
