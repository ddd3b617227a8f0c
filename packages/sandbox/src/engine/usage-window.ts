import type { Allowance } from './plans';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

export interface AllowanceDecision {
  ok: boolean;
  /** When over: wall-clock ms at which the request would fit. */
  resetAt?: number;
  /** The refusing window whose reset is latest: the one that decides when the request fits. */
  window?: 'hour' | 'day';
  limit?: number;
  used?: number;
  /** The request is larger than a window's whole limit: it can never be accepted as one call. */
  neverFits?: boolean;
}

/**
 * Addresses verified through the API in rolling windows, shared by every key of the account.
 * Reads and polling never pass through here.
 */
export class UsageWindow {
  private events: { at: number; count: number }[] = [];

  record(count: number, at: number): void {
    if (count > 0) this.events.push({ at, count });
  }

  private prune(now: number): void {
    const from = now - DAY_MS;
    if (this.events.length && this.events[0]!.at <= from)
      this.events = this.events.filter((e) => e.at > from);
  }

  usedIn(windowMs: number, now: number): number {
    const from = now - windowMs;
    let used = 0;
    for (const e of this.events) if (e.at > from) used += e.count;
    return used;
  }

  /**
   * Every window is checked: the request fits when the last of the refusing windows lets it (Starter
   * after 10,000 in an hour is refused by the hour and the day, and fits when the day's window frees).
   */
  check(allowance: Allowance, count: number, now: number): AllowanceDecision {
    this.prune(now);
    let refusal: AllowanceDecision = { ok: true };
    let neverFits = false;
    for (const [window, windowMs, limit] of [
      ['hour', HOUR_MS, allowance.perHour],
      ['day', DAY_MS, allowance.perDay],
    ] as const) {
      if (limit === null) continue;
      const used = this.usedIn(windowMs, now);
      if (used + count <= limit) continue;
      neverFits ||= count > limit;
      const resetAt = this.fitsAt(windowMs, limit, count, now);
      if (refusal.ok || resetAt > refusal.resetAt!) refusal = { ok: false, window, limit, used, resetAt };
    }
    return refusal.ok ? refusal : { ...refusal, neverFits };
  }

  /** The earliest time enough old usage leaves the window for `count` more to fit. */
  private fitsAt(windowMs: number, limit: number, count: number, now: number): number {
    const from = now - windowMs;
    const inWindow = this.events.filter((e) => e.at > from);
    let used = inWindow.reduce((sum, e) => sum + e.count, 0);
    if (count > limit) {
      // Never fits in one call: say when the window is empty again, the best the caller can do.
      return (inWindow.at(-1)?.at ?? now) + windowMs;
    }
    for (const e of inWindow) {
      used -= e.count;
      if (used + count <= limit) return e.at + windowMs;
    }
    return now + windowMs;
  }
}
