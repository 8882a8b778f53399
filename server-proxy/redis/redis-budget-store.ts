import type { BudgetStore, QuotaReading } from '../budget/budget-store.js';
import { connectRedis } from './redis-client.js';

/**
 * The key's budget on Redis, so every proxy replica spends one budget: the newest quota reading in one key,
 * the leases of the calls in progress in a sorted set scored by when each lapses.
 */

/** Keeps the reading in ARGV[2] unless the stored one is newer (ARGV[1] is the new one's time). */
const OBSERVE = `
local at = tonumber(redis.call('HGET', KEYS[1], 'at') or '-1')
if tonumber(ARGV[1]) >= at then
  redis.call('HSET', KEYS[1], 'at', ARGV[1], 'reading', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], 3600000)
end
return 1
`;

/**
 * Drops the lapsed leases, then holds ARGV[1] until ARGV[2] unless ARGV[4] (a maximum, or empty) places are
 * taken and it holds none: one round trip, atomic at the server, so two replicas never take the last place.
 */
const HOLD = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
local count = redis.call('ZCARD', KEYS[1])
if ARGV[4] ~= '' and count >= tonumber(ARGV[4]) and not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return { 0, count }
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[1], 3600000)
return { 1, redis.call('ZCARD', KEYS[1]) }
`;

/** Options of {@link createRedisBudgetStore}. */
export interface RedisBudgetStoreOptions {
  /** e.g. `redis://127.0.0.1:6379`. */
  url: string;
  /** Prefix of the keys the store writes; default `voice-proxy:budget:`. Replicas spending one key share it. */
  prefix?: string;
  /** Connection attempt limit in ms; default 2 s. */
  connectTimeoutMs?: number;
}

/**
 * Connects to Redis and returns a budget store on it.
 *
 * @remarks
 * As the Redis rate store: commands are not queued while the connection is down, so a new call is refused at
 * once rather than waiting (and hangups and reads go on); rejects when Redis cannot be reached at start-up.
 *
 * @example
 * ```ts
 * const store = await createRedisBudgetStore({ url: process.env.REDIS_URL! });
 * createVoiceProxy({ ..., budget: { store } });
 * ```
 */
export async function createRedisBudgetStore(options: RedisBudgetStoreOptions): Promise<BudgetStore> {
  const prefix = options.prefix ?? 'voice-proxy:budget:';
  const readingKey = `${prefix}reading`;
  const callsKey = `${prefix}calls`;
  const client = await connectRedis(options.url, options.connectTimeoutMs);

  return {
    async observe(reading) {
      await client.eval(OBSERVE, { keys: [readingKey], arguments: [String(reading.at), JSON.stringify(reading)] });
    },
    async reading() {
      const stored = await client.hGet(readingKey, 'reading');
      return stored ? (JSON.parse(stored) as QuotaReading) : null;
    },
    async hold(member, until, now, max) {
      const reply = await client.eval(HOLD, { keys: [callsKey], arguments: [member, String(until), String(now), max === undefined ? '' : String(max)] });
      const [held, count] = Array.isArray(reply) ? reply.map(Number) : [];
      if (held === undefined || count === undefined) throw new Error('redis budget store: unexpected reply to the hold script');
      return { held: held === 1, count };
    },
    async release(member) {
      await client.zRem(callsKey, member);
    },
    async count(now) {
      return client.zCount(callsKey, `(${now}`, '+inf');
    },
    async ping() {
      await client.ping();
    },
    async close() {
      client.destroy();
    },
  };
}
