import type { Quota } from '../service/accounts.js';

/**
 * The per-key request quota of the simulated service (spec 8, "Voice key quota"): fixed windows of a minute
 * and of an hour, counted per bucket (an API key, or the address of a caller without a valid key).
 *
 * @remarks
 * Each window starts with the first request after the previous one ran out. A refused request is not
 * counted, so a client that waits `Retry-After` gets through. The headers describe the window closest to
 * running out: `X-RateLimit-Limit` its size, `X-RateLimit-Remaining` what is left of it after this request,
 * `X-RateLimit-Reset` the whole seconds until it starts afresh (a delta, not a date, so clock skew between
 * client and service does not matter).
 *
 * @example
 * ```ts
 * const limiter = new RateLimiter(clock.now);
 * const decision = limiter.take('key:vsk_...', DEFAULT_QUOTA);
 * if (!decision.allowed) answer429(rateLimitHeaders(decision));
 * ```
 */

/** spec 8: 100 requests a minute and 10,000 an hour unless configured otherwise. */
export const DEFAULT_QUOTA: Quota = { perMinute: 100, perHour: 10_000 };

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** Buckets are swept of finished windows once there are this many, so unused keys and addresses are forgotten. */
const SWEEP_AT = 10_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the reported window starts afresh. */
  resetSeconds: number;
  /** On a refusal: seconds until every exhausted window has started afresh. */
  retryAfterSeconds: number | undefined;
}

interface Window {
  limit: number;
  lengthMs: number;
  startedAt: number;
  used: number;
}

interface Bucket {
  minute: Window;
  hour: Window;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one request of `bucket` against `quota`, unless a window is already used up. */
  take(bucket: string, quota: Quota): RateDecision {
    const now = this.now();
    if (this.buckets.size >= SWEEP_AT) this.sweep(now);
    const windows = this.windowsOf(bucket, quota, now);
    const exhausted = windows.filter((w) => w.used >= w.limit);
    const allowed = exhausted.length === 0;
    if (allowed) for (const w of windows) w.used += 1;
    const seconds = (w: Window) => Math.max(1, Math.ceil((w.startedAt + w.lengthMs - now) / 1000));
    // The window closest to running out; of two equally close, the one that takes longer to come back.
    const shown = windows.reduce((a, b) => {
      const left = (w: Window) => w.limit - w.used;
      return left(b) < left(a) || (left(b) === left(a) && seconds(b) > seconds(a)) ? b : a;
    });
    return {
      allowed,
      limit: shown.limit,
      remaining: Math.max(0, shown.limit - shown.used),
      resetSeconds: seconds(shown),
      retryAfterSeconds: allowed ? undefined : Math.max(...exhausted.map(seconds)),
    };
  }

  clear(): void {
    this.buckets.clear();
  }

  private windowsOf(bucket: string, quota: Quota, now: number): Window[] {
    const previous = this.buckets.get(bucket);
    const current = (w: Window | undefined, limit: number, lengthMs: number): Window =>
      // A quota changed at run time applies to the running window at once.
      w && w.startedAt + w.lengthMs > now ? { ...w, limit } : { limit, lengthMs, startedAt: now, used: 0 };
    const next: Bucket = {
      minute: current(previous?.minute, quota.perMinute, MINUTE_MS),
      hour: current(previous?.hour, quota.perHour, HOUR_MS),
    };
    this.buckets.set(bucket, next);
    return [next.minute, next.hour];
  }

  private sweep(now: number): void {
    for (const [bucket, { minute, hour }] of this.buckets) {
      if ([minute, hour].every((w) => w.startedAt + w.lengthMs <= now)) this.buckets.delete(bucket);
    }
  }
}

/** The headers every response carries (spec 8), and `Retry-After` on a refusal. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetSeconds),
  };
  if (decision.retryAfterSeconds !== undefined) headers['Retry-After'] = String(decision.retryAfterSeconds);
  return headers;
}
