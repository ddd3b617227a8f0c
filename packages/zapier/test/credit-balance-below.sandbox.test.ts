/**
 * Credit Balance Below against the sandbox, polled the way Zapier polls (dedupe by id,
 * https://docs.zapier.com/platform/build/deduplication): one new item per drop below the threshold, none
 * while it stays below or above, and a new one after the balance rose (the refund of a bulk job's
 * unknown addresses at its end) and dropped again.
 */
import { EmailVerificationClient } from '@evf/client';
import { fetchTransport, nodeRuntime } from '@evf/client/node';
import { App, run, steps, zapierError } from './helpers';
import { useSandboxSession } from './sandbox-session';

const session = useSandboxSession();

const SAMPLE_KEYS = Object.keys(App.triggers.credit_balance_below.operation.sample as object);

it('fires once per drop below Threshold, each item shaped like the sample', async () => {
  const account = session.sb.addAccount({ id: 'acct_below', plan: 'pro', credits: 1_100 });
  const client = new EmailVerificationClient({
    apiKey: account.apiKey,
    baseUrl: session.sb.baseUrl,
    transport: fetchTransport,
    runtime: nodeRuntime,
  });
  const seen = new Set<string>();
  const poll = async (): Promise<Record<string, unknown>[]> => {
    const items: Record<string, unknown>[] = await run(steps.below, {
      authData: { api_key: account.apiKey },
      inputData: { threshold: '1000' },
    });
    for (const item of items) expect(SAMPLE_KEYS.filter((k) => !(k in item))).toEqual([]);
    const fresh = items.filter((i) => !seen.has(i.id as string));
    for (const i of fresh) seen.add(i.id as string);
    return fresh;
  };
  /** 200 unknown addresses: charged now, refunded when the job ends (the spec's bulk refund). */
  const spendAndRefund = async (tag: string): Promise<() => Promise<void>> => {
    const emails = Array.from({ length: 200 }, (_, i) => `unknown.${tag}${i}@acme-corp.com`);
    const { job_id } = await client.submitBulk({ emails });
    return async () => {
      for (;;) {
        if ((await client.getJob(job_id)).terminal && (await client.getCredits()).credits >= 1_000) return;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
  };

  expect(await poll()).toEqual([]);
  const firstEnds = await spendAndRefund('a');
  const drop = await poll();
  expect(drop).toHaveLength(1);
  expect(drop[0]).toMatchObject({ threshold: 1_000, credits_short: 1_000 - (drop[0]!.credits as number) });
  // Still below: the same item, so Zapier does not fire again.
  expect(await poll()).toEqual([]);
  await firstEnds();
  expect(await poll()).toEqual([]);
  const secondEnds = await spendAndRefund('b');
  const again = await poll();
  expect(again).toHaveLength(1);
  expect(again[0]!.id).not.toBe(drop[0]!.id);
  await secondEnds();
}, 30_000);

it('refuses a missing or non-positive Threshold before reading anything', async () => {
  for (const threshold of [undefined, '0', 'lots']) {
    const error = await zapierError(
      run(steps.below, { authData: { api_key: session.sb.apiKey }, inputData: { threshold } }),
    );
    expect(error.message).toMatch(/^Threshold: Threshold must be a whole number/);
  }
});
