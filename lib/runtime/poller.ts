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

/** The poller's one state: its timer, the read in flight, the back-off and the change a read should show. */
interface PollState<T> extends PollerOptions<T> {
  readonly interval: number;
  timer?: unknown;
  inFlight?: AbortController;
  /** A `pollNow()` came during the read in flight: one more read right after it. */
  again?: boolean;
  stopped: boolean;
  /** Until when the service asked us to wait (429 Retry-After). */
  backoffUntil: number;
  /** The change the last `pollNow(expect)` named, and how many quick reads it may still take. */
  expected?: Expectation;
  triesLeft: number;
}

/** The next read in `ms` (none once stopped), in place of any timer set. */
function schedule<T>(state: PollState<T>, ms: number): void {
  if (state.stopped) return;
  state.clock.clearTimeout(state.timer);
  state.timer = state.clock.setTimeout(() => tick(state), ms);
}

/** Stops for good: no timer left, the read in flight aborted. */
function stop<T>(state: PollState<T>): void {
  state.stopped = true;
  state.clock.clearTimeout(state.timer);
  state.inFlight?.abort();
}

/** One read, from its start to its next schedule; during a read in flight, asks for one more after it. */
async function tick<T>(state: PollState<T>): Promise<void> {
  if (state.stopped) return;
  if (state.inFlight) {
    state.again = true;
    return;
  }
  const controller = new AbortController();
  state.inFlight = controller;
  let wait = state.interval;
  let backedOff = false;
  try {
    const value = await state.read(controller.signal);
    if (state.stopped) return;
    state.onRead(value);
    if (state.isTerminal(value)) {
      stop(state);
      return;
    }
    if (state.expected && !state.expected.shown() && state.triesLeft > 0) {
      state.triesLeft -= 1;
      wait = EXPECT_RETRY_MS;
    } else state.expected = undefined;
  } catch (error) {
    if (state.stopped) return;
    if (isVoiceBrowserError(error) && error.status === 429) {
      wait = Math.max(state.interval, error.retryAfterMs ?? state.interval);
      state.backoffUntil = state.clock.now() + wait;
      backedOff = true;
      state.expected = undefined;
    }
    state.onError(error);
  } finally {
    if (state.inFlight === controller) state.inFlight = undefined;
  }
  if (state.again && !backedOff) {
    state.again = false;
    void tick(state);
  } else {
    state.again = false;
    schedule(state, wait);
  }
}

/**
 * Creates a poller: its state is one record, {@link tick} one read from start to its next schedule.
 */
export function createPoller<T>(options: PollerOptions<T>): Poller {
  const state: PollState<T> = { ...options, interval: options.intervalMs ?? 1000, backoffUntil: 0, stopped: false, triesLeft: 0 };
  // The first read waits a tick: whoever starts the poller has just read the call.
  schedule(state, state.interval);
  return {
    pollNow: (expect) => {
      if (state.stopped || options.clock.now() < state.backoffUntil) return;
      if (expect) {
        state.expected = expect;
        state.triesLeft = EXPECT_TRIES;
      }
      // No timer runs while a read is in flight: tick() then asks for one more read right after it.
      options.clock.clearTimeout(state.timer);
      void tick(state);
    },
    stop: () => stop(state),
    get stopped() {
      return state.stopped;
    },
  };
}
