import { availabilityOf, type AvailabilityRecord, type AvailabilityStore } from '../desk/availability.js';
import { connectRedis } from './redis-client.js';

/**
 * The availability store on Redis, so every replica offers callers from the same agents' records: one hash,
 * a field per user, its value the record as JSON.
 */

/** Options of {@link createRedisAvailability}. */
export interface RedisAvailabilityOptions {
  /** e.g. `redis://127.0.0.1:6379`. */
  url: string;
  /** The hash's key; default `voice-browser:availability`. */
  key?: string;
  /** Connection attempt limit in ms; default 2 s. */
  connectTimeoutMs?: number;
}

const parse = (value: string | null | undefined): AvailabilityRecord | null => {
  try {
    return value ? availabilityOf(JSON.parse(value)) : null;
  } catch {
    return null;
  }
};

/**
 * Connects to Redis and returns an {@link AvailabilityStore} on it.
 *
 * @remarks
 * As the other Redis stores: commands are not queued while the connection is down, so a read or write then
 * fails at once (the page's route answers 500, the router skips that round); rejects when Redis cannot be
 * reached at start-up.
 *
 * @example
 * ```ts
 * const availability = await createRedisAvailability({ url: process.env.REDIS_URL! });
 * createVoiceProxy({ ..., queues: { ..., offers: { queues: [supportQueueId], availability } } });
 * ```
 */
export async function createRedisAvailability(options: RedisAvailabilityOptions): Promise<AvailabilityStore> {
  const key = options.key ?? 'voice-browser:availability';
  const client = await connectRedis(options.url, options.connectTimeoutMs);
  return {
    get: async (subject) => parse(await client.hGet(key, subject)),
    async set(record) {
      await client.hSet(key, record.subject, JSON.stringify(record));
    },
    all: async () => (await client.hVals(key)).map(parse).filter((record): record is AvailabilityRecord => record !== null),
    async close() {
      client.destroy();
    },
  };
}
