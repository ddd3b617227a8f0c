/**
 * Every shared webhook test vector through "Verify List and Wait for Results" performResume, the way
 * Zapier delivers a callback (headers prefixed with Http-, raw body in rawRequest.content): good ones
 * are accepted and lead to the results being read. Nothing in a bad one is used: the job this step
 * submitted is read with the API key instead, so a late message or a wrong secret never loses paid rows,
 * and the note says the message could not be verified and why.
 */
import { webhookVectors, type WebhookVector } from '@evf/contract/test-vectors';
import { BASE, bundle, expectNoSecrets, run, steps, useBaseUrl, zapierError } from './helpers';
import { api, replyWith, requestCounter, useNock } from './mock-api';

type Vector = WebhookVector;

const FALLBACK_JOB = 'job_7f3c2a9e41b84d05';

/** Zapier's callback headers: each name capitalised per word and prefixed with "Http-". */
function asZapierHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const capitalised = name
      .split('-')
      .map((part) => part.charAt(0).toUpperCase() + part.slice(1).toLowerCase())
      .join('-');
    out[`Http-${capitalised}`] = value;
  }
  return out;
}

function jobIdOf(v: Vector): string {
  try {
    const parsed = JSON.parse(v.rawBody) as { job_id?: unknown };
    return typeof parsed.job_id === 'string' ? parsed.job_id : FALLBACK_JOB;
  } catch {
    return FALLBACK_JOB;
  }
}

function resumeBundle(v: Vector, jobId = jobIdOf(v), inputData: Record<string, unknown> = {}) {
  return bundle(
    { emails: ['a@acme-corp.com'], ...inputData },
    {
      authData: { api_key: bundle().authData!.api_key!, webhook_secret: v.secrets.join(' ') },
      outputData: {
        job_id: jobId,
        waiting_for_callback: true,
        received: 1,
        unique_count: 1,
        duplicates_removed: 0,
        malformed_removed: 0,
        malformed: [],
        duplicates: [],
      },
      rawRequest: {
        method: 'POST',
        headers: asZapierHeaders(v.headers),
        content: v.rawBody,
        querystring: '',
      },
    },
  );
}

function mockJobAndResults(jobId: string, failed: boolean): void {
  replyWith(api().get(`/v1/jobs/${jobId}`), failed ? 'job.failed.200' : 'job.completed.200', (b) => ({
    ...b,
    job_id: jobId,
  }));
  replyWith(
    api()
      .get(`/v1/jobs/${jobId}/results`)
      .query((q) => q.page === '1'),
    'results.page1.200',
    (b) => ({
      ...b,
      job_id: jobId,
      status: failed ? 'failed' : 'completed',
      has_more: false,
    }),
  );
}

useBaseUrl(() => BASE);
useNock();
afterEach(() => jest.restoreAllMocks());

const all: Vector[] = webhookVectors;

it('covers the whole vector file', () => {
  expect(all.length).toBeGreaterThanOrEqual(30);
  expect(all.some((v) => v.expect === 'accept')).toBe(true);
  expect(all.some((v) => v.expect === 'reject')).toBe(true);
});

describe.each(all.filter((v) => v.expect === 'accept').map((v) => [v.name, v] as const))(
  'accepts %s',
  (_name, v) => {
    it('verifies, then reads the job and its results', async () => {
      jest.spyOn(Date, 'now').mockReturnValue(v.now * 1000);
      const jobId = jobIdOf(v);
      const failed = v.rawBody.includes('"job.failed"');
      mockJobAndResults(jobId, failed);
      // A failed job halts the step by default (its own test is in e2e); here the rows are asked for.
      const out = await run(steps.resume, resumeBundle(v, jobId, failed ? { on_failure: 'continue' } : {}));
      expect(out).toMatchObject({
        job_id: jobId,
        status: failed ? 'failed' : 'completed',
        job_failed: failed,
        returned_rows: 5,
        truncated: false,
      });
      expect(out.results).toHaveLength(5);
      expect(out.counts.safe_to_send + out.counts.risky + out.counts.invalid).toBe(5);
      expectNoSecrets(out, [...v.secrets]);
    });
  },
);

describe.each(all.filter((v) => v.expect === 'reject').map((v) => [v.name, v] as const))(
  'does not trust %s',
  (_name, v) => {
    it('reads the job it submitted with the key, returns its rows and says why the message was not used', async () => {
      jest.spyOn(Date, 'now').mockReturnValue(v.now * 1000);
      // The job this step submitted, not whatever the message names.
      mockJobAndResults(FALLBACK_JOB, false);
      const out = await run(steps.resume, resumeBundle(v, FALLBACK_JOB));
      expect(out).toMatchObject({ job_id: FALLBACK_JOB, message_verified: false, returned_rows: 5 });
      expect(out.note).toMatch(
        /could not be verified: .+ Nothing in it was used: the job and its rows below were read from the service with the connection's API key/,
      );
      expectNoSecrets(out, [...v.secrets]);
    });

    it('refuses it when the job is still running: the service has not finished', async () => {
      jest.spyOn(Date, 'now').mockReturnValue(v.now * 1000);
      replyWith(api().get(`/v1/jobs/${FALLBACK_JOB}`), 'job.processing.200', (b) => ({
        ...b,
        job_id: FALLBACK_JOB,
      }));
      const counter = requestCounter();
      const error = await zapierError(run(steps.resume, resumeBundle(v, FALLBACK_JOB)));
      expect(error.code).toBe('webhook_job_not_finished');
      // The job read is the one request made (the counter sees only requests no mock answered).
      expect(counter.count()).toBe(0);
      expectNoSecrets(error, [...v.secrets]);
    });
  },
);

it('a message signed too long ago says Zapier delivered it late, and the rows still come', async () => {
  const v = all.find((x) => x.name === 'stale_301s')!;
  jest.spyOn(Date, 'now').mockReturnValue(v.now * 1000);
  mockJobAndResults(FALLBACK_JOB, false);
  const out = await run(steps.resume, resumeBundle(v, FALLBACK_JOB));
  expect(out.note).toMatch(/later than the 5 minutes/);
  expect(out.results).toHaveLength(5);
});

it('a wrong secret says how to check the one in the connection, and the rows still come', async () => {
  const v = all.find((x) => x.name === 'wrong_secret')!;
  jest.spyOn(Date, 'now').mockReturnValue(v.now * 1000);
  mockJobAndResults(FALLBACK_JOB, false);
  const out = await run(steps.resume, resumeBundle(v, FALLBACK_JOB));
  expect(out.note).toMatch(
    /Webhook Signing Secret in the connection is not the one under Profile, API, Webhooks/,
  );
  expect(out.results).toHaveLength(5);
});

it('a genuine message about another job is not used: the job this step submitted is read instead', async () => {
  const v = all.find((x) => x.name === 'valid_completed')!;
  jest.spyOn(Date, 'now').mockReturnValue(v.now * 1000);
  mockJobAndResults('job_this_step', false);
  const out = await run(steps.resume, resumeBundle(v, 'job_this_step'));
  expect(out).toMatchObject({ job_id: 'job_this_step', message_verified: false });
  expect(out.note).toMatch(/about job .+, not job job_this_step/);
});

it('without a secret, trusts nothing in the message: a job that is still running means the message was not real', async () => {
  const v = all.find((x) => x.name === 'valid_completed')!;
  const b = resumeBundle(v);
  b.authData = { api_key: b.authData!.api_key! };
  replyWith(api().get(`/v1/jobs/${jobIdOf(v)}`), 'job.processing.200', (body) => ({
    ...body,
    job_id: jobIdOf(v),
  }));
  const error = await zapierError(run(steps.resume, b));
  expect(error.code).toBe('webhook_job_not_finished');
  expect(error.message).toMatch(/signing secret/);
});
