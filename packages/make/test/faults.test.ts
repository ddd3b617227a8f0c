/**
 * The service's error statuses, produced by the sandbox's fault injection and its real rules, come
 * out of the Make modules as the Make error types the issue asks for, with messages that name the
 * fix and never contain the key.
 */
import { startSandbox, type Sandbox } from '@evf/sandbox';
import { MakeModuleError, runModule, type MakeConnection } from './support/make-runtime';

let sb: Sandbox;
let conn: MakeConnection;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, timeScale: 0.01, rowsPerSecond: 2000 });
  conn = { apiKey: sb.apiKey, baseUrl: sb.baseUrl };
});
afterAll(async () => {
  await sb?.close();
});
afterEach(() => sb.faults.clear());

async function failure(p: Promise<unknown>): Promise<MakeModuleError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MakeModuleError);
  const e = err as MakeModuleError;
  expect(e.message).not.toContain(sb.apiKey);
  expect(e.message).not.toContain(sb.webhookSecret);
  return e;
}

describe('error statuses become Make error types', () => {
  it('429 -> RateLimitError naming X-RateLimit-Reset', async () => {
    sb.faults.failNext({ path: '/v1/jobs', status: 429, retryAfterSeconds: 30 });
    const e = await failure(runModule('listJobs', {}, conn));
    expect(e.type).toBe('RateLimitError');
    expect(e.message).toMatch(/X-RateLimit-Reset \(.+\)/);
  });

  it('503 on a bulk submission -> ConnectionError (retryable), nothing charged', async () => {
    sb.faults.pauseNewJobs({ retryAfterSeconds: 20 });
    const before = sb.ledger();
    const e = await failure(runModule('submitBulk', { emails: ['valid.a@example.com'] }, conn));
    expect(e.type).toBe('ConnectionError');
    expect(e.message).toMatch(/paused/);
    expect(sb.ledger()).toEqual(before);
    sb.faults.resumeNewJobs();
  });

  it('408 from a slow single verification -> ConnectionError saying the credit was refunded', async () => {
    const before = sb.ledger().credits;
    const e = await failure(runModule('verifyEmail', { email: 'slow.one@example.com' }, conn));
    expect(e.statusCode).toBe(408);
    expect(e.type).toBe('ConnectionError');
    expect(e.message).toMatch(/refunded/);
    expect(sb.ledger().credits).toBe(before);
  });

  it('402 -> a credits error that says nothing was verified', async () => {
    const poor = sb.addAccount({ plan: 'pro', credits: 0 });
    const e = await failure(
      runModule('verifyEmail', { email: 'valid.a@example.com' }, { ...conn, apiKey: poor.apiKey }),
    );
    expect(e.statusCode).toBe(402);
    expect(e.message).toMatch(/out of credits/);
  });

  it('401 for a revoked key -> InvalidAccessTokenError', async () => {
    const other = sb.addAccount({ plan: 'pro', credits: 5, keys: [{ revoked: true }] });
    const e = await failure(runModule('getCredits', {}, { ...conn, apiKey: other.apiKey }));
    expect(e.type).toBe('InvalidAccessTokenError');
  });

  it('500 -> RuntimeError with the status', async () => {
    sb.faults.failNext({ path: '/v1/account/credits', status: 500 });
    const e = await failure(runModule('getCredits', {}, conn));
    expect(e.type).toBe('RuntimeError');
    expect(e.message).toMatch(/HTTP 500/);
  });

  it('a job that fails midway: Wait returns it as finished with its error, and its stored rows are still listed', async () => {
    const emails = Array.from({ length: 200 }, (_, i) => `valid.f${i}@example.com`);
    // Armed for the next job before it is submitted: at this time scale a 200-row job can finish
    // before the submit module returns, and failJob by id would then find it already completed.
    sb.faults.failJob(undefined, { afterRows: 50, error: 'mail server farm unreachable' });
    const submitted = await runModule('submitBulk', { emails }, conn);
    const jobId = (submitted.bundles[0] as { job_id: string }).job_id;
    const waited = await runModule('waitForJob', { job_id: jobId }, conn, { repeatDelayMs: 20 });
    const job = waited.bundles[0] as { status: string; terminal: boolean; error: string; processed: number };
    expect(job.terminal).toBe(true);
    expect(job.status).toBe('failed');
    expect(job.error).toBe('mail server farm unreachable');
    expect(job.processed).toBe(50);
    const rows = await runModule('listResults', { job_id: jobId, per_page: 20 }, conn);
    expect(rows.bundles.length).toBe(job.processed);
    expect(rows.bundles.length).toBeGreaterThan(0);
  });
});
