import type { Clock } from './clock.js';
import { isVoiceBrowserError } from './errors.js';
import type { BrowserCall } from './types.js';

/**
 * The one poller of an active call (spec 4.9: about once a second; callers add no second poller).
 *
 * @remarks
 * Never two reads in flight: `pollNow()` during a read asks for one more read right after it. It stops by
 * itself once `isTerminal` says so, and on `429` waits the `Retry-After` the service asked for.
 */

export interface PollerOptions {
  clock: Clock;
  read(signal: AbortSignal): Promise<BrowserCall>;
  isTerminal(call: BrowserCall): boolean;
  onRead(call: BrowserCall): void;
  onError(error: unknown): void;
  intervalMs?: number;
}

export interface Poller {
  /** Reads now (or right after the read in flight) instead of waiting for the next tick. */
  pollNow(): void;
  /** Stops for good: no timer left, the read in flight aborted. */
  stop(): void;
  readonly stopped: boolean;
}

export function createPoller(options: PollerOptions): Poller {
  const interval = options.intervalMs ?? 1000;
  let timer: unknown;
  let inFlight: AbortController | undefined;
  let again = false;
  let stopped = false;

  const schedule = (ms: number) => {
    if (stopped) return;
    options.clock.clearTimeout(timer);
    timer = options.clock.setTimeout(tick, ms);
  };

  async function tick(): Promise<void> {
    timer = undefined;
    if (stopped) return;
    if (inFlight) {
      again = true;
      return;
    }
    const controller = new AbortController();
    inFlight = controller;
    let wait = interval;
    try {
      const call = await options.read(controller.signal);
      if (stopped) return;
      options.onRead(call);
      if (options.isTerminal(call)) {
        stop();
        return;
      }
    } catch (error) {
      if (stopped) return;
      if (isVoiceBrowserError(error) && error.status === 429) wait = Math.max(interval, error.retryAfterMs ?? interval);
      options.onError(error);
    } finally {
      if (inFlight === controller) inFlight = undefined;
    }
    if (again && wait === interval) {
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
    timer = undefined;
    inFlight?.abort();
    inFlight = undefined;
  }

  // The first read waits a tick: whoever starts the poller has just read the call.
  schedule(interval);
  return {
    pollNow: () => {
      if (stopped) return;
      if (inFlight) again = true;
      else {
        options.clock.clearTimeout(timer);
        void tick();
      }
    },
    stop,
    get stopped() {
      return stopped;
    },
  };
}
