/**
 * The reads pagination and waiting need, in a module of its own so that neither imports the other
 * for it (the client implements it).
 */
import type { Job, JobList, ListJobsParams, ResultsPage, ResultsPageParams } from '../types';
import type { RequestOptions } from './http';
import type { Runtime } from './runtime';

export interface JobReader {
  readonly runtime: Runtime;
  getJob(jobId: string, opts?: RequestOptions): Promise<Job>;
  listJobs(params?: ListJobsParams, opts?: RequestOptions): Promise<JobList>;
  getResultsPage(jobId: string, params?: ResultsPageParams, opts?: RequestOptions): Promise<ResultsPage>;
}
