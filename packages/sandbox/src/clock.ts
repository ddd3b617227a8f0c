/**
 * Time for the sandbox. Two separate ideas live here:
 * - wall time (`now`), used for timestamps, ledger windows and allowance windows; tests can move it
 *   forward with `advance` to cross a 24-hour or 30-day boundary without waiting;
 * - waits (`sleep`, `scaled`), which are the spec's real durations multiplied by `timeScale`, so a
 *   300 s webhook retry wait takes 3 s at timeScale 0.01.
 */
export class SandboxClock {
  private offsetMs = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(
    readonly timeScale: number,
    private readonly source: () => number = Date.now,
  ) {
    if (!(timeScale > 0) || !Number.isFinite(timeScale)) {
      throw new TypeError(
        `timeScale must be a positive number (1 = real time, 0.01 = 100x faster); got ${String(timeScale)}`,
      );
    }
  }

  now(): number {
    return this.source() + this.offsetMs;
  }

  nowIso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Moves wall time forward (never backward) without waiting. */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError('advance(ms) needs a non-negative number of milliseconds');
    this.offsetMs += ms;
  }

  /** The real number of milliseconds a spec duration takes at this time scale. */
  scaled(specMs: number): number {
    return Math.max(0, specMs * this.timeScale);
  }

  /** Runs `fn` after a spec duration (scaled). Timers are tracked so close() can stop them all. */
  after(specMs: number, fn: () => void): () => void {
    if (this.closed) return () => undefined;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, this.scaled(specMs));
    this.timers.add(timer);
    return () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    };
  }

  /** Resolves after a spec duration (scaled); resolves at once when the clock is closed. */
  sleep(specMs: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.closed) return resolve();
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, this.scaled(specMs));
      this.timers.add(timer);
    });
  }

  /** A real-time delay that is not scaled (injected latency is measured in real milliseconds). */
  realDelay(ms: number): Promise<void> {
    if (ms <= 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
