import type { Clock } from '../../../core/clock.js';

/**
 * When the link tries again after its flow failed (RFC 5626 section 4.5): the first attempt at once, then waits
 * that double up to a cap, each drawn between half and all of its bound, so the pages an edge's restart dropped
 * together come back spread out instead of in lockstep. It never gives up: whoever runs it says when to stop
 * (the link closed, the session's time is up, the registrar refused the credentials).
 */

/** The bound of the wait after the first failure; each further failure doubles it. */
export const RETRY_BASE_MS = 1000;
/** The longest wait between two attempts (RFC 5626 section 4.5 caps it too). */
export const RETRY_MAX_MS = 30_000;
/**
 * How long a restored flow must stay up before a new drop starts from the first attempt again. A socket the
 * network kills as soon as it is up (Safari closes it 1006 at once, say) counts as a failure, so it is retried
 * ever more slowly instead of in a tight loop.
 */
export const SETTLED_MS = 10_000;

/**
 * The wait before the attempt that follows `failures` failed ones: none before the first; then a bound of
 * {@link RETRY_BASE_MS} doubled per further failure, capped at {@link RETRY_MAX_MS}, of which a random share
 * between half and all is taken (RFC 5626 section 4.5).
 */
export function backoffMs(failures: number, random: () => number): number {
  if (failures <= 0) return 0;
  const bound = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (failures - 1));
  return bound * (0.5 + random() / 2);
}

/** What an attempt's failure may say of the next: the registrar's `Retry-After`, as the least wait. */
export interface AttemptFailure {
  retryAfterMs?: number;
}

/** What a reconnection needs from the link. */
export interface ReconnectionOptions {
  clock: Clock;
  random?: () => number;
  /** One attempt: resolves once the flow is restored and registered; rejects with why not. */
  attempt(): Promise<void>;
  /** Whether to go on trying now (the link is still reconnecting, the session still valid). */
  wanted(): boolean;
  /** Whether an attempt's failure ends the reconnection (the registrar refused the credentials for good). */
  final(error: unknown): boolean;
}

/** The reconnection of one link, from a drop until it is restored or no longer wanted. */
export interface Reconnection {
  /**
   * Tries until an attempt succeeds (resolves `true`), a failure is final or the link stops wanting it
   * (resolves `false`, with the final failure's error, if any, as `final`).
   */
  run(): Promise<{ restored: boolean; final?: unknown }>;
  /** Makes the attempt waited for now: the page is back (online, shown, resumed). Says whether one was waiting. */
  wake(): boolean;
}

const failureOf = (error: unknown): AttemptFailure => (typeof error === 'object' && error !== null ? (error as AttemptFailure) : {});

/** The reconnection of one link: {@link backoffMs} between attempts, until restored, refused for good or no longer wanted. */
export function createReconnection({ clock, random = Math.random, attempt, wanted, final }: ReconnectionOptions): Reconnection {
  let failures = 0;
  let restoredAt = -Infinity;
  let wake: (() => void) | undefined;
  /** Waits `ms`, or less if woken; a hidden page's timer may run late, which only delays the attempt. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = clock.setTimeout(() => resolve(), ms);
      wake = () => {
        clock.clearTimeout(timer);
        resolve();
      };
    }).finally(() => (wake = undefined));

  return {
    async run() {
      // A flow lost soon after its restore failed too; one that held has earned a fresh start.
      failures = clock.now() - restoredAt < SETTLED_MS ? failures + 1 : 0;
      let least = 0;
      for (;;) {
        const wait = Math.max(backoffMs(failures, random), least);
        // The first attempt goes at once: a hidden page's timer would make it wait for the browser's next wake-up.
        await (wait ? pause(wait) : undefined);
        if (!wanted()) return { restored: false };
        try {
          await attempt();
          restoredAt = clock.now();
          return { restored: true };
        } catch (error) {
          if (final(error)) return { restored: false, final: error };
          failures++;
          least = failureOf(error).retryAfterMs ?? 0;
        }
      }
    },
    wake() {
      if (!wake) return false;
      wake();
      return true;
    },
  };
}
