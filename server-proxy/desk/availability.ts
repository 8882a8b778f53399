/**
 * Whether each user's agent takes offered callers, kept by the proxy: the page says
 * `available` or `away`, and the offer router (`route`) reads every agent's record, with the time it
 * became idle, to offer the longest-idle one first. `createMemoryAvailability()` for one replica,
 * `createRedisAvailability({ url })` for several.
 */

/** What the page says of its agent. */
export type Availability = 'available' | 'away';

/** One user's record: their agent, their word, and the queues `queuesFor` allowed when they said it. */
export interface AvailabilityRecord {
  subject: string;
  /** The user's webrtc agent: a dequeue's `connectTo`. */
  agentId: string;
  availability: Availability;
  /** Since when (ms) the agent has been `availability`: for an available one, idle since. */
  since: number;
  queues: readonly string[];
}

/** Keeps the records; shared between replicas when on Redis. */
export interface AvailabilityStore {
  /** The user's record, or null when they never said. */
  get(subject: string): Promise<AvailabilityRecord | null>;
  /** Replaces the user's record. */
  set(record: AvailabilityRecord): Promise<void>;
  /** Every record, for the router. */
  all(): Promise<AvailabilityRecord[]>;
  close(): Promise<void>;
}

/**
 * The store in this process's memory: enough for one replica.
 *
 * @example
 * ```ts
 * createVoiceProxy({ ..., queues: { ..., offers: { queues: [supportQueueId], availability: createMemoryAvailability() } } });
 * ```
 */
export function createMemoryAvailability(): AvailabilityStore {
  const records = new Map<string, AvailabilityRecord>();
  return {
    get: async (subject) => records.get(subject) ?? null,
    set: async (record) => void records.set(record.subject, { ...record, queues: [...record.queues] }),
    all: async () => [...records.values()],
    close: async () => records.clear(),
  };
}

/** A record read back from storage, or null when it is not one. */
export function availabilityOf(value: unknown): AvailabilityRecord | null {
  const record = value as Partial<AvailabilityRecord> | null;
  const ok =
    typeof record?.subject === 'string' &&
    typeof record.agentId === 'string' &&
    (record.availability === 'available' || record.availability === 'away') &&
    typeof record.since === 'number' &&
    Array.isArray(record.queues) &&
    record.queues.every((queue) => typeof queue === 'string');
  return ok ? (record as AvailabilityRecord) : null;
}
