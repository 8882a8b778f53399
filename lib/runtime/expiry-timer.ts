import type { Clock } from '../core/clock.js';
import type { ConnectionEvent } from '../core/machines/connection-machine.js';

/**
 * The timer of a session's `expiresAt` (expiry blocks new calls; an accepted call keeps its own
 * limit). The connection machine asks for it (`watch_expiry`, `stop_expiry`); the runtime runs it.
 *
 * @remarks
 * Part of the SIP chunk (the parts `connect()` loads): only a registered session is watched.
 */

/** The longest delay a browser timer takes (2^31 - 1 ms): a far expiry is timed in steps of it. */
const MAX_TIMER_MS = 2_147_483_647;

export interface ExpiryTimer {
  /** Tells `session_expired` once `expiresAt` has passed, replacing any earlier watch; an unreadable date is not watched. */
  watch(expiresAt: string): void;
  stop(): void;
}

export function createExpiryTimer(clock: Clock, dispatch: (event: ConnectionEvent) => void): ExpiryTimer {
  let timer: unknown;
  function watch(expiresAt: string): void {
    clock.clearTimeout(timer);
    const ms = Date.parse(expiresAt) - clock.now();
    if (Number.isNaN(ms)) return;
    timer = clock.setTimeout(() => {
      if (Date.parse(expiresAt) > clock.now()) return watch(expiresAt);
      dispatch({ type: 'session_expired', error: { code: 'browser_session_unavailable', message: 'the session expired; renew() it while idle to take calls again' } });
    }, Math.min(Math.max(0, ms), MAX_TIMER_MS));
  }
  return {
    watch,
    stop: () => clock.clearTimeout(timer),
  };
}
