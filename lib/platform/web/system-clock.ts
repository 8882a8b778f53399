import type { Clock } from '../../core/clock.js';

/** The page's real clock. Resolved on use, so importing the library touches no global. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => globalThis.setTimeout(run, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};
