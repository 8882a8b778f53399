import type { Clock } from '../core/clock.js';
import { isVoiceBrowserError } from '../core/errors.js';

/**
 * The one poller of an active call (about once a second; callers add no second poller).
 *
 * @remarks
 * Never two reads in flight: `pollNow()` during a read asks for one more read right after it. It stops by
 * itself once `isTerminal` says so, and on `429` waits the `Retry-After` the service asked for; a `pollNow()`
 * during that wait does not cut it short.
 *
 * A SIP event says the call has just changed, but the service may not have written it yet when the read
 * arrives (the page's 200 OK races the service's own handling of it). `pollNow(expect)` therefore reads
 * again after {@link EXPECT_RETRY_MS} while the read does not show the change yet, at most
 * {@link EXPECT_TRIES} times, instead of showing a stale state for a whole second.
 */

/** How soon, and how many times, a read that does not yet show an expected change is repeated. */
export const EXPECT_RETRY_MS = 150;
export const EXPECT_TRIES = 3;

/** What a read after a SIP event should show; checked after `onRead` has applied the read. */
export interface Expectation {
  shown(): boolean;
}

export interface PollerOptions<T> {
  clock: Clock;
  read(signal: AbortSignal): Promise<T>;
  isTerminal(value: T): boolean;
  onRead(value: T): void;
  onError(error: unknown): void;
  intervalMs?: number;
}

export interface Poller {
  /**
   * Reads now (or right after the read in flight) instead of waiting for the next tick; with `expect`,
   * reads again soon while the change it names is not shown yet (see the file comment).
   */
  pollNow(expect?: Expectation): void;
  /** Stops for good: no timer left, the read in flight aborted. */
  stop(): void;
  readonly stopped: boolean;
}

/**
 * Creates a poller. One closure: its timer, the read in flight and the back-off are one state; `tick` is
 * one read from start to its next schedule.
 */
export function createPoller<T>(options: PollerOptions<T>): Poller {
  const interval = options.intervalMs ?? 1000;
  let timer: unknown;
  let inFlight: AbortController | undefined;
  let again = false;
  let stopped = false;
  /** Until when the service asked us to wait (429 Retry-After). */
  let backoffUntil = 0;
  let expected: { shown(): boolean; triesLeft: number } | undefined;

  const schedule = (ms: number) => {
    if (stopped) return;
    options.clock.clearTimeout(timer);
    timer = options.clock.setTimeout(tick, ms);
  };

  async function tick(): Promise<void> {
    if (stopped) return;
    if (inFlight) {
      again = true;
      return;
    }
    const controller = new AbortController();
    inFlight = controller;
    let wait = interval;
    let backedOff = false;
    try {
      const value = await options.read(controller.signal);
      if (stopped) return;
      options.onRead(value);
      if (options.isTerminal(value)) {
        stop();
        return;
      }
      if (expected && !expected.shown() && expected.triesLeft > 0) {
        expected.triesLeft -= 1;
        wait = EXPECT_RETRY_MS;
      } else expected = undefined;
    } catch (error) {
      if (stopped) return;
      if (isVoiceBrowserError(error) && error.status === 429) {
        wait = Math.max(interval, error.retryAfterMs ?? interval);
        backoffUntil = options.clock.now() + wait;
        backedOff = true;
        expected = undefined;
      }
      options.onError(error);
    } finally {
      if (inFlight === controller) inFlight = undefined;
    }
    if (again && !backedOff) {
      again = false;
      void tick();
    } else {
      again = false;
      schedule(wait);
    }
  }

  function stop(): void {
    stopped = true;
    options.clock.clearTimeout(timer);
    inFlight?.abort();
  }

  // The first read waits a tick: whoever starts the poller has just read the call.
  schedule(interval);
  return {
    pollNow: (expect) => {
      if (stopped || options.clock.now() < backoffUntil) return;
      if (expect) expected = { shown: () => expect.shown(), triesLeft: EXPECT_TRIES };
      // No timer runs while a read is in flight: tick() then asks for one more read right after it.
      options.clock.clearTimeout(timer);
      void tick();
    },
    stop,
    get stopped() {
      return stopped;
    },
  };
}
