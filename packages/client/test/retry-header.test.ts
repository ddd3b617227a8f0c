import { parseRetryHeader } from '@evf/client';
import { backoffDelay } from '../src/core/retry';

const NOW = Date.UTC(2026, 0, 15, 10, 0, 0);

describe('parseRetryHeader accepts every form of X-RateLimit-Reset / Retry-After', () => {
  test('epoch seconds', () => expect(parseRetryHeader(String(NOW / 1000 + 42), NOW)).toBe(42_000));
  test('epoch milliseconds', () => expect(parseRetryHeader(String(NOW + 1500), NOW)).toBe(1500));
  test('delta seconds', () => expect(parseRetryHeader('30', NOW)).toBe(30_000));
  test('fractional delta seconds', () => expect(parseRetryHeader('1.5', NOW)).toBe(1500));
  test('HTTP date', () => expect(parseRetryHeader(new Date(NOW + 90_000).toUTCString(), NOW)).toBe(90_000));
  test('a time already past means no wait', () =>
    expect(parseRetryHeader(String(NOW / 1000 - 5), NOW)).toBe(0));
  test('absent or garbage gives undefined', () => {
    expect(parseRetryHeader(undefined, NOW)).toBeUndefined();
    expect(parseRetryHeader('', NOW)).toBeUndefined();
    expect(parseRetryHeader('soon', NOW)).toBeUndefined();
  });
});

test('backoff grows, is capped, and is jittered', () => {
  const opts = { baseDelayMs: 500, maxDelayMs: 4000 };
  expect(backoffDelay(0, () => 0, opts)).toBe(250);
  expect(backoffDelay(0, () => 0.999, opts)).toBeCloseTo(500, -1);
  expect(backoffDelay(3, () => 0, opts)).toBe(2000);
  expect(backoffDelay(10, () => 0.999, opts)).toBeLessThanOrEqual(4000);
});
