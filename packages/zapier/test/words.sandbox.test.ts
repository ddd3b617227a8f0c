/**
 * What a Zap's history shows for the service's own refusals, against the real sandbox: its 429 reason
 * names an HTTP header ("Wait until the time in X-RateLimit-Reset"), its 401 reason already says where
 * keys are made; neither reaches the user as a header name or as advice said twice.
 */
import { run, steps, zapierError } from './helpers';
import { useSandboxSession } from './sandbox-session';

const session = useSandboxSession();

async function submitBulk(apiKey: string, count: number): Promise<number> {
  const emails = Array.from({ length: count }, (_, i) => `valid.lead${i}@acme-corp.com`);
  const res = await fetch(`${session.sb.baseUrl}/v1/verify/bulk`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ emails }),
  });
  await res.arrayBuffer();
  return res.status;
}

it('a 429 over the allowance says when Zapier runs the step again, and names no HTTP header', async () => {
  // Starter's allowance is 10,000 addresses per hour, shared by all keys: one list uses it up.
  const starter = session.sb.addAccount({ id: 'acct_words_starter', plan: 'starter', credits: 20_000 });
  expect(await submitBulk(starter.apiKey, 10_000)).toBe(202);
  const error = await zapierError(
    run(steps.verify, {
      authData: { api_key: starter.apiKey },
      inputData: { email: 'valid.x@acme-corp.com' },
    }),
  );
  expect(error.name).toBe('ThrottledError');
  expect(error.message).toMatch(/allowance/);
  expect(error.message).toMatch(/Zapier runs this step again/);
  expect(error.message).not.toMatch(/X-RateLimit|Retry-After|header/i);
});

it('a 401 says where keys are made once, in the connection dialog and in a step', async () => {
  const revoked = session.sb.addAccount({
    id: 'acct_words_revoked',
    plan: 'pro',
    credits: 10,
    keys: [{ key: 'evf_words_revoked_key_0001', revoked: true }],
  });
  for (const step of [steps.authTest, steps.findJob]) {
    const error = await zapierError(
      run(step, { authData: { api_key: revoked.apiKey }, inputData: { job_id: 'job_1' } }),
    );
    expect(error.name).toBe('ExpiredAuthError');
    expect(error.message.match(/Profile, then API/g)).toHaveLength(1);
    expect(error.message).not.toMatch(/header/i);
  }
  const connecting = await zapierError(
    run(steps.authTest, { authData: { api_key: 'evf_not_a_real_key_000' } }),
  );
  expect(connecting.message).toMatch(/Then paste it here/);
});
