import type { MiddlewareHandler } from 'hono';
import { HttpError } from '../../contract/http-error.js';
import { withinDeadline } from '../time/deadline.js';
import { createMemoryRateStore, type RateStore } from './rate-store.js';
import type { Clock } from '../time/clock.js';

/**
 * Per-user request limits, kept below the key's quota (100 a minute, 10,000 an hour by default) so
 * that one user cannot exhaust the key every user shares.
 */

/** Per-user limits; every field has a default. */
export interface UserRateLimitOptions {
  /** Requests a user may make a minute; default 80 (a call's poller needs about 60). */
  perMinute?: number;
  /** Requests a user may make an hour; default 5,000 (a call polled for a whole hour needs about 3,600). */
  perHour?: number;
  /** Where counts live; default one process's memory. Share a Redis store between replicas. */
  store?: RateStore;
  /** Past this many ms a store that has not answered is skipped for this request; default 1 s. */
  storeTimeoutMs?: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Counts each request against its user (`subject(c)`) in a minute and an hour window; over either, answers
 * `429 rate_limited` with `Retry-After` before anything goes upstream. An `exempt` request (a hangup, a
 * session's end) is neither counted nor refused.
 *
 * @remarks
 * A store that fails or is slow does not take calling down with it: the request goes on and `log` says why.
 * The service's own per-key quota still holds then.
 */
export function userRateLimit(
  options: UserRateLimitOptions,
  subject: (c: Parameters<MiddlewareHandler>[0]) => string,
  log: (message: string) => void,
  exempt: (c: Parameters<MiddlewareHandler>[0]) => boolean,
  clock: Clock,
): MiddlewareHandler {
  const store = options.store ?? createMemoryRateStore();
  const timeoutMs = options.storeTimeoutMs ?? 1000;
  // The in-memory default answers at once; only a store of the integrator's (Redis) needs a deadline.
  // `undefined` when the store was too slow: the request then goes on (fail open).
  const hit = options.store ? (key: string, windowMs: number) => withinDeadline(store.hit(key, windowMs), timeoutMs, () => undefined, clock) : (key: string, windowMs: number) => store.hit(key, windowMs);
  const windows: Array<[name: string, limit: number, windowMs: number]> = [
    ['m', options.perMinute ?? 80, MINUTE],
    ['h', options.perHour ?? 5000, HOUR],
  ];
  return async (c, next) => {
    if (exempt(c)) return next();
    const user = subject(c);
    for (const [name, limit, windowMs] of windows) {
      let window;
      try {
        window = await hit(`${name}:${user}`, windowMs);
      } catch (error) {
        log(`voice proxy: rate store failed, request let through (${error instanceof Error ? error.message : String(error)})`);
        continue;
      }
      if (window === undefined) {
        log('voice proxy: rate store did not answer in time, request let through');
        continue;
      }
      if (window.count > limit) {
        const retryAfter = String(Math.max(1, Math.ceil(window.resetInMs / 1000)));
        throw new HttpError(429, 'rate_limited', `too many requests from this user; retry after ${retryAfter} s`, {
          'Retry-After': retryAfter,
          'X-RateLimit-Limit': String(limit),
          'X-RateLimit-Remaining': '0',
          'X-RateLimit-Reset': retryAfter,
        });
      }
    }
    await next();
  };
}
