import { isTerminal, type CallEvent, type CallSlice } from '../core/machines/call-machine.js';
import type { Clock } from '../core/clock.js';
import { toVoiceError } from '../core/errors.js';
import { createPoller, type Expectation, type Poller, type PollerOptions } from './poller.js';
import type { BrowserCall } from '../core/types.js';
import type { CallbackOptions, VoiceBackend } from '../core/backend-types.js';

/**
 * The reads of the call half: the one poller of a named call, or the reads that look for the call of a lost
 * request (reconcile by reads, never by dialing again). What a read shows goes back to the call machine as an
 * event; the reads decide nothing about the call.
 */

/**
 * How a call is read, hung up, and looked for after its request lost its answer: a browser call's routes
 * ({@link browserCallRoutes}), or a caller's claimed from a queue (by answerNext(), accept() or monitor(), or
 * found by recover()).
 */
export interface CallRoutes {
  read(id: string, options: CallbackOptions): Promise<BrowserCall>;
  hangup(id: string, options: CallbackOptions): Promise<BrowserCall>;
  /** The call a lost request made, if a read finds it; null: none runs. */
  find(options: CallbackOptions): Promise<BrowserCall | null>;
}

/** What the reads of a call report to, and read: the call machine. */
export interface CallPorts {
  dispatch(event: CallEvent): void;
  /** The call machine's state now. */
  call(): CallSlice;
}

/** What the call's reads are given: the call machine's ports, the clock, and the current call's routes. */
export interface CallReadsPorts extends CallPorts {
  clock: Clock;
  /** The current call's routes: a browser call's ({@link browserCallRoutes}), or a queue's caller's. */
  routes(): CallRoutes;
}

export interface CallReads {
  /** Reads the call about once a second until a read shows it over. */
  poll(callId: string): void;
  /** Replaces the poller with one of `read` (the reconciling reads of a lost request). */
  watch<T>(options: Omit<PollerOptions<T>, 'clock'>): void;
  /** The call a lost request may have made, if its routes' read finds it; null: none runs. */
  lostCall(signal: AbortSignal): Promise<BrowserCall | null>;
  /** Shows a failed read (the error clears at the next good read). */
  failed(error: unknown): void;
  /** Reads now instead of at the next tick (see `Poller.pollNow`). */
  pollNow(expect?: Expectation): void;
  stop(): void;
  /** Resolves true once a read shows the call over (or the reads are stopped for good), false after `ms`. */
  waitForEnd(ms: number): Promise<boolean>;
  /** The call machine ended the call, or the reads stop for good: every wait resolves. */
  ended(): void;
  /**
   * After the session ended (disconnect()): reads until the service proves that no call of this page runs,
   * for at most `ms`. spec 3.2: ending the session is not that proof. A known call is read until a read
   * says it is over. A lost request's call is looked for in the user's current session: named there, it is
   * read until it ends; absent, none runs, and none can start on a session that ended.
   * @returns true once proven; false when a read failed or the call still runs (busy stays true).
   */
  proveEnded(ms: number): Promise<boolean>;
}

/**
 * A browser call's routes: getCall and hangupCall, and, after a lost createCall, the current session's call,
 * only when it is `sessionId()`'s and not `seen` before (an old call is never a lost request's).
 */
export function browserCallRoutes(backend: VoiceBackend, sessionId: () => string | undefined, seen: (callId: string) => boolean): CallRoutes {
  return {
    read: (id, options) => backend.getCall(id, options).then((r) => r.call),
    hangup: (id, options) => backend.hangupCall(id, options).then((r) => r.call),
    find: (options) => backend.getCurrentSession(options).then(({ call }) => (call && call.sessionId === sessionId() && !seen(call.id) ? call : null)),
  };
}

/** Resolves true once woken (the call over, or the reads stopped for good), false after `ms`. */
function waitForWake(clock: Clock, waiters: Set<() => void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = clock.setTimeout(() => {
      waiters.delete(wake);
      resolve(false);
    }, ms);
    const wake = () => {
      clock.clearTimeout(timer);
      resolve(true);
    };
    waiters.add(wake);
  });
}

/** Creates the call's reads; its closure holds the one poller and who waits for the call's end. */
export function createCallReads(ports: CallReadsPorts): CallReads {
  const { clock, dispatch } = ports;
  let poller: Poller | undefined;
  const endWaiters = new Set<() => void>();
  const failed = (error: unknown) => dispatch({ type: 'read_failed', error: toVoiceError(error, 'network_error', 'reading the call failed; retrying').toStatus() });
  const lostCall = (signal: AbortSignal): Promise<BrowserCall | null> => ports.routes().find({ signal });
  const waitForEnd = (ms: number) => (ports.call().busy ? waitForWake(clock, endWaiters, ms) : Promise.resolve(true));
  const watch = <T>(options: Omit<PollerOptions<T>, 'clock'>) => {
    poller?.stop();
    poller = createPoller({ clock, ...options });
  };

  function poll(callId: string): void {
    const routes = ports.routes();
    watch({
      read: (signal) => routes.read(callId, { signal }),
      isTerminal,
      onRead: (call) => {
        dispatch({ type: 'read_ok' });
        dispatch({ type: 'call_read', call });
      },
      onError: failed,
    });
  }

  async function proveEnded(ms: number): Promise<boolean> {
    if (!ports.call().busy) return true;
    if (ports.call().attempt?.phase === 'outcome_unknown') {
      const lost = await lostCall(new AbortController().signal).catch(() => undefined);
      if (lost === undefined) return false;
      // Found, the lost request's call is read until it ends; absent, none runs.
      dispatch(lost ? { type: 'attempt_reconciled', call: lost } : { type: 'attempt_abandoned' });
      if (!lost) return true;
    }
    const { call, busy, attempt } = ports.call();
    if (!busy || !call || attempt?.phase === 'creating') return !busy;
    // Reads the call now, starting its poller again if it had stopped (a recovered call, reads that gave up).
    if (!poller || poller.stopped) poll(call.id);
    poller?.pollNow();
    return waitForEnd(ms);
  }

  return {
    poll,
    watch,
    lostCall,
    failed,
    pollNow: (expect) => poller?.pollNow(expect),
    stop() {
      poller?.stop();
      poller = undefined;
    },
    waitForEnd,
    ended() {
      for (const wake of endWaiters) wake();
      endWaiters.clear();
    },
    proveEnded,
  };
}
