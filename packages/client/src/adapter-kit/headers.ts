/**
 * Response headers as the client reads them: names in lower case, one string per name. Each platform
 * hands them over differently (a fetch `Headers`, node-fetch's `Headers`, axios' object with arrays).
 */
export type HeaderSource =
  | Record<string, unknown>
  | { forEach(cb: (value: string, name: string) => void): void };

export function lowerCaseHeaders(headers: HeaderSource | undefined | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  const add = (name: string, value: unknown) => {
    if (value === undefined || value === null) return;
    const text = Array.isArray(value) ? value.map(String).join(', ') : String(value);
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}, ${text}` : text;
  };
  if (typeof headers.forEach === 'function')
    (headers as { forEach(cb: (value: string, name: string) => void): void }).forEach((value, name) =>
      add(name, value),
    );
  else for (const [name, value] of Object.entries(headers)) add(name, value);
  return out;
}
