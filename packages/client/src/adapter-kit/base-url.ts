/**
 * The service's base URL policy. The API key travels in a header, so the URL is never guessed and is
 * https, except plain http to this machine (the local sandbox); a release build allows no exception.
 * The client checks it on construction; a platform asks for the verdict to word it its own way.
 */
import { InputError } from '../errors';
import { isLoopbackUrl } from '../validation/ip';

export type BaseUrlRule = 'required' | 'syntax' | 'credentials' | 'https';

export interface BaseUrlProblem {
  rule: BaseUrlRule;
  /** The scheme and host that broke the https rule, for the message (never a path or a query). */
  got?: string;
}

export interface BaseUrlPolicy {
  /** Plain http to a loopback host (the sandbox). Default true; a release build passes false. */
  allowLoopbackHttp?: boolean;
}

/** Why a base URL may not carry the key, or undefined when it may. */
export function baseUrlProblem(baseUrl: unknown, policy: BaseUrlPolicy = {}): BaseUrlProblem | undefined {
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') return { rule: 'required' };
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { rule: 'syntax' };
  }
  if (url.username || url.password) return { rule: 'credentials' };
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && (policy.allowLoopbackHttp ?? true) && isLoopbackUrl(baseUrl))
    return undefined;
  return { rule: 'https', got: `${url.protocol}//${url.host}` };
}

/** The client's words for each rule (a platform may word them for its own settings instead). */
export function assertBaseUrl(baseUrl: unknown, policy: BaseUrlPolicy = {}): asserts baseUrl is string {
  const problem = baseUrlProblem(baseUrl, policy);
  if (!problem) return;
  const text = typeof baseUrl === 'string' ? baseUrl.slice(0, 200) : '';
  const message: Record<BaseUrlRule, string> = {
    required: "No base URL was given: set it to the service's API address, which ends in /api.",
    syntax: `The base URL "${text}" is not a URL: it must look like https://<host>/api.`,
    credentials:
      'The base URL must not contain a user name or password; the API key is sent in its own header.',
    https: `The base URL must start with https:// (plain http:// is allowed only for a local sandbox on 127.0.0.1, ::1 or localhost), so the API key never travels in clear text; got "${problem.got}".`,
  };
  throw new InputError('baseUrl', problem.rule, message[problem.rule]);
}
