import { describe, expect, it } from 'vitest';
import { disconnected, transition, type ConnectionEvent, type ConnectionSlice } from '../../../../lib/core/machines/connection-machine.js';
import { CONNECTION_TRANSITIONS } from '../../../../lib/core/state-transitions.js';
import { CONNECTION_STATES, type Connection } from '../../../../lib/core/types.js';

/** The connection machine alone (lib/core/machines/connection-machine.ts): every arrow of the diagram, and every move it refuses. */

const SESSION = { id: 'bs_1', expiresAt: '2030-01-01T00:00:00.000Z' };
const NEW_SESSION = { id: 'bs_2', expiresAt: '2030-01-01T01:00:00.000Z' };
const LOST = { code: 'connection_failed', message: 'the link gave up' };
const LAPSED = { code: 'browser_session_unavailable', message: 'the registration ended' };

/** A slice in `connection`, holding a session wherever a session can be held. */
const at = (connection: Connection, renewingFrom: Connection | null = null): ConnectionSlice => ({
  connection,
  session: connection === 'disconnected' || connection === 'connecting' ? null : SESSION,
  renewingFrom: connection === 'renewing' ? (renewingFrom ?? 'ready') : null,
});

/** For each event, where each state goes; a state not named refuses the event. */
const ARROWS: Array<[ConnectionEvent, Partial<Record<Connection, Connection>>]> = [
  [{ type: 'connect_started' }, { disconnected: 'connecting' }],
  [{ type: 'session_created', session: SESSION }, { connecting: 'connecting' }],
  [{ type: 'registered', session: NEW_SESSION }, { connecting: 'ready', renewing: 'ready' }],
  [{ type: 'connect_failed', error: LOST }, { connecting: 'disconnected' }],
  [{ type: 'renew_started' }, { ready: 'renewing', expired: 'renewing', offline: 'renewing' }],
  [{ type: 'renew_failed', error: LOST, sessionCreated: false }, { renewing: 'ready' }],
  [
    { type: 'disconnect_started' },
    Object.fromEntries(CONNECTION_STATES.filter((c) => c !== 'disconnecting').map((c) => [c, 'disconnecting'])) as Record<Connection, Connection>,
  ],
  [{ type: 'disconnect_finished', sessionKept: false, error: null }, { disconnecting: 'disconnected' }],
  [{ type: 'recovered', session: SESSION }, { disconnected: 'recovery_required' }],
  [{ type: 'socket_dropped' }, { ready: 'reconnecting' }],
  [{ type: 'socket_restored' }, { reconnecting: 'ready', offline: 'ready' }],
  [{ type: 'browser_offline' }, { reconnecting: 'offline' }],
  [{ type: 'browser_online' }, { offline: 'reconnecting' }],
  [{ type: 'link_gone', error: LOST }, { ready: 'expired', reconnecting: 'expired', offline: 'expired' }],
  [{ type: 'link_gone', error: LAPSED }, { ready: 'expired', reconnecting: 'expired', offline: 'expired' }],
  [{ type: 'session_refused', error: LAPSED }, { ready: 'expired', reconnecting: 'expired', offline: 'expired' }],
  [{ type: 'session_expired', error: LAPSED }, { ready: 'expired', reconnecting: 'expired', expired: 'expired', offline: 'expired' }],
];

describe('the connection machine', () => {
  for (const [event, arrows] of ARROWS) {
    it(`takes ${event.type}${'error' in event && event.error ? ` (${event.error.code})` : ''} only where the diagram draws it`, () => {
      for (const state of CONNECTION_STATES) {
        const before = at(state);
        const [after, effects] = transition(before, event);
        const to = arrows[state];
        if (to === undefined) {
          expect(after, `${event.type} from ${state}`).toBe(before);
          expect(effects, `${event.type} from ${state}`).toEqual([]);
        } else expect(after.connection, `${event.type} from ${state}`).toBe(to);
      }
    });
  }

  it('recovers a session only on a fresh helper, clearing any error', () => {
    const [after, effects] = transition(disconnected, { type: 'recovered', session: SESSION });
    expect(after).toEqual({ connection: 'recovery_required', session: SESSION, renewingFrom: null });
    expect(effects).toEqual([{ type: 'report', error: null }]);
    // A disconnect that could not end the session keeps it: no recovery over it.
    expect(transition({ ...disconnected, session: SESSION }, { type: 'recovered', session: NEW_SESSION })[0].connection).toBe('disconnected');
  });

  it('watches the new session once registered, and stops watching at disconnect', () => {
    expect(transition(at('connecting'), { type: 'registered', session: NEW_SESSION })).toEqual([
      { connection: 'ready', session: NEW_SESSION, renewingFrom: null },
      [{ type: 'watch_expiry', expiresAt: NEW_SESSION.expiresAt }],
    ]);
    expect(transition(at('ready'), { type: 'disconnect_started' })[1]).toEqual([{ type: 'stop_expiry' }]);
  });

  it('puts a failed renewal back where it started, or expired once the service made the new session', () => {
    const [renewing] = transition(at('expired'), { type: 'renew_started' });
    expect(renewing).toMatchObject({ connection: 'renewing', renewingFrom: 'expired', session: SESSION });
    expect(transition(renewing, { type: 'renew_failed', error: LOST, sessionCreated: false })).toEqual([
      { connection: 'expired', session: SESSION, renewingFrom: null },
      [{ type: 'report', error: LOST }],
    ]);
    // `offline` says only what the browser says of its network; without a registered link, expired it is.
    expect(transition(renewing, { type: 'renew_failed', error: LOST, sessionCreated: true })[0].connection).toBe('expired');
  });

  it('keeps the session shown when disconnect could not end it, and drops it otherwise', () => {
    const error = { code: 'cleanup_unknown', message: 'ending the session failed' };
    expect(transition(at('disconnecting'), { type: 'disconnect_finished', sessionKept: true, error })).toEqual([
      { connection: 'disconnected', session: SESSION, renewingFrom: null },
      [{ type: 'report', error }],
    ]);
    expect(transition(at('disconnecting'), { type: 'disconnect_finished', sessionKept: false, error: null })[0].session).toBeNull();
  });

  it('shows the session as soon as the service made it, while still connecting', () => {
    expect(transition(at('connecting'), { type: 'session_created', session: SESSION })).toEqual([{ connection: 'connecting', session: SESSION, renewingFrom: null }, []]);
  });
});

describe('CONNECTION_TRANSITIONS, the arrows the library exports', () => {
  /** Every state the machine can be in, renewing from each state a renewal may start from. */
  const starts: ConnectionSlice[] = [...CONNECTION_STATES.map((state) => at(state)), at('renewing', 'expired'), at('renewing', 'offline')];
  const events: ConnectionEvent[] = [...ARROWS.map(([event]) => event), { type: 'renew_failed', error: LOST, sessionCreated: true }];
  const moves = new Set(starts.flatMap((before) => events.map((event) => [before.connection, transition(before, event)[0].connection].join(' → '))));
  const listed = new Set(CONNECTION_TRANSITIONS.map(([from, to]) => `${from} → ${to}`));

  it('holds every move the machine makes, and only those', () => {
    const made = [...moves].filter((move) => move.split(' → ')[0] !== move.split(' → ')[1]);
    expect(made.sort()).toEqual([...listed].sort());
  });

  it('names only connection states, each move once', () => {
    expect(listed.size).toBe(CONNECTION_TRANSITIONS.length);
    for (const [from, to] of CONNECTION_TRANSITIONS) expect(CONNECTION_STATES).toEqual(expect.arrayContaining([from, to]));
  });
});
