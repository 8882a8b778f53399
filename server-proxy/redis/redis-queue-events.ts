import { HttpError } from '../../contract/http-error.js';
import { createSubscribers, fanOut, type QueueEventBus, type QueueUpdate } from '../desk/queue-events.js';
import { connectRedis } from './redis-client.js';

/**
 * The queue event bus on Redis, so a webhook that reached one replica reaches the agents' event streams on
 * every replica: updates go through one pub/sub channel, and the webhook dedupe is one `SET key 1 NX EX` that
 * only the first replica to see an event wins; a lease (`SET NX PX`, renewed by its holder alone) lets one
 * replica at a time re-read the queues.
 *
 * @remarks
 * A Redis connection in subscriber mode runs no other command, so the bus holds two: one to publish and
 * dedupe, one subscribed. Every local subscriber hangs off the one subscription. Pub/sub keeps nothing for a
 * connection that is down: when the subscribed one drops, the open subscriptions are ended, so each agent's
 * page reconnects and reads a fresh snapshot instead of missing what was published meanwhile.
 */

/** Options of {@link createRedisQueueEvents}. */
export interface RedisQueueEventsOptions {
  /** e.g. `redis://127.0.0.1:6379`. */
  url: string;
  /** The pub/sub channel every replica shares; default `voice-browser:queue-events`. */
  channel?: string;
  /** Prefix of the dedupe keys; default `voice-browser:queue-event:`. */
  prefix?: string;
  /** Connection attempt limit in ms; default 2 s. */
  connectTimeoutMs?: number;
  /** Where a message on the channel that is not an update is noted; default `console.error`. */
  log?: (line: string) => void;
}

/** Takes the lease KEYS[1] for ARGV[1] for ARGV[2] ms, or renews it when ARGV[1] holds it: 1 held, 0 another's. */
const LEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;

/** Deletes the lease KEYS[1] only when ARGV[1] holds it. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** What the channel carries, read back; anything else on it is not ours. */
function parseUpdate(message: string): QueueUpdate | null {
  try {
    const update = JSON.parse(message) as Partial<QueueUpdate> | null;
    return typeof update?.event === 'string' && typeof update.callId === 'string' && typeof update.queueId === 'string' ? (update as QueueUpdate) : null;
  } catch {
    return null;
  }
}

/**
 * Connects to Redis twice (commands, subscription) and returns a {@link QueueEventBus} on it.
 *
 * @remarks
 * As the Redis stores: commands are not queued while a connection is down, so a publish or dedupe then fails
 * at once (the webhook receiver logs it); rejects when Redis cannot be reached at start-up. A subscription
 * asked for while the subscribed connection is down is refused `503 queue_events_unavailable`.
 *
 * @example
 * ```ts
 * const events = await createRedisQueueEvents({ url: process.env.REDIS_URL! });
 * createVoiceProxy({ ..., queues: { notifySecret, queuesFor, events } });
 * // at shutdown: await events.close();
 * ```
 */
export async function createRedisQueueEvents(options: RedisQueueEventsOptions): Promise<QueueEventBus> {
  const channel = options.channel ?? 'voice-browser:queue-events';
  const prefix = options.prefix ?? 'voice-browser:queue-event:';
  const log = options.log ?? console.error;
  const client = await connectRedis(options.url, options.connectTimeoutMs);
  const subscriber = await connectRedis(options.url, options.connectTimeoutMs).catch((error: unknown) => {
    client.destroy();
    throw error;
  });
  const subscribers = createSubscribers();
  let closed = false;

  await subscriber.subscribe(channel, (message) => {
    const update = parseUpdate(message);
    if (update) fanOut(subscribers.all, update, log);
    else log('voice proxy: a message on the queue event channel is not a queue update; ignored');
  });
  // What is published while the connection is down never reaches it: the streams start afresh.
  subscriber.on('reconnecting', () => subscribers.end());

  return {
    async firstSeen(key, ttlSeconds) {
      const set = await client.set(`${prefix}${key}`, '1', { condition: 'NX', expiration: { type: 'EX', value: ttlSeconds } });
      return set !== null;
    },
    async publish(update) {
      if (!closed) await client.publish(channel, JSON.stringify(update));
    },
    async subscribe(listener, ended) {
      if (closed || !subscriber.isReady) throw new HttpError(503, 'queue_events_unavailable', 'queue events cannot be followed right now; reconnect in a moment');
      return subscribers.add(listener, ended);
    },
    async lease(name, holder, ttlMs) {
      return (await client.eval(LEASE, { keys: [`${prefix}lease:${name}`], arguments: [holder, String(ttlMs)] })) === 1;
    },
    async releaseLease(name, holder) {
      await client.eval(RELEASE, { keys: [`${prefix}lease:${name}`], arguments: [holder] });
    },
    async close() {
      closed = true;
      subscribers.end();
      subscriber.destroy();
      client.destroy();
    },
  };
}
