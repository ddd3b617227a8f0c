import { creditBelow, creditThreshold, type BelowMemory } from '@evf/client';
import { defineTrigger, type Bundle, type ZObject } from 'zapier-platform-core';
import { clientFor } from '../client';
import { mapErrors } from '../errors';
import { creditOutputFields, field } from '../fields/outputs';
import { asSample, creditBalanceSample } from '../samples';

/**
 * The rule (fire once per drop, the item's id the moment of the drop) is the client's `creditBelow`,
 * shared with n8n's trigger; this file keeps only where the memory lives.
 *
 * When the balance was first seen below the threshold, kept in z.cache per connection and threshold
 * (core 19 marks `bundle.meta.zap` deprecated, so no key rests on a Zap's ID; Zaps on one connection with
 * one threshold share the moment, which is the drop's, not the Zap's). The item's id is that moment, so Zapier's dedupe by id
 * (https://docs.zapier.com/platform/build/deduplication) fires once per drop, not once per poll, and a
 * later drop (after a top-up or refunds lifted the balance) has a new id. Zapier's docs give z.cache no
 * size or lifetime: if the memory is lost while the balance is low, the next poll fires again, an
 * extra alert rather than a missed one.
 */
interface ZCache {
  get(key: string, scope?: string[]): Promise<unknown>;
  set(key: string, value: unknown, ttl?: number, scope?: string[]): Promise<unknown>;
}
const SCOPE = ['auth'];
const REMEMBER_SECONDS = 90 * 24 * 3600;

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
  const threshold = creditThreshold(bundle.inputData.threshold);
  const balance = await clientFor(z, bundle).getCredits();
  const key = memoryKey(threshold);
  const memory = await recall(z, key);
  const { item, memory: next } = creditBelow(memory, balance.credits, threshold, Date.now());
  if (next.since !== memory.since) await remember(z, key, next);
  return item ? [{ ...item, ...balance }] : [];
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
