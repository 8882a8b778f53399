/**
 * Where the proxy counts requests per user: a small store interface so several proxy processes behind a
 * load balancer can share one count (see `redis-rate-store.ts`), in memory by default.
 */

/** The state of one fixed window after a hit. */
export interface RateWindow {
  /** Hits in the current window, this one included. */
  count: number;
  /** Milliseconds until the window resets. */
  resetInMs: number;
}

/**
 * Fixed-window counters keyed by a string.
 *
 * @remarks
 * `hit` must be atomic across every process sharing the store: two replicas counting the same user at once
 * must see two different counts.
 */
export interface RateStore {
  /** Counts one hit against `key`, whose window lasts `windowMs` from its first hit. */
  hit(key: string, windowMs: number): Promise<RateWindow>;
  /** Resolves when the store answers (a shared one, for `/readyz`). */
  ping?(): Promise<void>;
  /** Releases what the store holds (timers, connections). */
  close?(): Promise<void>;
}

/**
 * A store for one process: a map of windows, pruned as they expire.
 *
 * @example
 * ```ts
 * createVoiceProxy({ ..., rateLimit: { perMinute: 80, store: createMemoryRateStore() } });
 * ```
 */
export function createMemoryRateStore(now: () => number = Date.now): RateStore {
  const windows = new Map<string, { count: number; resetAt: number }>();
  let nextPrune = 0;
  return {
    async hit(key, windowMs) {
      const at = now();
      if (at >= nextPrune) {
        // Forgets expired windows now and then, so users who left do not stay in memory.
        for (const [name, window] of windows) if (window.resetAt <= at) windows.delete(name);
        nextPrune = at + 60_000;
      }
      let window = windows.get(key);
      if (!window || window.resetAt <= at) {
        window = { count: 0, resetAt: at + windowMs };
        windows.set(key, window);
      }
      window.count += 1;
      return { count: window.count, resetInMs: window.resetAt - at };
    },
  };
}
