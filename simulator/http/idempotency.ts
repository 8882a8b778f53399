import { HttpError } from '../../contract/http-error.js';

/**
 * Idempotency-Key records of the simulated service (spec 3.4): one per namespace (API key and operation)
 * and key value.
 *
 * @remarks
 * In progress: a retry gets `409 idempotency_in_progress` with `Retry-After: 5`. A 2xx is kept 24 hours and
 * replayed verbatim (the same status and the same bytes) for the same input; other input under the key gets
 * `409 idempotency_conflict`. An ordinary non-2xx releases the key at once.
 *
 * @example
 * ```ts
 * const store = new IdempotencyStore(clock.now);
 * const { status, body, replayed } = await store.run(`${apiKey}\nPOST /browser-calls`, key, input, async () => ({
 *   status: 202,
 *   body: JSON.stringify({ call: await service.createCall(owner, input) }),
 * }));
 * ```
 */

export interface StoredResponse {
  status: number;
  /** The response body exactly as first sent, so that a replay is byte for byte the same. */
  body: string;
}

interface IdempotencyRecord {
  fingerprint: string;
  response: StoredResponse | undefined;
  expiresAt: number;
}

/** spec 3.4, 8: a cached response is kept 24 hours. */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
/** spec 3.4, 8: what a retry of a request still running is told to wait. */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 5;

/** Canonical JSON (sorted keys) so that `{a, b}` and `{b, a}` are the same input. */
export function fingerprint(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

export class IdempotencyStore {
  private readonly records = new Map<string, IdempotencyRecord>();
  /** Expired records are swept when the store reaches this size, which then doubles. */
  private sweepAt = 1024;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Runs `work` once per (namespace, key) and input; replays the stored 2xx for an exact retry.
   * `namespace` separates API keys and operations (spec 3.4, 4.7, 5.11).
   */
  async run(namespace: string, key: string, input: unknown, work: () => Promise<StoredResponse>): Promise<StoredResponse & { replayed: boolean }> {
    const id = `${namespace}\n${key}`;
    const print = fingerprint(input);
    const now = this.now();
    const existing = this.records.get(id);
    if (existing && existing.expiresAt > now) {
      if (existing.fingerprint !== print) {
        throw new HttpError(409, 'idempotency_conflict', 'this Idempotency-Key was used with other input; use a new key for a new attempt');
      }
      if (!existing.response) {
        throw new HttpError(409, 'idempotency_in_progress', 'a request with this Idempotency-Key is still running; retry it later with the same key', {
          'Retry-After': String(IN_PROGRESS_RETRY_AFTER_SECONDS),
        });
      }
      return { ...existing.response, replayed: true };
    }
    if (this.records.size >= this.sweepAt) this.sweep(now);
    const record: IdempotencyRecord = { fingerprint: print, response: undefined, expiresAt: now + RETENTION_MS };
    this.records.set(id, record);
    try {
      const response = await work();
      if (response.status >= 200 && response.status < 300) {
        record.response = response;
        // spec 3.4: the 24 hours count from the cached answer, not from the start of the work.
        record.expiresAt = this.now() + RETENTION_MS;
      } else {
        this.release(id, record);
      }
      return { ...response, replayed: false };
    } catch (error) {
      // An ordinary rejection releases the key (spec 3.4).
      this.release(id, record);
      throw error;
    }
  }

  clear(): void {
    this.records.clear();
  }

  /** Forgets `record`, unless the key has moved on to a newer one meanwhile. */
  private release(id: string, record: IdempotencyRecord): void {
    if (this.records.get(id) === record) this.records.delete(id);
  }

  private sweep(now: number): void {
    for (const [id, record] of this.records) if (record.response && record.expiresAt <= now) this.records.delete(id);
    this.sweepAt = Math.max(1024, this.records.size * 2);
  }
}
