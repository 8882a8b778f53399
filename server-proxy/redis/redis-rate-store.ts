import { RateLimiterRedis } from 'rate-limiter-flexible';
import { limiterStore, type RateStore } from '../access/rate-store.js';
import { connectRedis } from './redis-client.js';

/**
 * The rate store on Redis, so every proxy replica behind a load balancer counts a user's requests together:
 * rate-limiter-flexible's Redis limiter, whose one Lua script counts a hit and starts its window atomically.
 * Windows are whole seconds there.
 */

/** Options of {@link createRedisRateStore}. */
export interface RedisRateStoreOptions {
  /** e.g. `redis://127.0.0.1:6379`. */
  url: string;
  /** Prefix of every key the store writes; default `voice-proxy:rate:`. */
  prefix?: string;
  /** Connection attempt limit in ms; default 2 s. */
  connectTimeoutMs?: number;
}

/**
 * Connects to Redis and returns a {@link RateStore} on it.
 *
 * @remarks
 * Commands are not queued while the connection is down (`disableOfflineQueue`): a hit then fails at once
 * and the limiter decides what to do, instead of a request waiting for Redis to come back. Rejects when
 * Redis cannot be reached at all, so start-up stops with one line instead of waiting.
 *
 * @example
 * ```ts
 * const store = await createRedisRateStore({ url: process.env.REDIS_URL! });
 * createVoiceProxy({ ..., rateLimit: { perMinute: 80, store } });
 * ```
 */
export async function createRedisRateStore(options: RedisRateStoreOptions): Promise<RateStore> {
  const prefix = options.prefix ?? 'voice-proxy:rate:';
  const client = await connectRedis(options.url, options.connectTimeoutMs);
  const store = limiterStore(
    (limits) => new RateLimiterRedis({ storeClient: client, useRedisPackage: true, keyPrefix: `${prefix}${limits.duration}s`, ...limits }),
    async () => client.destroy(),
  );
  return {
    ...store,
    async ping() {
      await client.ping();
    },
  };
}
