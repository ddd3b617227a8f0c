/**
 * Rules from Zapier's integration checks reference
 * (https://docs.zapier.com/platform/publish/integration-checks-reference), shared by the definition
 * checks (conventions.test.ts) and the live-output checks (live-outputs.sandbox.test.ts).
 */

/** D023/T003: a date alone, or a date and time with a zone (Z or an offset). */
export const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
export const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
/** A string that starts like a date, and so must be one of the forms above. */
export const DATE_LIKE = /^\d{4}-\d{2}-\d{2}/;

export function isIsoDate(text: string): boolean {
  return ISO_DATE.test(text) || ISO_WITH_ZONE.test(text);
}

export interface TypedField {
  type?: string;
  list?: boolean;
}

/**
 * D024/T005: a value matches its output field's type. null is an empty value, allowed for any type; an
 * array of objects is line items, described by its `key[]child` fields; an array of values needs
 * `list: true`.
 */
export function typeMatches(field: TypedField, value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every((v) => v !== null && typeof v === 'object')) return true;
    return field.list === true && value.every((v) => typeMatches({ ...field, list: false }, v));
  }
  switch (field.type) {
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'datetime':
      return typeof value === 'string' && isIsoDate(value);
    default:
      return typeof value === 'string';
  }
}
