// validator.js ships no types for its per-function entry points; only isEmail is used, as the baseline.
declare module 'validator/lib/isEmail' {
  export default function isEmail(value: string, options?: Record<string, unknown>): boolean;
}
