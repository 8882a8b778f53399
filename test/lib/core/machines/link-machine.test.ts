import { describe, expect, it } from 'vitest';
import { LINK_TRANSITIONS, opening, reconnects, REGISTRATION_ENDED, transition, type LinkEffect, type LinkPhase, type LinkPhaseEvent, type LinkState } from '../../../../lib/core/machines/link-machine.js';

/** The SIP link's phases alone (lib/core/machines/link-machine.ts): every arrow of the diagram, its effects, and every move it refuses. */

const PHASES: LinkPhase[] = ['opening', 'up', 'reconnecting', 'suspended', 'gone', 'closed'];
const at = (phase: LinkPhase, offline = false): LinkState => ({ phase, offline });
const types = (effects: LinkEffect[]) => effects.map((effect) => (effect.type === 'report' ? `report:${effect.report.type}` : effect.type));

/** Every event, in each of its shapes. */
const EVENTS: LinkPhaseEvent[] = [
  { type: 'registered' },
  { type: 'register_failed' },
  { type: 'dropped', offline: false },
  { type: 'dropped', offline: true },
  { type: 'lapsed' },
  { type: 'silent' },
  { type: 'refresh_refused' },
  { type: 'reconnected' },
  { type: 'reconnect_ended', final: true },
  { type: 'reconnect_ended', final: false },
  { type: 'browser_offline' },
  { type: 'browser_online' },
  { type: 'page_back' },
  { type: 'page_cached', inCall: false },
  { type: 'page_cached', inCall: true },
  { type: 'page_restored', offline: false },
  { type: 'close' },
];

describe('the link machine', () => {
  it('opens: registered it is up, with its keep-alive and the page watched; refused, it lets the socket and core go', () => {
    expect(opening).toEqual(at('opening'));
    const [up, effects] = transition(opening, { type: 'registered' });
    expect(up).toEqual(at('up'));
    expect(types(effects)).toEqual(['start_keep_alive', 'listen_page']);
    const [closed, refused] = transition(opening, { type: 'register_failed' });
    expect(closed.phase).toBe('closed');
    expect(types(refused)).toEqual(['stop_refresh', 'close_socket', 'dispose']);
  });

  it('reconnects after a drop: timers stopped first, the drop shown, offline at once if the browser is, in-flight requests failed last', () => {
    const [next, effects] = transition(at('up'), { type: 'dropped', offline: true });
    expect(next).toEqual(at('reconnecting', true));
    expect(types(effects)).toEqual(['stop_keep_alive', 'stop_refresh', 'report:socket_dropped', 'report:browser_offline', 'reconnect', 'fail_in_flight']);
    expect(reconnects(next)).toBe(true);
    // A drop while reconnecting is that attempt's failure: no second reconnection, the same clean-up.
    const [again, cleanUp] = transition(next, { type: 'dropped', offline: false });
    expect(again).toBe(next);
    expect(types(cleanUp)).toEqual(['stop_keep_alive', 'stop_refresh', 'fail_in_flight']);
  });

  it('lets a socket go that the keep-alive found dead or whose binding lapsed, in every phase', () => {
    for (const phase of PHASES) {
      for (const type of ['silent', 'lapsed'] as const) {
        const [next, effects] = transition(at(phase), { type });
        expect(next).toEqual(at(phase));
        expect(types(effects)).toEqual(['drop_socket']);
      }
    }
  });

  it('is up again once reconnected, the call refreshing its target; gone when the reconnection ends, saying why', () => {
    const [up, effects] = transition(at('reconnecting', true), { type: 'reconnected' });
    expect(up).toEqual(at('up'));
    expect(types(effects)).toEqual(['start_keep_alive', 'report:socket_restored', 'refresh_target']);
    const [gone, refused] = transition(at('reconnecting'), { type: 'reconnect_ended', final: true });
    expect(gone.phase).toBe('gone');
    expect(refused).toEqual([{ type: 'report', report: { type: 'link_gone', error: REGISTRATION_ENDED } }]);
    const [, over] = transition(at('reconnecting'), { type: 'reconnect_ended', final: false });
    expect(over).toEqual([{ type: 'report', report: { type: 'link_gone', error: { code: 'browser_session_unavailable', message: 'the session is over; renew() it to take calls again' } } }]);
  });

  it('is gone when the registrar refuses a refresh for good, and only from up', () => {
    const [gone, effects] = transition(at('up'), { type: 'refresh_refused' });
    expect(gone.phase).toBe('gone');
    expect(types(effects)).toEqual(['stop_keep_alive', 'report:link_gone']);
    for (const phase of PHASES.filter((phase) => phase !== 'up')) expect(transition(at(phase), { type: 'refresh_refused' })).toEqual([at(phase), []]);
  });

  it('says offline and online only while reconnecting, and once each; back online or back in view, it checks the flow', () => {
    const [offline, said] = transition(at('reconnecting'), { type: 'browser_offline' });
    expect([offline, types(said)]).toEqual([at('reconnecting', true), ['report:browser_offline']]);
    expect(transition(offline, { type: 'browser_offline' })).toEqual([offline, []]);
    const [online, back] = transition(offline, { type: 'browser_online' });
    expect([online, types(back)]).toEqual([at('reconnecting'), ['report:browser_online', 'wake_reconnection']]);
    expect(types(transition(online, { type: 'browser_online' })[1])).toEqual(['wake_reconnection']);
    expect(types(transition(at('up'), { type: 'browser_online' })[1])).toEqual(['probe']);
    expect(transition(at('up'), { type: 'browser_offline' })).toEqual([at('up'), []]);
    expect(types(transition(at('up'), { type: 'page_back' })[1])).toEqual(['probe']);
    expect(types(transition(at('reconnecting'), { type: 'page_back' })[1])).toEqual(['wake_reconnection']);
    for (const phase of ['opening', 'suspended', 'gone', 'closed'] as const) expect(transition(at(phase), { type: 'page_back' })).toEqual([at(phase), []]);
  });

  it('suspends an idle link in the back/forward cache and reconnects it when the page is back; a link in a call stays', () => {
    const [suspended, effects] = transition(at('up'), { type: 'page_cached', inCall: false });
    expect(suspended.phase).toBe('suspended');
    expect(types(effects)).toEqual(['stop_keep_alive', 'stop_refresh', 'report:socket_dropped', 'close_socket', 'fail_in_flight']);
    expect(transition(at('up'), { type: 'page_cached', inCall: true })).toEqual([at('up'), []]);
    const [back, again] = transition(suspended, { type: 'page_restored', offline: false });
    expect(back).toEqual(at('reconnecting'));
    expect(types(again)).toEqual(['report:socket_dropped', 'reconnect']);
  });

  it('closes from every phase once, ending the link; nothing comes back from gone or closed', () => {
    for (const phase of PHASES.filter((phase) => phase !== 'closed')) {
      const [closed, effects] = transition(at(phase), { type: 'close' });
      expect(closed.phase).toBe('closed');
      expect(types(effects)).toEqual(['stop_keep_alive', 'unlisten_page', 'wake_reconnection', 'unregister']);
    }
    expect(transition(at('closed'), { type: 'close' })).toEqual([at('closed'), []]);
    for (const phase of ['gone', 'closed'] as const) {
      for (const event of EVENTS.filter((event) => event.type !== 'close')) expect(transition(at(phase), event)[0]).toEqual(at(phase));
    }
  });
});

describe('LINK_TRANSITIONS, the arrows the link draws', () => {
  const starts = PHASES.flatMap((phase) => [at(phase), at(phase, true)]);
  const moves = new Set(starts.flatMap((before) => EVENTS.map((event) => `${before.phase} → ${transition(before, event)[0].phase}`)));
  const listed = new Set(LINK_TRANSITIONS.map(([from, to]) => `${from} → ${to}`));

  it('holds every move the machine makes, and only those', () => {
    const made = [...moves].filter((move) => move.split(' → ')[0] !== move.split(' → ')[1]);
    expect(made.sort()).toEqual([...listed].sort());
  });

  it('names only the link phases, each move once', () => {
    expect(listed.size).toBe(LINK_TRANSITIONS.length);
    for (const [from, to] of LINK_TRANSITIONS) expect(PHASES).toEqual(expect.arrayContaining([from, to]));
  });
});
