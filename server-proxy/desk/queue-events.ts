import { HttpError } from '../../contract/http-error.js';
import { systemClock } from '../time/clock.js';

/**
 * What agents learn about their queues, and the bus that carries it between proxy replicas: the service's
 * webhook (spec 6.1) reaches one replica, while an agent's event stream may be open on any of them. The bus
 * also remembers which webhooks were seen, so a replayed one (spec 6.1: the signature has no timestamp) is
 * published once, whichever replica it reaches.
 */

/** A caller waiting in a queue, as an agent's page lists it. */
export interface WaitingCaller {
  callId: string;
  queueId: string;
  /** The caller, E.164. */
  from: string;
  /** The number dialled, E.164. */
  to: string;
  /**
   * ISO time the caller has waited since: the call's `createdAt`, or when its webhook was received until a re-read
   * of the queues tells the `createdAt` (`call.updated`).
   */
  since: string;
}

/**
 * One change to a queue's waiting callers, as the bus carries it and the event stream names it:
 *
 * - `call.received`: a caller arrived (the service's webhook).
 * - `call.ended`: a call of the queue reached a terminal `state` (the service's webhook).
 * - `call.claimed`: a dequeue through a proxy took the caller to an agent.
 * - `call.requeued`: the agent did not answer, and the caller waits at the head again.
 * - `call.updated`: a caller already told of, told again as the service's read shows it: its `since` was when
 *   its webhook was received (the webhook carries no creation time), and is now the call's `createdAt`, so the
 *   panels order callers as the service does (`createQueueReconciler`). An event stream sends it as
 *   `call.received` (`followQueues` says why).
 */
export type QueueUpdate =
  | ({ event: 'call.received' | 'call.requeued' | 'call.updated' } & WaitingCaller)
  | { event: 'call.ended'; callId: string; queueId: string; state: string }
  | { event: 'call.claimed'; callId: string; queueId: string };

/** The names of {@link QueueUpdate}, as the bus carries them; the event stream sends each under its own but `call.updated`. */
export type QueueUpdateName = QueueUpdate['event'];

/** Stops one subscription; calling it again does nothing. */
export type Unsubscribe = () => void;

/**
 * Shares the queue updates and the webhook dedupe between replicas: `createMemoryQueueEvents()` for one
 * process, `createRedisQueueEvents({ url })` for several.
 */
export interface QueueEventBus {
  /**
   * Whether `key` is seen here for the first time within `ttlSeconds`: true once, for whichever replica asks
   * first; false for every repeat until it is forgotten.
   */
  firstSeen(key: string, ttlSeconds: number): Promise<boolean>;
  /** Sends `update` to every subscriber on every replica, this one included, once each. */
  publish(update: QueueUpdate): Promise<void>;
  /**
   * Calls `listener` with each update published from the moment it resolves, in the order published, until
   * unsubscribed; `ended` is called if the bus closes first.
   */
  subscribe(listener: (update: QueueUpdate) => void, ended?: () => void): Promise<Unsubscribe>;
  /**
   * Takes or keeps the lease `name` for `holder` for `ttlMs`: true while `holder` has it (taken now, or its own
   * renewed), false while another holder's runs. One holder at a time across replicas: the queues' re-reads
   * (`createQueueReconciler`) are made by one replica, not by each.
   */
  lease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease `name` up if `holder` has it, so another replica takes it at once. */
  releaseLease(name: string, holder: string): Promise<void>;
  /** Ends every subscription (their `ended` is called) and frees what the bus holds; publishing then does nothing. */
  close(): Promise<void>;
}

/** Options of {@link createMemoryQueueEvents}. */
export interface MemoryQueueEventsOptions {
  /** Most dedupe keys held at once; past it the oldest is forgotten first. Default 100,000. */
  maxKeys?: number;
  now?: () => number;
  /** Where a listener's failure is noted; default `console.error`. */
  log?: (line: string) => void;
}

/** A subscriber and what to tell it when the bus closes. */
interface Subscriber {
  listener: (update: QueueUpdate) => void;
  ended: (() => void) | undefined;
}

/**
 * Fans `update` out to `subscribers`; one listener that throws neither stops the others nor the publisher.
 * Shared with the Redis bus, which fans out what its subscription hears.
 */
export function fanOut(subscribers: Iterable<Subscriber>, update: QueueUpdate, log: (line: string) => void = console.error): void {
  for (const { listener } of subscribers) {
    try {
      listener(update);
    } catch (error) {
      log(`voice proxy: a queue event listener failed (${error instanceof Error ? error.message : String(error)})`);
    }
  }
}

/** The local half of every bus: subscribers and their end. */
export function createSubscribers() {
  const subscribers = new Set<Subscriber>();
  return {
    all: subscribers as Iterable<Subscriber>,
    add(listener: Subscriber['listener'], ended: Subscriber['ended']): Unsubscribe {
      const subscriber = { listener, ended };
      subscribers.add(subscriber);
      return () => void subscribers.delete(subscriber);
    },
    /** Tells every subscriber the bus has closed, and forgets them. */
    end(): void {
      const ending = [...subscribers];
      subscribers.clear();
      for (const { ended } of ending) ended?.();
    },
  };
}

/**
 * The bus in this process's memory: enough for one replica (the default of `createVoiceProxy`'s `queues`).
 *
 * @remarks
 * Dedupe keys are held until their time runs out, and at most `maxKeys` of them, the oldest forgotten first:
 * a replay older than that is published again, as it would be after Redis forgot it.
 *
 * @example
 * ```ts
 * createVoiceProxy({ ..., queues: { notifySecret, queuesFor, events: createMemoryQueueEvents() } });
 * ```
 */
export function createMemoryQueueEvents(options: MemoryQueueEventsOptions = {}): QueueEventBus {
  const maxKeys = options.maxKeys ?? 100_000;
  const now = options.now ?? systemClock.now;
  /** Key to the time it is forgotten; a Map iterates in insertion order, so the oldest come first. */
  const seen = new Map<string, number>();
  const subscribers = createSubscribers();
  /** Lease name to its holder and when it lapses. */
  const leases = new Map<string, { holder: string; until: number }>();
  let closed = false;

  /** Forgets the keys whose time is up, and the oldest until one more fits within `maxKeys`. */
  const forget = (at: number) => {
    for (const [key, until] of seen) {
      if (until > at && seen.size < maxKeys) break;
      seen.delete(key);
    }
  };

  return {
    async firstSeen(key, ttlSeconds) {
      const at = now();
      forget(at);
      const until = seen.get(key);
      if (until !== undefined && until > at) return false;
      // Deleted first, so a key seen again goes to the end of the insertion order.
      seen.delete(key);
      seen.set(key, at + ttlSeconds * 1000);
      return true;
    },
    async publish(update) {
      if (!closed) fanOut(subscribers.all, update, options.log);
    },
    async subscribe(listener, ended) {
      if (closed) throw new HttpError(503, 'queue_events_unavailable', 'queue events cannot be followed right now; reconnect in a moment');
      return subscribers.add(listener, ended);
    },
    async lease(name, holder, ttlMs) {
      const at = now();
      const current = leases.get(name);
      if (current && current.holder !== holder && current.until > at) return false;
      leases.set(name, { holder, until: at + ttlMs });
      return true;
    },
    async releaseLease(name, holder) {
      if (leases.get(name)?.holder === holder) leases.delete(name);
    },
    async close() {
      closed = true;
      seen.clear();
      leases.clear();
      subscribers.end();
    },
  };
}
