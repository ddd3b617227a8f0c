/**
 * Credits of one account as a ledger of timestamped entries, so "used today" and "used this month"
 * are sums over the last 24 hours and 30 days, net of refunds made in the same window.
 */
export interface LedgerEntry {
  at: number;
  kind: 'charge' | 'refund';
  amount: number;
  /** What the entry is for: a job id, or "single:<email>" (no secrets). */
  ref: string;
}

export interface LedgerSummary {
  credits: number;
  charged: number;
  refunded: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export class CreditLedger {
  private readonly entries: LedgerEntry[] = [];
  private chargedTotal = 0;
  private refundedTotal = 0;

  constructor(private balance: number) {
    if (!Number.isSafeInteger(balance) || balance < 0)
      throw new RangeError('credits must be a whole number >= 0');
  }

  get credits(): number {
    return this.balance;
  }

  canAfford(amount: number): boolean {
    return this.balance >= amount;
  }

  charge(amount: number, at: number, ref: string): void {
    if (amount <= 0) return;
    if (amount > this.balance) throw new Error('charge larger than the balance; check canAfford first');
    this.balance -= amount;
    this.chargedTotal += amount;
    this.entries.push({ at, kind: 'charge', amount, ref });
  }

  refund(amount: number, at: number, ref: string): void {
    if (amount <= 0) return;
    this.balance += amount;
    this.refundedTotal += amount;
    this.entries.push({ at, kind: 'refund', amount, ref });
  }

  /** Net credits used in the window ending now (never below zero). */
  usedSince(windowMs: number, now: number): number {
    const from = now - windowMs;
    let used = 0;
    for (const e of this.entries) {
      if (e.at > from && e.at <= now) used += e.kind === 'charge' ? e.amount : -e.amount;
    }
    return Math.max(0, used);
  }

  usedToday(now: number): number {
    return this.usedSince(DAY_MS, now);
  }

  usedThisMonth(now: number): number {
    return this.usedSince(30 * DAY_MS, now);
  }

  summary(): LedgerSummary {
    return { credits: this.balance, charged: this.chargedTotal, refunded: this.refundedTotal };
  }

  history(): readonly LedgerEntry[] {
    return this.entries;
  }
}
