import type { StatusError } from '../types.js';

/**
 * The SIP link's own life as a pure function: `transition(state, event) -> [state, effects]`, as the
 * connection and call machines are. It reads no clock, no socket and no browser global; the link (the adapter
 * over SIP.js) feeds it what happened to the socket, the registration, the reconnection and the page, then runs
 * the effects it decided against those parts. A move the diagram does not draw is refused: the state comes back
 * unchanged, with only the effects that hold in every phase (a dead socket is let go whatever the phase).
 *
 * ```
 *            registered          dropped, or the binding lapsed
 *  opening ─────────────▶ up ◀───────────────────────▶ reconnecting ──credentials refused, session over──▶ gone
 *     │                    │ │        restored               ▲
 *     │                    │ │ into the back/forward         │ back from the cache
 *     │                    │ ▼ cache, idle                   │
 *     │                    │ suspended ──────────────────────┘
 *     │                    └──a refresh refused for good──▶ gone
 *     └──connect()'s registration refused──▶ closed ◀── close() (from every phase but closed)
 * ```
 * A move is taken only from the phase it is drawn from: a drop while reconnecting is that attempt's failure, a
 * drop while registering the first time is connect()'s, and nothing comes back from `gone` or `closed`.
 */
export type LinkPhase = 'opening' | 'up' | 'reconnecting' | 'suspended' | 'gone' | 'closed';

/** The link's state: its phase, and whether the status says the browser is offline (only while reconnecting). */
export interface LinkState {
  phase: LinkPhase;
  offline: boolean;
}

/** What happened to the link, as the adapter saw it; `offline` is what the browser said then (`navigator.onLine`). */
export type LinkPhaseEvent =
  /** connect()'s REGISTER was answered 2xx. */
  | { type: 'registered' }
  /** connect()'s REGISTER failed: connect() rejects, and the link is let go. */
  | { type: 'register_failed' }
  /** The socket closed by itself, or was dropped (found dead, the binding lapsed). */
  | { type: 'dropped'; offline: boolean }
  /** The registration's binding lapsed (every refresh failed, or a frozen page woke past it). */
  | { type: 'lapsed' }
  /** The keep-alive's last chance went unanswered: the socket is dead though not closed. */
  | { type: 'silent' }
  /** The registrar refused a refresh for good. */
  | { type: 'refresh_refused' }
  /** An attempt of the reconnection registered on a new socket. */
  | { type: 'reconnected' }
  /** The reconnection stopped without one: the credentials refused for good (`final`), or the session is over. */
  | { type: 'reconnect_ended'; final: boolean }
  | { type: 'browser_offline' }
  | { type: 'browser_online' }
  /** The page is back: shown, or resumed after the browser froze it. */
  | { type: 'page_back' }
  /** The page went into the back/forward cache (`pagehide`, persisted); `inCall` while a call is current. */
  | { type: 'page_cached'; inCall: boolean }
  /** The page came back from the back/forward cache (`pageshow`, persisted). */
  | { type: 'page_restored'; offline: boolean }
  /** close(). */
  | { type: 'close' };

/** What the link tells the helper's loop (the runtime's `LinkEvent`s of the socket and registration). */
export type LinkReport =
  | { type: 'socket_dropped' | 'socket_restored' | 'browser_offline' | 'browser_online' }
  | { type: 'link_gone'; error: StatusError };

/** What the link does, as data; the adapter runs each against its parts, in order. */
export type LinkEffect =
  /** Emits this to the helper's loop. */
  | { type: 'report'; report: LinkReport }
  /** Starts the keep-alive on the registered socket (with pongs where the registrar confirmed outbound). */
  | { type: 'start_keep_alive' }
  | { type: 'stop_keep_alive' }
  /** Asks the socket now whether it is alive (the keep-alive's probe). */
  | { type: 'probe' }
  /** Stops the registration's refresh timer. */
  | { type: 'stop_refresh' }
  /** Lets the socket go and tells its drop (a `dropped` event follows). */
  | { type: 'drop_socket' }
  /** Closes the socket on purpose: no drop is told. */
  | { type: 'close_socket' }
  /** Fails every request still waiting for its answer on the socket that went (RFC 7118 section 5). */
  | { type: 'fail_in_flight' }
  /** Runs the reconnection: attempts with back-off until one registers, or it is no longer wanted. */
  | { type: 'reconnect' }
  /** Makes the reconnection's waiting attempt now. */
  | { type: 'wake_reconnection' }
  /** The call in progress, if any, refreshes its dialog's target on the new flow (RFC 3261 section 12.2, RFC 5626 section 5.3). */
  | { type: 'refresh_target' }
  /** Starts, or stops, listening to the page's events (online, offline, shown, resumed, the back/forward cache). */
  | { type: 'listen_page' }
  | { type: 'unlisten_page' }
  /**
   * Ends the link: BYE for the call, 480 for the INVITEs not answered, then the un-REGISTER, waited for a
   * while; the socket closes and the core goes after it, whatever failed.
   */
  | { type: 'unregister' }
  /** Lets SIP.js's core go (connect()'s registration failed). */
  | { type: 'dispose' };

/** The link before connect()'s REGISTER is answered. */
export const opening: LinkState = { phase: 'opening', offline: false };

/** Every arrow of the diagram beside {@link LinkPhase} as `[from, to]`: the only moves the link makes. */
export const LINK_TRANSITIONS: readonly (readonly [from: LinkPhase, to: LinkPhase])[] = [
  ['opening', 'up'],
  ['opening', 'closed'],
  ['up', 'reconnecting'],
  ['up', 'suspended'],
  ['up', 'gone'],
  ['up', 'closed'],
  ['reconnecting', 'up'],
  ['reconnecting', 'gone'],
  ['reconnecting', 'closed'],
  ['suspended', 'reconnecting'],
  ['suspended', 'closed'],
  ['gone', 'closed'],
];

/** The registrar refused the session's credentials, on a refresh or a reconnection. */
export const REGISTRATION_ENDED: StatusError = { code: 'browser_session_unavailable', message: 'the SIP registration ended; renew() the session to take calls again' };
/** The session's time is up: no registrar takes its credentials any more. */
const SESSION_OVER: StatusError = { code: 'browser_session_unavailable', message: 'the session is over; renew() it to take calls again' };

type Move = [LinkState, LinkEffect[]];
const report = (type: 'socket_dropped' | 'socket_restored' | 'browser_offline' | 'browser_online'): LinkEffect => ({ type: 'report', report: { type } });
const gone = (error: StatusError): LinkEffect => ({ type: 'report', report: { type: 'link_gone', error } });
/** What a flow's end asks whatever the phase: no pings, no refresh on it. */
const flowEnded: LinkEffect[] = [{ type: 'stop_keep_alive' }, { type: 'stop_refresh' }];

/**
 * Into `reconnecting`: the status says so, and offline at once if the browser already is; then the attempts
 * begin (the first at once).
 */
function reconnecting(offline: boolean): Move {
  return [{ phase: 'reconnecting', offline }, [report('socket_dropped'), ...(offline ? [report('browser_offline')] : []), { type: 'reconnect' }]];
}

/**
 * One move per event: the arrows of the diagram the event may take, false where the phase is not one it is
 * drawn from. {@link ALWAYS} adds what an event asks in every phase.
 */
const MOVES: { [T in LinkPhaseEvent['type']]: (state: LinkState, event: Extract<LinkPhaseEvent, { type: T }>) => Move | false } = {
  registered: (state) => state.phase === 'opening' && [{ ...state, phase: 'up' }, [{ type: 'start_keep_alive' }, { type: 'listen_page' }]],
  register_failed: (state) => state.phase === 'opening' && [{ ...state, phase: 'closed' }, [{ type: 'stop_refresh' }, { type: 'close_socket' }, { type: 'dispose' }]],
  dropped: (state, event) => state.phase === 'up' && reconnecting(event.offline),
  lapsed: () => false,
  silent: () => false,
  refresh_refused: (state) => state.phase === 'up' && [{ ...state, phase: 'gone' }, [{ type: 'stop_keep_alive' }, gone(REGISTRATION_ENDED)]],
  reconnected: (state) => state.phase === 'reconnecting' && [{ phase: 'up', offline: false }, [{ type: 'start_keep_alive' }, report('socket_restored'), { type: 'refresh_target' }]],
  reconnect_ended: (state, event) => state.phase === 'reconnecting' && [{ phase: 'gone', offline: false }, [gone(event.final ? REGISTRATION_ENDED : SESSION_OVER)]],
  browser_offline: (state) => state.phase === 'reconnecting' && !state.offline && [{ ...state, offline: true }, [report('browser_offline')]],
  // Back online, the network may have changed: checked as when the page comes back.
  browser_online: (state) => (state.phase === 'reconnecting' && state.offline ? [{ ...state, offline: false }, [report('browser_online'), { type: 'wake_reconnection' }]] : MOVES.page_back(state, { type: 'page_back' })),
  // A reconnection waiting for its next attempt makes it now; a socket that looks up is asked whether it is alive.
  page_back: (state) => (state.phase === 'reconnecting' ? [state, [{ type: 'wake_reconnection' }]] : state.phase === 'up' && [state, [{ type: 'probe' }]]),
  // A call's peer connection keeps the page out of the cache: a link in a call is left as it is.
  page_cached: (state, event) =>
    state.phase === 'up' && !event.inCall && [{ ...state, phase: 'suspended' }, [...flowEnded, report('socket_dropped'), { type: 'close_socket' }, { type: 'fail_in_flight' }]],
  page_restored: (state, event) => state.phase === 'suspended' && reconnecting(event.offline),
  close: (state) =>
    state.phase !== 'closed' && [
      { phase: 'closed', offline: false },
      [{ type: 'stop_keep_alive' }, { type: 'unlisten_page' }, { type: 'wake_reconnection' }, { type: 'unregister' }],
    ],
};

/**
 * What an event asks in every phase, around its move: a drop ends the flow's timers before anything and fails
 * what was in flight after the reconnection began (its refusal is then part of the reconnection, not its end);
 * a socket found dead, or a binding lapsed, is let go, so it reconnects as a dropped one.
 */
const ALWAYS: Partial<Record<LinkPhaseEvent['type'], [before: LinkEffect[], after: LinkEffect[]]>> = {
  dropped: [flowEnded, [{ type: 'fail_in_flight' }]],
  lapsed: [[], [{ type: 'drop_socket' }]],
  silent: [[], [{ type: 'drop_socket' }]],
};

/** The move {@link MOVES} draws for the event, between what {@link ALWAYS} asks; a move not drawn leaves the state as it is. */
export function transition(state: LinkState, event: LinkPhaseEvent): [LinkState, LinkEffect[]] {
  const move = MOVES[event.type] as (state: LinkState, event: LinkPhaseEvent) => Move | false;
  const [next, effects] = move(state, event) || [state, []];
  const [before, after] = ALWAYS[event.type] ?? [[], []];
  return [next, [...before, ...effects, ...after]];
}

/** Whether the reconnection should go on trying: only while the link reconnects (the session's end is the adapter's to read). */
export const reconnects = (state: LinkState): boolean => state.phase === 'reconnecting';
