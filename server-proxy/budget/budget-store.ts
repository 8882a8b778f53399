/**
 * Where the key's budget lives: the newest reading of the key's quota, and the leases of the calls in
 * progress. In one process's memory by default; `createRedisBudgetStore` shares them between replicas.
 */

/** What the service said of the key's quota on one of its answers (spec 8 `X-RateLimit-*`). */
export interface QuotaReading {
  /** `X-RateLimit-Limit`: the size of the window closest to running out. */
  limit: number;
  /** `X-RateLimit-Remaining`: what is left of it after that request. */
  remaining: number;
  /** When that window starts afresh (epoch ms), from `X-RateLimit-Reset` or a 429's `Retry-After`. */
  resetAt: number;
  /** When the answer came (epoch ms): a newer reading replaces an older one, never the reverse. */
  at: number;
  /** The key's requests a minute, from the newest reading of its minute window; null until one came. */
  perMinute: number | null;
}

/**
 * The budget's shared state.
 *
 * @remarks
 * `hold` is the one operation that must be atomic across every replica: two replicas admitting a call at
 * once must not both take the last place.
 */
export interface BudgetStore {
  /** Keeps `reading` unless the store holds a newer one. */
  observe(reading: QuotaReading): Promise<void>;
  /** The newest reading, or null before any. */
  reading(): Promise<QuotaReading | null>;
  /**
   * Holds `member`'s lease until `until` (epoch ms), first dropping every lease that lapsed by `now`. With
   * `max`, a member that holds no lease yet gets one only while fewer than `max` are held. Resolves whether it
   * holds one now, and how many are held.
   */
  hold(member: string, until: number, now: number, max?: number): Promise<{ held: boolean; count: number }>;
  /** Gives up `member`'s lease, if any. */
  release(member: string): Promise<void>;
  /** How many leases are held at `now`. */
  count(now: number): Promise<number>;
  /** Whether the store answers (for `/readyz`); the memory store always does. */
  ping(): Promise<void>;
  close?(): Promise<void>;
}

/** A {@link BudgetStore} for one process. */
export function createMemoryBudgetStore(): BudgetStore {
  let newest: QuotaReading | null = null;
  const leases = new Map<string, number>();
  const prune = (now: number) => {
    for (const [member, until] of leases) if (until <= now) leases.delete(member);
  };
  return {
    async observe(reading) {
      if (!newest || reading.at >= newest.at) newest = { ...reading, perMinute: reading.perMinute ?? newest?.perMinute ?? null };
    },
    async reading() {
      return newest;
    },
    async hold(member, until, now, max) {
      prune(now);
      if (max !== undefined && !leases.has(member) && leases.size >= max) return { held: false, count: leases.size };
      leases.set(member, until);
      return { held: true, count: leases.size };
    },
    async release(member) {
      leases.delete(member);
    },
    async count(now) {
      prune(now);
      return leases.size;
    },
    async ping() {},
  };
}
