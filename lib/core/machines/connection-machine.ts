import { RENEWABLE_CONNECTIONS, type BrowserSession, type Connection, type StatusError } from '../types.js';

/**
 * The connection half of the helper as a pure function: `transition(state, event) -> [state, effects]`, as
 * the call machine is for calls. It reads no clock and does no I/O; the runtime commits the state, then
 * runs the effects. A move the diagram does not draw is refused: the state comes back unchanged, no effects.
 *
 * @remarks
 * The diagram is the one beside {@link Connection}: each event here is one of its arrows, and the
 * record of moves below says from which states it may be taken.
 * Expiry (of the session or its registration, the earlier) blocks new calls, and only `ready` takes
 * them; `reconnecting`, `offline` and `expired` keep an accepted call running to its own end.
 */

/** The session the page shows: its id and when it expires. */
export interface SessionView {
  id: string;
  expiresAt: string;
}

/** The session as the status shows it. */
export const sessionView = (session: BrowserSession): SessionView => ({ id: session.id, expiresAt: session.expiresAt });

export interface ConnectionSlice {
  connection: Connection;
  session: SessionView | null;
  /** Where a renewal started from: where a renewal that made no session goes back to. */
  renewingFrom: Connection | null;
}

export type ConnectionEvent =
  | { type: 'connect_started' }
  /** connect(): the service made the session; its link is not registered yet. */
  | { type: 'session_created'; session: SessionView }
  /** The new session's link registered (connect() or renew()). */
  | { type: 'registered'; session: SessionView }
  | { type: 'connect_failed'; error: StatusError }
  | { type: 'renew_started' }
  /** `sessionCreated`: the service made the new session before the failure, and may have retired the old one. */
  | { type: 'renew_failed'; error: StatusError; sessionCreated: boolean }
  | { type: 'disconnect_started' }
  /** `sessionKept`: ending the session failed, so it is still shown (disconnect() can be called again). */
  | { type: 'disconnect_finished'; sessionKept: boolean; error: StatusError | null }
  /** recover() read a session of this user from before the reload. */
  | { type: 'recovered'; session: SessionView }
  | { type: 'socket_dropped' }
  | { type: 'socket_restored' }
  /** While the link reconnects, the browser says it is offline, or online again. */
  | { type: 'browser_offline' }
  | { type: 'browser_online' }
  /** The registration ended for good: the registrar refused the credentials, or the session is over. */
  | { type: 'link_gone'; error: StatusError }
  /** The service refused a call because the session or its registration is gone. */
  | { type: 'session_refused'; error: StatusError }
  /** The session's `expiresAt` passed. */
  | { type: 'session_expired'; error: StatusError };

export type ConnectionEffect =
  /** What `status().error` says now (null clears it); given with the move that decides it. */
  | { type: 'report'; error: StatusError | null }
  /** Time the session's `expiresAt`, replacing any earlier watch. */
  | { type: 'watch_expiry'; expiresAt: string }
  | { type: 'stop_expiry' };

export const disconnected: ConnectionSlice = { connection: 'disconnected', session: null, renewingFrom: null };

const HOLDS_LINK: ReadonlySet<Connection> = new Set(['ready', 'reconnecting', 'offline']);
const RESTORING: ReadonlySet<Connection> = new Set(['reconnecting', 'offline']);
const CAN_EXPIRE: ReadonlySet<Connection> = new Set(['ready', 'reconnecting', 'expired', 'offline']);

/**
 * Why no call can start in this state, or null when one can: only `ready` with a session takes calls
 *. The words are the message of startCall()'s `browser_session_unavailable`.
 */
export function whyNoCalls(state: ConnectionSlice): string | null {
  if (state.connection === 'ready' && state.session) return null;
  const why: Partial<Record<Connection, string>> = {
    expired: 'the session or its registration expired; renew() it to take calls again',
    offline: 'the browser is offline; the SIP connection is restored once it is back online',
    reconnecting: 'the SIP connection is being restored; try again in a moment',
    recovery_required: 'a session from before the reload must be cleaned up with disconnect() first',
  };
  return why[state.connection] ?? `startCall() while ${state.connection}; connect() and wait for "ready"`;
}

type Move = [ConnectionSlice, ConnectionEffect[]];
const report = (error: StatusError | null): ConnectionEffect => ({ type: 'report', error });

/**
 * One move per event, each the arrows of the diagram (beside {@link Connection}) that the event may take: false
 * where the state is not one it is drawn from.
 */
const MOVES: { [T in ConnectionEvent['type']]: (state: ConnectionSlice, event: Extract<ConnectionEvent, { type: T }>) => Move | false } = {
  connect_started: (state) => state.connection === 'disconnected' && !state.session && [{ ...state, connection: 'connecting' }, [report(null)]],
  session_created: (state, event) => state.connection === 'connecting' && [{ ...state, session: event.session }, []],
  registered: (state, event) =>
    (state.connection === 'connecting' || state.connection === 'renewing') && [
      { connection: 'ready', session: event.session, renewingFrom: null },
      [{ type: 'watch_expiry', expiresAt: event.session.expiresAt }],
    ],
  connect_failed: (state, event) => state.connection === 'connecting' && [disconnected, [report(event.error)]],
  renew_started: (state) => RENEWABLE_CONNECTIONS.has(state.connection) && [{ ...state, connection: 'renewing', renewingFrom: state.connection }, [report(null)]],
  // Once a new session was made the service may have retired the old one: only renew() again helps.
  renew_failed: (state, event) =>
    state.connection === 'renewing' && [
      { ...state, connection: event.sessionCreated ? 'expired' : (state.renewingFrom ?? 'expired'), renewingFrom: null },
      [report(event.error)],
    ],
  disconnect_started: (state) => state.connection !== 'disconnecting' && [{ ...state, connection: 'disconnecting', renewingFrom: null }, [{ type: 'stop_expiry' }]],
  disconnect_finished: (state, event) =>
    state.connection === 'disconnecting' && [
      { connection: 'disconnected', session: event.sessionKept ? state.session : null, renewingFrom: null },
      [report(event.error)],
    ],
  recovered: (state, event) =>
    state.connection === 'disconnected' && !state.session && [{ ...state, connection: 'recovery_required', session: event.session }, [report(null)]],
  socket_dropped: (state) => state.connection === 'ready' && [{ ...state, connection: 'reconnecting' }, []],
  socket_restored: (state) => RESTORING.has(state.connection) && [{ ...state, connection: 'ready' }, [report(null)]],
  browser_offline: (state) => state.connection === 'reconnecting' && [{ ...state, connection: 'offline' }, []],
  // Back online the link tries at once: the status says so.
  browser_online: (state) => state.connection === 'offline' && [{ ...state, connection: 'reconnecting' }, []],
  // The session lives on at the service: an accepted call runs to its end; renew() or disconnect().
  link_gone: (state, event) => HOLDS_LINK.has(state.connection) && [{ ...state, connection: 'expired' }, [report(event.error)]],
  session_refused: (state, event) => HOLDS_LINK.has(state.connection) && [{ ...state, connection: 'expired' }, [report(event.error)]],
  session_expired: (state, event) => CAN_EXPIRE.has(state.connection) && [{ ...state, connection: 'expired' }, [report(event.error)]],
};

/**
 * The move {@link MOVES} draws for the event; a move it does not draw, or another machine's event (the runtime
 * offers each event to every machine), is refused: the state comes back unchanged, no effects.
 */
export function transition(state: ConnectionSlice, event: ConnectionEvent): [ConnectionSlice, ConnectionEffect[]] {
  const move = MOVES[event.type] as ((state: ConnectionSlice, event: ConnectionEvent) => Move | false) | undefined;
  return move?.(state, event) || [state, []];
}
