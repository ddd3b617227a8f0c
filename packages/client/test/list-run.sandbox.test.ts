/**
 * The list run's rerun matrix, generated from tables: each step of a list (its first job, its second
 * job) meets each failure the service can give there (429, 503, a 5xx after the charge, a timeout after
 * the charge, a lost answer, a request dropped before it arrived), then each rerun a platform makes
 * (an immediate replay, a replay the next day, a rerun that lost its memory, two runs at once). Every
 * cell asserts, from the sandbox's own jobs and ledger, that no address is charged twice, and that every
 * address ends sent or "not sent, and when". Small lists and the sandbox's accelerated clock keep it fast.
 */
import {
  EmailVerificationClient,
  runList,
  SETTLE_AFTER_MS,
  type ListRunResult,
  type Runtime,
} from '@evf/client';
import { fetchTransport, nodeRuntime } from '@evf/client/node';
import type { FailNextSpec, Sandbox, SlowSpec } from '@evf/sandbox';
import { startFastSandbox, SPEED } from '../../../test/support/sandbox';

let sb: Sandbox;
let offset = 0;
const now = () => Date.now() + offset;
beforeAll(async () => {
  sb = await startFastSandbox({ rowsPerSecond: 100_000 });
});
afterAll(() => sb?.close());

/** The caller's clock is the sandbox's (moved together); sleeps are shortened. */
const runtime: Runtime = {
  now,
  random: nodeRuntime.random,
  sleep: (ms, signal) => nodeRuntime.sleep(ms / SPEED, signal),
};

const DAY = 24 * 60 * 60_000;
function advance(ms: number): void {
  offset += ms;
  sb.advanceTime(ms);
}

type Failure = { name: string; arm: (sb: Sandbox) => void };
const POST = { method: 'POST', path: '/v1/verify/bulk' } as const;
const fail = (spec: Omit<FailNextSpec, 'method' | 'path'>) => (s: Sandbox) =>
  s.faults.failNext({ ...POST, ...spec });
const slow = (spec: Omit<SlowSpec, 'method' | 'path'>) => (s: Sandbox) => s.faults.slow({ ...POST, ...spec });

/** The failures the service can give a POST, as the spec and a network make them. */
const failures: Failure[] = [
  { name: "the service's 429", arm: fail({ status: 429, retryAfterSeconds: 3600, from: 'service' }) },
  { name: "the service's 503", arm: fail({ status: 503, retryAfterSeconds: 600, from: 'service' }) },
  { name: 'a 502 after the charge', arm: fail({ status: 502, when: 'after' }) },
  { name: 'a timeout after the charge', arm: slow({ delayMs: 1500, when: 'after', count: 1 }) },
  { name: 'a lost answer (connection dropped)', arm: fail({ drop: 'before-response', when: 'after' }) },
  { name: 'a request dropped before it arrived', arm: fail({ drop: 'before-response', when: 'before' }) },
];

/** Steps of a list of two jobs: the POST that meets the failure. */
const steps = [
  { name: 'the first job', post: 1 },
  { name: 'the second job', post: 2 },
];

interface Rerun {
  name: string;
  together?: boolean;
  /** Runs again after the failed run; returns the results of every run it made. */
  run: (first: ListRunResult, go: Go) => Promise<ListRunResult[]>;
}
type Go = (
  book: unknown,
  extra?: { memoryKept?: boolean; load?: () => unknown; store?: (book: unknown) => void },
) => Promise<ListRunResult>;

/** Each rerun ends with the runs that finish the list (a day on, the waits are over). */
const reruns: Rerun[] = [
  {
    name: 'an immediate replay',
    run: async (first, go) => {
      const again = await go(first.book);
      advance(DAY + 60_000);
      return [again, await go(again.book)];
    },
  },
  {
    name: 'a replay the next day',
    run: async (first, go) => {
      advance(DAY + 60_000);
      const again = await go(first.book);
      return [again, await go(again.book)];
    },
  },
  {
    name: 'a rerun that lost its memory (asks the service)',
    run: async (_first, go) => {
      advance(SETTLE_AFTER_MS + 1000);
      return [await go(undefined, { memoryKept: false })];
    },
  },
  {
    name: 'two runs at once sharing one store',
    together: true,
    run: async (first, go) => {
      advance(DAY + 60_000);
      let stored: unknown = first.book;
      const shared = { load: () => stored, store: (book: unknown) => void (stored = structuredClone(book)) };
      const [a, b] = await Promise.all([go(undefined, shared), go(undefined, shared)]);
      return [a, b];
    },
  },
];

/** Every address of every job the account has, by reading each job's rows once it finished. */
async function chargedAddresses(client: EmailVerificationClient): Promise<string[]> {
  const all: string[] = [];
  for await (const job of client.jobs({ maxItems: 1000 })) {
    await client.waitForJob(job.job_id, { intervalMs: 10 });
    for await (const row of client.results(job.job_id)) all.push(row.email.toLowerCase());
  }
  return all;
}

describe.each(steps)('a list of two jobs, failing at $name', ({ post }) => {
  describe.each(failures)('with $name', (failure) => {
    it.each(reruns)(
      'then $name: no address charged twice, every address sent or held with a time',
      async (rerun) => {
        const account = sb.addAccount({ plan: 'pro', credits: 1000 });
        let posts = 0;
        const client = new EmailVerificationClient({
          apiKey: account.apiKey,
          baseUrl: sb.baseUrl,
          transport: fetchTransport,
          runtime,
          timeoutMs: 500,
          retry: { maxRetries: 2, maxDelayMs: 50, maxServerWaitMs: 0 },
          onRequest: ({ method, path }) => {
            // Armed as the POST leaves, so the failure meets exactly this step.
            if (method === 'POST' && path === '/v1/verify/bulk' && ++posts === post) failure.arm(sb);
          },
        });
        const emails = Array.from({ length: 6 }, (_, i) => `row${i}@matrix${post}.example.com`);
        const go: Go = (book, extra = {}) =>
          runList(client, {
            list: { emails },
            options: { maxPerJob: 3, allowance: null },
            book,
            now: now(),
            store: () => undefined,
            ...extra,
          });
        let first: ListRunResult | undefined;
        let thrown: unknown;
        try {
          first = await go(undefined);
        } catch (error) {
          thrown = error;
        }
        // The service's own refusals are outputs; nothing in this table is a user error.
        expect(thrown).toBeUndefined();
        const later = await rerun.run(first!, go);
        const charged = await chargedAddresses(client);
        // At most once: the sandbox's jobs hold each address once, and the ledger agrees.
        expect(new Set(charged).size).toBe(charged.length);
        expect(sb.ledger(account.accountId).charged).toBe(charged.length);
        // Every address ends sent, or not sent with the time it can go.
        // Runs at once end together: what either holds is open.
        const ends = rerun.together ? later : later.slice(-1);
        const open = ends.flatMap((r) => r.unsent);
        for (const e of emails) {
          if (!charged.includes(e)) expect(open).toContain(e);
        }
        for (const end of ends) {
          if (end.unsent.length === 0) continue;
          // Not sent, and when: a time, or the user's word (a list the service may already hold).
          if (end.outcome.kind === 'held' && end.outcome.reason === 'earlier_on_service') continue;
          expect(end.unsentAfter).toEqual(expect.any(String));
        }
        if (rerun.name.startsWith('two runs') || rerun.name.includes('lost')) return;
        // With its memory, the list ends wholly sent once the waits are over.
        expect(charged.sort()).toEqual([...emails].sort());
      },
    );
  });
});
