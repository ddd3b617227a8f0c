import { InputError } from '@evf/client';
import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { optionalString } from '../fields/coerce';
import { creditOutputFields, field } from '../fields/outputs';
import { asSample, creditBalanceSample } from '../samples';

/**
 * When the balance was first seen below the threshold, kept in z.cache per connection and threshold
 * (core 19 marks `bundle.meta.zap` deprecated, so no key rests on a Zap's ID; Zaps on one connection with
 * one threshold share the moment, which is the drop's, not the Zap's). The item's id is that moment, so Zapier's dedupe by id
 * (https://docs.zapier.com/platform/build/deduplication) fires once per drop, not once per poll, and a
 * later drop (after a top-up or refunds lifted the balance) has a new id. Zapier's docs give z.cache no
 * size or lifetime: if the memory is lost while the balance is low, the next poll fires again, an
 * extra alert rather than a missed one.
 */
interface BelowMemory {
  since: string | null;
}
interface ZCache {
  get(key: string, scope?: string[]): Promise<unknown>;
  set(key: string, value: unknown, ttl?: number, scope?: string[]): Promise<unknown>;
}
const SCOPE = ['auth'];
const REMEMBER_SECONDS = 90 * 24 * 3600;

function thresholdOf(value: unknown): number {
  const text = optionalString(value);
  const n = text === undefined ? NaN : Number(text.trim().replace(/[,_\s]/g, ''));
  if (Number.isSafeInteger(n) && n >= 1) return n;
  throw new InputError(
    'threshold',
    'range',
    'Threshold must be a whole number of credits, 1 or more (e.g. 1000: the Zap runs when fewer than 1,000 credits are left).',
  );
}

function memoryKey(threshold: number): string {
  return `evf-below:${threshold}`;
}

async function recall(z: ZObject, key: string): Promise<BelowMemory> {
  try {
    const raw = await (z as ZObject & { cache: ZCache }).cache.get(key, SCOPE);
    const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Partial<BelowMemory> | null;
    return { since: typeof parsed?.since === 'string' ? parsed.since : null };
  } catch {
    return { since: null };
  }
}

async function remember(z: ZObject, key: string, memory: BelowMemory): Promise<void> {
  try {
    await (z as ZObject & { cache: ZCache }).cache.set(key, JSON.stringify(memory), REMEMBER_SECONDS, SCOPE);
  } catch {
    // See BelowMemory: a lost memory costs at most one extra alert.
  }
}

const perform = mapErrors(async (z: ZObject, bundle: Bundle<{ threshold?: unknown }>) => {
  const threshold = thresholdOf(bundle.inputData.threshold);
  const balance = await clientFor(z, bundle).getCredits();
  const key = memoryKey(threshold);
  const memory = await recall(z, key);
  if (balance.credits >= threshold) {
    if (memory.since !== null) await remember(z, key, { since: null });
    return [];
  }
  const since = memory.since ?? new Date().toISOString();
  if (memory.since === null) await remember(z, key, { since });
  return [
    {
      id: `below:${threshold}:${since}`,
      threshold,
      below_since: since,
      credits_short: threshold - balance.credits,
      ...balance,
    },
  ];
});

const sample = {
  id: 'below:10000:2026-01-15T10:30:00.000Z',
  threshold: 10_000,
  below_since: '2026-01-15T10:30:00.000Z',
  credits_short: Math.max(0, 10_000 - creditBalanceSample.credits),
  ...creditBalanceSample,
};

export default defineTrigger({
  key: 'credit_balance_below',
  noun: 'Credit Balance',
  display: {
    label: 'Credit Balance Below',
    description: 'Triggers when the credit balance drops below a threshold, once per drop.',
  },
  operation: {
    type: 'polling',
    inputFields: [
      {
        key: 'threshold',
        label: 'Threshold',
        type: 'integer',
        required: true,
        helpText:
          'The Zap runs when fewer credits than this are left (e.g. 1000). Each address verified costs 1 credit; reading the balance is free.',
      },
    ],
    perform,
    sample: asSample(sample),
    outputFields: [
      field('id', 'ID', 'string'),
      field('threshold', 'Threshold', 'integer'),
      field('below_since', 'Below Threshold Since', 'datetime'),
      field('credits_short', 'Credits Short of Threshold', 'integer'),
      ...creditOutputFields(),
    ],
  },
});
