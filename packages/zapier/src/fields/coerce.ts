/**
 * Zapier hands inputs over as the user typed or mapped them: booleans may arrive as "true"/"false",
 * and empty optional fields as "" (cleanInputData is not relied on). These read them as the client expects.
 */
export function optionalBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().toLowerCase();
  if (['true', 'yes', '1', 'on'].includes(text)) return true;
  if (['false', 'no', '0', 'off'].includes(text)) return false;
  return undefined;
}

export function optionalString(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = String(value);
  return text.trim() === '' ? undefined : text;
}

/** A list field's value: Zapier gives an array, or a single string when one value was mapped. */
export function stringList(value: unknown): string[] {
  if (value === undefined || value === null || value === '') return [];
  const items = Array.isArray(value) ? value : [value];
  return items.filter((item) => item !== undefined && item !== null).map((item) => String(item));
}
