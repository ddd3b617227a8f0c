/**
 * Make checks a module's parameters against their spec before the module runs (a "Validation failed"
 * DataError), so bad input never reaches the service. This applies the rules this app's parameters
 * use: required, default, type (text, password, email, url, uinteger, boolean, select, array, any),
 * validate.pattern / min / max / minItems / maxItems, and array item specs.
 * Make's own check for the `email` and `url` types is not published; the app does not rely on it:
 * every such parameter carries its own validate.pattern, which is what is applied here.
 */
import type { Json } from './app-files';

export interface ParamSpec {
  name?: string;
  label?: string;
  type: string;
  required?: boolean;
  default?: unknown;
  options?: unknown;
  spec?: ParamSpec | ParamSpec[];
  validate?: { pattern?: string; min?: number; max?: number; minItems?: number; maxItems?: number };
}

export class ParamValidationError extends Error {
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(`Validation failed for parameter '${parameter}': ${message}`);
    this.name = 'ParamValidationError';
  }
}

function checkOne(spec: ParamSpec, value: unknown, where: string): unknown {
  const v = spec.validate ?? {};
  switch (spec.type) {
    case 'text':
    case 'password':
    case 'email':
    case 'url': {
      if (typeof value !== 'string') throw new ParamValidationError(where, 'must be text');
      if (v.min !== undefined && value.length < v.min)
        throw new ParamValidationError(where, `must be at least ${v.min} characters`);
      if (v.max !== undefined && value.length > v.max)
        throw new ParamValidationError(where, `must be at most ${v.max} characters (it has ${value.length})`);
      if (v.pattern !== undefined && !new RegExp(v.pattern).test(value))
        throw new ParamValidationError(where, `"${value.slice(0, 80)}" is not in the expected form`);
      return value;
    }
    case 'uinteger':
    case 'integer':
    case 'number': {
      // A number, not text that reads as one, and no bound the spec does not state: Make's Forman
      // validator refuses "10" for a number field and leaves the sign of a uinteger to validate.min
      // (test/forman.test.ts compares the two).
      const n = value;
      if (typeof n !== 'number' || !Number.isFinite(n))
        throw new ParamValidationError(where, 'must be a number');
      if (spec.type !== 'number' && !Number.isInteger(n))
        throw new ParamValidationError(where, 'must be a whole number');
      if (v.min !== undefined && n < v.min)
        throw new ParamValidationError(where, `must be at least ${v.min}`);
      if (v.max !== undefined && n > v.max) throw new ParamValidationError(where, `must be at most ${v.max}`);
      return n;
    }
    case 'boolean': {
      if (value === 'true' || value === true) return true;
      if (value === 'false' || value === false) return false;
      throw new ParamValidationError(where, 'must be Yes or No');
    }
    case 'select': {
      if (Array.isArray(spec.options)) {
        const allowed = (spec.options as { value: unknown }[]).map((o) => o.value);
        if (!allowed.includes(value))
          throw new ParamValidationError(where, `must be one of ${allowed.join(', ')}`);
      } else if (typeof value !== 'string' || value === '') {
        throw new ParamValidationError(where, 'must be chosen or mapped');
      }
      return value;
    }
    case 'array': {
      if (!Array.isArray(value)) throw new ParamValidationError(where, 'must be an array');
      if (v.minItems !== undefined && value.length < v.minItems)
        throw new ParamValidationError(where, `needs at least ${v.minItems} item(s)`);
      if (v.maxItems !== undefined && value.length > v.maxItems)
        throw new ParamValidationError(where, `takes at most ${v.maxItems} items (it has ${value.length})`);
      const item = spec.spec;
      if (item && !Array.isArray(item)) return value.map((x, i) => checkOne(item, x, `${where}[${i + 1}]`));
      return value;
    }
    case 'any':
      return value;
    default:
      throw new Error(`Parameter type ${spec.type} is not supported by this checker`);
  }
}

/**
 * Applies defaults and checks every parameter; returns the values the module would run with. A field the
 * form does not show (not a parameter, or nested under a select option not chosen) is refused, as Make's
 * validator does in strict mode ("Unknown field").
 */
export function validateParameters(
  specs: ParamSpec[],
  input: Record<string, unknown>,
): Record<string, unknown> {
  const shown = new Set<string>();
  const out = checkShown(specs, input, shown);
  for (const key of Object.keys(input)) {
    if (!shown.has(key)) throw new ParamValidationError(key, 'unknown field: the form shows no such field');
  }
  return out;
}

function checkShown(
  specs: ParamSpec[],
  input: Record<string, unknown>,
  shown: Set<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of specs) {
    const name = spec.name!;
    const label = spec.label ?? name;
    shown.add(name);
    let value = input[name];
    const empty = (v: unknown) => v === undefined || v === null || v === '';
    // A required field's default only prefills the editor's form: the module's mapper must hold a value,
    // and Make's own validator (Forman) refuses one without it ("Field is mandatory"), default or not.
    if (empty(value) && spec.required) throw new ParamValidationError(label, 'a value is required');
    if (empty(value)) value = spec.default;
    if (empty(value)) continue;
    out[name] = checkOne(spec, value, label);
    // A select option's nested fields appear (and are checked) only when that option is chosen
    // (https://developers.make.com/custom-apps-documentation/component-blocks/parameters/select, nested).
    if (spec.type === 'select' && Array.isArray(spec.options)) {
      const chosen = (spec.options as { value: unknown; nested?: ParamSpec[] }[]).find(
        (o) => o.value === value,
      );
      if (Array.isArray(chosen?.nested)) Object.assign(out, checkShown(chosen.nested, input, shown));
    }
  }
  return out;
}

/** Every field a parameter list can show: the fields and the fields nested in their select options. */
export function allFieldNames(specs: ParamSpec[]): string[] {
  return specs.flatMap((spec) => [
    spec.name!,
    ...(spec.type === 'select' && Array.isArray(spec.options)
      ? (spec.options as { nested?: ParamSpec[] }[]).flatMap((o) =>
          Array.isArray(o.nested) ? allFieldNames(o.nested) : [],
        )
      : []),
  ]);
}

export function asSpecs(value: Json): ParamSpec[] {
  return value as unknown as ParamSpec[];
}
