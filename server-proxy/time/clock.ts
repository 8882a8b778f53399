/**
 * Time, injected: every timer the proxy sets and every time it reads goes through one `Clock`, chosen once
 * when the proxy is made (`VoiceProxyOptions.clock`), so a test drives a fake one instead of waiting.
 *
 * @remarks
 * The same shape as the page library's clock, so the library's `FakeClock` (`voice-browser/testing`) fits.
 * Unset, the proxy uses the process's own (`Date.now` and the global timers).
 *
 * @example
 * ```ts
 * import { createVoiceProxy, type Clock } from '@voice-browser/server';
 * import { FakeClock } from 'voice-browser/testing';
 *
 * const clock: Clock = new FakeClock(Date.UTC(2026, 0, 1));
 * const proxy = createVoiceProxy({ baseUrl, apiKey, authenticate, clock });
 * ```
 */
export interface Clock {
  /** Milliseconds since the epoch, as `Date.now()`. */
  now(): number;
  /** Runs `run` once after `ms`; the handle goes to {@link Clock.clearTimeout}. */
  setTimeout(run: () => void, ms: number): unknown;
  /** Cancels a timer of {@link Clock.setTimeout}; a handle already run or cleared is ignored. */
  clearTimeout(handle: unknown): void;
}

/** The process's real clock. Resolved on use, so importing the proxy touches no global. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => globalThis.setTimeout(run, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Runs `run` every `ms` on `clock` until the returned stop is called: a timer set again after each run, so
 * a clock with only one-shot timers (a fake one) drives it too. A `background` one never keeps the process alive.
 */
export function every(clock: Clock, ms: number, run: () => void, background = false): () => void {
  let stopped = false;
  let handle: unknown;
  const arm = () => {
    handle = clock.setTimeout(() => {
      if (stopped) return;
      arm();
      run();
    }, ms);
    if (background) unref(handle);
  };
  arm();
  return () => {
    stopped = true;
    clock.clearTimeout(handle);
  };
}

/** Lets a real timer's handle not keep the process alive (Node's `unref`); any other handle is left as it is. */
export function unref(handle: unknown): void {
  if (typeof handle === 'object' && handle !== null && 'unref' in handle && typeof handle.unref === 'function') handle.unref();
}

/** Resolves after `ms` on `clock`. */
export const pause = (clock: Clock, ms: number): Promise<void> => new Promise((resolve) => void clock.setTimeout(resolve, ms));
