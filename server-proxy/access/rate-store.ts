import { RateLimiterMemory, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Where the proxy counts requests per user: a small store interface so several proxy processes behind a
 * load balancer can share one count (`createRedisRateStore`), in memory by default.
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
 * A {@link RateStore} over rate-limiter-flexible's limiters, one per window length, each counting without a
 * ceiling: the caller compares the count with its own limits.
 */
export function limiterStore(make: (options: { points: number; duration: number }) => RateLimiterAbstract, close?: () => Promise<void>): RateStore {
  const limiters = new Map<number, RateLimiterAbstract>();
  return {
    async hit(key, windowMs) {
      let limiter = limiters.get(windowMs);
      if (!limiter) {
        limiter = make({ points: Number.MAX_SAFE_INTEGER, duration: windowMs / 1000 });
        limiters.set(windowMs, limiter);
      }
      const window = await limiter.consume(key);
      return { count: window.consumedPoints, resetInMs: window.msBeforeNext };
    },
    ...(close ? { close } : {}),
  };
}

/**
 * A store for one process: rate-limiter-flexible's memory limiter, which forgets a window when it ends.
 *
 * @example
 * ```ts
 * createVoiceProxy({ ..., rateLimit: { perMinute: 80, store: createMemoryRateStore() } });
 * ```
 */
export function createMemoryRateStore(): RateStore {
  return limiterStore((options) => new RateLimiterMemory(options));
}
