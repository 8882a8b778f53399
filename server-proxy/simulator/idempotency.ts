import { HttpError } from '../http-error.js';

/**
 * Idempotency-Key records of the simulated service (spec 3.4): one per API key, operation and key value.
 *
 * @remarks
 * In progress: a retry gets `409 idempotency_in_progress` with `Retry-After: 5`. A 2xx is kept 24 hours and
 * replayed verbatim for the same input; other input under the key gets `409 idempotency_conflict`. An
 * ordinary non-2xx releases the key at once.
 */

export interface StoredResponse {
  status: number;
  body: unknown;
}

interface IdempotencyRecord {
  fingerprint: string;
  response: StoredResponse | undefined;
  expiresAt: number;
}

const RETENTION_MS = 24 * 60 * 60 * 1000;

/** Canonical JSON (sorted keys) so that `{a, b}` and `{b, a}` are the same input. */
export function fingerprint(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

export class IdempotencyStore {
  private readonly records = new Map<string, IdempotencyRecord>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Runs `work` once per (namespace, key) and input; replays the stored 2xx for an exact retry.
   * `namespace` separates API keys and operations (spec 3.4, 5.11).
   */
  async run(namespace: string, key: string, input: unknown, work: () => Promise<StoredResponse>): Promise<StoredResponse> {
    const id = `${namespace}\n${key}`;
    const print = fingerprint(input);
    const now = this.now();
    const existing = this.records.get(id);
    if (existing && existing.expiresAt > now) {
      if (existing.fingerprint !== print) {
        throw new HttpError(409, 'idempotency_conflict', 'this Idempotency-Key was used with other input; use a new key for a new attempt');
      }
      if (!existing.response) {
        throw new HttpError(409, 'idempotency_in_progress', 'a request with this Idempotency-Key is still running; retry later', { 'Retry-After': '5' });
      }
      return existing.response;
    }
    const record: IdempotencyRecord = { fingerprint: print, response: undefined, expiresAt: now + RETENTION_MS };
    this.records.set(id, record);
    try {
      const response = await work();
      if (response.status >= 200 && response.status < 300) record.response = response;
      else this.records.delete(id);
      return response;
    } catch (error) {
      // An ordinary rejection releases the key (spec 3.4).
      this.records.delete(id);
      throw error;
    }
  }

  clear(): void {
    this.records.clear();
  }
}
