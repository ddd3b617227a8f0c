import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './errors';

/** Reads the body up to a limit; a list of 50,000 long addresses is about 13 MB of JSON. */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > maxBytes) {
      throw new HttpError(413, 'payload_too_large', `The request body is larger than ${maxBytes} bytes.`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function readJsonObject(
  req: IncomingMessage,
  maxBytes: number,
): Promise<Record<string, unknown>> {
  const text = await readBody(req, maxBytes);
  if (text.trim() === '') {
    throw new HttpError(
      400,
      'invalid_json',
      'The request body is empty; send a JSON object with Content-Type: application/json.',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HttpError(400, 'invalid_json', 'The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/**
 * Parses an integer query parameter: absent -> default; present but not a whole number in range -> 422
 * naming the parameter and the allowed range.
 */
export function intParam(
  query: URLSearchParams,
  name: string,
  { def, min, max }: { def: number; min: number; max?: number },
): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return def;
  const value = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  const range = max === undefined ? `${min} or more` : `${min} to ${max}`;
  if (!Number.isSafeInteger(value)) {
    throw new HttpError(
      422,
      'invalid_request',
      `${name} must be a whole number (${range}); got "${raw.slice(0, 40)}".`,
      {
        field: name,
        rule: 'integer',
      },
    );
  }
  if (value < min || (max !== undefined && value > max)) {
    throw new HttpError(422, 'invalid_request', `${name} must be ${range}; got ${value}.`, {
      field: name,
      rule: max !== undefined && value > max ? 'maximum' : 'minimum',
      minimum: min,
      ...(max !== undefined ? { maximum: max } : {}),
    });
  }
  return value;
}
