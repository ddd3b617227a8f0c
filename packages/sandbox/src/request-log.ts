/** A request as the sandbox saw it: no headers and no body, so no key or secret can leak through it. */
export interface RequestLogEntry {
  method: string;
  /** Path under the base URL, e.g. /v1/jobs/job_1/results. */
  path: string;
  query: Record<string, string>;
  at: string;
}
