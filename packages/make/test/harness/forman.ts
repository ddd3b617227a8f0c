/**
 * Make's own parameter validator, Forman (`@makehq/forman-schema`), loaded from the folder that
 * schema-location.ts names. Read on first use, so importing this file never touches that folder.
 */
import { join } from 'node:path';
import { FORMAN_DIR } from './schema-location';

export interface FormanIssue {
  domain?: string;
  path: string;
  message: string;
}

export interface FormanResult {
  valid: boolean;
  errors: FormanIssue[];
  warnings?: FormanIssue[];
}

export interface FormanOptions {
  strict?: boolean;
  allowDynamicValues?: boolean;
  resolveRemote?: (path: string, data: unknown) => Promise<unknown>;
}

interface FormanModule {
  validateForman(values: unknown, schema: unknown, options?: FormanOptions): Promise<FormanResult>;
  toJSONSchema(field: unknown): unknown;
}

let loaded: FormanModule | undefined;

export function forman(): FormanModule {
  loaded ??= require(join(FORMAN_DIR, 'dist', 'index.cjs')) as FormanModule;
  return loaded;
}

/**
 * What the job RPC lists when the harness asks Forman: one job nobody types, so every real Job ID is
 * "not in the list" and passes only because the field is editable and mappable, as a typed or mapped
 * ID would in Make's editor.
 */
export const resolveNoListedJob = async (path: string): Promise<unknown> => {
  if (path === 'rpc://listJobs') return [{ label: 'a job in the dropdown', value: 'job_in_the_dropdown' }];
  throw new Error(`no RPC ${path} in this app`);
};
