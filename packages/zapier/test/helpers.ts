import { createAppTester, type Bundle, type ZObject } from 'zapier-platform-core';
import App from '../src/index';

export const ORIGIN = 'https://api.evf.test';
export const BASE = `${ORIGIN}/api`;
export const KEY = 'evf_zapier_unit_key_7c1e2b';
export const SECRET = 'whsec_zapier_unit_secret_9d4f1a';

export const appTester = createAppTester(App);
export { App };

export type AnyBundle = Partial<Omit<Bundle, 'meta'>> & { meta?: Partial<Bundle['meta']> };

/** A perform-like function of the app, as the tests call it (the app's types allow request objects too). */
export type Step = (z: ZObject, bundle: Bundle<any>) => unknown;

function callable(value: unknown, where: string): Step {
  if (typeof value !== 'function') throw new Error(`${where} is not a function`);
  return value as Step;
}

/** Every function of the app definition that the tests run. */
export const steps = {
  authTest: callable(App.authentication?.test, 'authentication.test'),
  connectionLabel: callable(App.authentication?.connectionLabel, 'authentication.connectionLabel'),
  verify: callable(App.creates.verify_email.operation.perform, 'verify_email.perform'),
  bulk: callable(App.creates.submit_bulk.operation.perform, 'submit_bulk.perform'),
  wait: callable(App.creates.verify_list_and_wait.operation.perform, 'verify_list_and_wait.perform'),
  resume: callable(
    App.creates.verify_list_and_wait.operation.performResume,
    'verify_list_and_wait.performResume',
  ),
  revoke: callable(App.creates.revoke_api_key.operation.perform, 'revoke_api_key.perform'),
  findJob: callable(App.searches.find_job.operation.perform, 'find_job.perform'),
  results: callable(App.searches.find_job_results.operation.perform, 'find_job_results.perform'),
  credits: callable(App.creates.get_credit_balance.operation.perform, 'get_credit_balance.perform'),
  below: callable(
    (App.triggers.credit_balance_below.operation as { perform?: unknown }).perform,
    'credit_balance_below.perform',
  ),
  finished: callable(
    (App.triggers.job_finished.operation as { perform?: unknown }).perform,
    'job_finished.perform',
  ),
  recent: callable(
    (App.triggers.recent_jobs.operation as { perform?: unknown }).perform,
    'recent_jobs.perform',
  ),
};

/** Runs one app function through Zapier's app tester (middleware, z object, error handling). */
export function run(step: Step, b: AnyBundle = {}): Promise<any> {
  return appTester(step as (z: ZObject, bundle: Bundle) => unknown, b as Parameters<typeof appTester>[1]);
}

/** A bundle with the test connection; pieces given here override it. */
export function bundle(inputData: Record<string, unknown> = {}, extra: AnyBundle = {}): AnyBundle {
  return { authData: { api_key: KEY }, inputData, ...extra };
}

/**
 * The app's own words: the app tester (like Zapier) appends "What happened: Executing <method> with
 * bundle ..." to an error's message; that part is Zapier's, not what this app wrote.
 */
function ownWords(message: string): string {
  const at = message.indexOf('\nWhat happened:');
  return at >= 0 ? message.slice(0, at) : message;
}

/** Zapier's errors carry JSON in their message (ThrottledError: {message, delay}); this reads it. */
export function parseZapierError(error: unknown): {
  name: string;
  message: string;
  delay?: number;
  code?: string;
  status?: number;
} {
  const e = error as Error;
  try {
    const parsed = JSON.parse(e.message) as {
      message: string;
      delay?: number;
      code?: string;
      status?: number;
    };
    return { name: e.name, ...parsed, message: ownWords(parsed.message) };
  } catch {
    return { name: e.name, message: ownWords(e.message) };
  }
}

export async function zapierError(promise: Promise<unknown>): Promise<ReturnType<typeof parseZapierError>> {
  try {
    await promise;
  } catch (error) {
    return parseZapierError(error);
  }
  throw new Error('expected the step to fail, but it succeeded');
}

/** Sets EVF_BASE_URL for the suite, the way `zapier-platform env:set` does for a deployed app. */
export function useBaseUrl(url: () => string): void {
  const before = process.env.EVF_BASE_URL;
  beforeAll(() => {
    process.env.EVF_BASE_URL = url();
  });
  afterAll(() => {
    if (before === undefined) delete process.env.EVF_BASE_URL;
    else process.env.EVF_BASE_URL = before;
  });
}

export function expectNoSecrets(value: unknown, secrets: string[] = [KEY, SECRET]): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  for (const secret of secrets) expect(text).not.toContain(secret);
}
