import { RENEWABLE_CONNECTIONS, type Connection, type StatusError } from './types.js';

/**
 * The connection half of the helper as a pure function: `transition(state, event) -> [state, effects]`, as
 * call-machine.ts is for calls. It reads no clock and does no I/O; runtime.ts commits the state, then
 * runs the effects. A move the diagram does not draw is refused: the state comes back unchanged, no effects.
 *
 * @remarks
 * The diagram is the one beside {@link Connection} in types.ts: each event here is one of its arrows, and the
 * `switch` below says from which states it may be taken.
 * Expiry (of the session or its registration, the earlier) blocks new calls, and only `ready` takes
 * them; `expired` and `offline` keep an accepted call running to its own end.
 */

/** The session the page shows: its id and when it expires. */
export interface SessionView {
  id: string;
  expiresAt: string;
}

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
  /** The SIP link gave up (reconnection failed), or the registrar ended the registration. */
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

/** Where the link's end leaves a session the service still holds: a lapsed registration is expiry. */
const afterLinkGone = (error: StatusError): Connection => (error.code === 'browser_session_unavailable' ? 'expired' : 'offline');

const HOLDS_LINK: ReadonlySet<Connection> = new Set(['ready', 'reconnecting']);
const CAN_EXPIRE: ReadonlySet<Connection> = new Set(['ready', 'reconnecting', 'expired', 'offline']);

/**
 * Why no call can start in this state, or null when one can: only `ready` with a session takes calls
 *. The words are the message of startCall()'s `browser_session_unavailable`.
 */
export function whyNoCalls(state: ConnectionSlice): string | null {
  if (state.connection === 'ready' && state.session) return null;
  const why: Partial<Record<Connection, string>> = {
    expired: 'the session or its registration expired; renew() it to take calls again',
    offline: 'the SIP connection was lost; renew() to reconnect',
    reconnecting: 'the SIP connection is being restored; try again in a moment',
    recovery_required: 'a session from before the reload must be cleaned up with disconnect() first',
  };
  return why[state.connection] ?? `startCall() while ${state.connection}; connect() and wait for "ready"`;
}

const refused = (state: ConnectionSlice): [ConnectionSlice, ConnectionEffect[]] => [state, []];
const report = (error: StatusError | null): ConnectionEffect => ({ type: 'report', error });

/** One case per event, each the arrows of the diagram above that the event may take. */
export function transition(state: ConnectionSlice, event: ConnectionEvent): [ConnectionSlice, ConnectionEffect[]] {
  const { connection } = state;
  switch (event.type) {
    case 'connect_started':
      if (connection !== 'disconnected' || state.session) return refused(state);
      return [{ ...state, connection: 'connecting' }, [report(null)]];
    case 'session_created':
      if (connection !== 'connecting') return refused(state);
      return [{ ...state, session: event.session }, []];
    case 'registered':
      if (connection !== 'connecting' && connection !== 'renewing') return refused(state);
      return [{ connection: 'ready', session: event.session, renewingFrom: null }, [{ type: 'watch_expiry', expiresAt: event.session.expiresAt }]];
    case 'connect_failed':
      if (connection !== 'connecting') return refused(state);
      return [disconnected, [report(event.error)]];
    case 'renew_started':
      if (!RENEWABLE_CONNECTIONS.has(connection)) return refused(state);
      return [{ ...state, connection: 'renewing', renewingFrom: connection }, [report(null)]];
    case 'renew_failed':
      if (connection !== 'renewing') return refused(state);
      // Once a new session was made the service may have retired the old one: only renew() again helps.
      return [{ ...state, connection: event.sessionCreated ? 'offline' : (state.renewingFrom ?? 'offline'), renewingFrom: null }, [report(event.error)]];
    case 'disconnect_started':
      if (connection === 'disconnecting') return refused(state);
      return [{ ...state, connection: 'disconnecting', renewingFrom: null }, [{ type: 'stop_expiry' }]];
    case 'disconnect_finished':
      if (connection !== 'disconnecting') return refused(state);
      return [{ connection: 'disconnected', session: event.sessionKept ? state.session : null, renewingFrom: null }, [report(event.error)]];
    case 'recovered':
      if (connection !== 'disconnected' || state.session) return refused(state);
      return [{ ...state, connection: 'recovery_required', session: event.session }, [report(null)]];
    case 'socket_dropped':
      if (connection !== 'ready') return refused(state);
      return [{ ...state, connection: 'reconnecting' }, []];
    case 'socket_restored':
      if (connection !== 'reconnecting') return refused(state);
      return [{ ...state, connection: 'ready' }, [report(null)]];
    case 'link_gone':
      // The session lives on at the service: an accepted call runs to its end; renew() or disconnect().
      if (!HOLDS_LINK.has(connection)) return refused(state);
      return [{ ...state, connection: afterLinkGone(event.error) }, [report(event.error)]];
    case 'session_refused':
      if (!HOLDS_LINK.has(connection)) return refused(state);
      return [{ ...state, connection: 'expired' }, [report(event.error)]];
    case 'session_expired':
      if (!CAN_EXPIRE.has(connection)) return refused(state);
      return [{ ...state, connection: 'expired' }, [report(event.error)]];
    default:
      // Another machine's event (the runtime offers each event to every machine).
      return refused(state);
  }
}
