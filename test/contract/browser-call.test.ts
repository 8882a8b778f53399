import { describe, expect, it } from 'vitest';
import { BROWSER_CALL_STATES, BROWSER_CALL_TRANSITIONS, TERMINAL_CALL_STATES } from '../../contract/browser-call.js';
import * as page from '../../lib/index.js';
import { TERMINAL_STATES } from '../../simulator/service/model.js';

/** A browser call's states and moves (spec 3.2), written once: what the page draws and the simulator sets. */

const from = (state: string) => BROWSER_CALL_TRANSITIONS.filter(([at]) => at === state).map(([, to]) => to);

/** The states reached from `start` along the moves. */
function reachable(start: string): Set<string> {
  const seen = new Set([start]);
  for (const state of seen) for (const next of from(state)) seen.add(next);
  return seen;
}

describe('the browser call states (spec 3.2)', () => {
  it('are the seven the spec names, the usual path first', () => {
    expect([...BROWSER_CALL_STATES]).toEqual(['waiting_agent', 'dialing_recipient', 'connected', 'ending', 'ended', 'failed', 'outcome_unknown']);
  });

  it('end in `ended` and `failed` only, the states in which `busy` is false', () => {
    expect([...TERMINAL_CALL_STATES].sort()).toEqual(['ended', 'failed']);
    for (const state of TERMINAL_CALL_STATES) expect(from(state)).toEqual([]);
  });

  it('move only between listed states, each move once, every state reached from `waiting_agent`', () => {
    const moves = BROWSER_CALL_TRANSITIONS.map((move) => move.join(' → '));
    expect(new Set(moves).size).toBe(moves.length);
    for (const [at, to] of BROWSER_CALL_TRANSITIONS) expect([at, to].every((state) => (BROWSER_CALL_STATES as readonly string[]).includes(state))).toBe(true);
    expect([...reachable('waiting_agent')].sort()).toEqual([...BROWSER_CALL_STATES].sort());
  });

  it('reach an end from every state, and a connection only through `dialing_recipient` (admission is not an answer)', () => {
    for (const state of BROWSER_CALL_STATES) expect([...reachable(state)].some((at) => TERMINAL_CALL_STATES.has(at))).toBe(true);
    expect(BROWSER_CALL_TRANSITIONS.filter(([, to]) => to === 'connected')).toEqual([['dialing_recipient', 'connected']]);
  });

  it('end through `ending` while the legs go down, but for a call that fails before it reached the page', () => {
    const ends = BROWSER_CALL_TRANSITIONS.filter(([, to]) => TERMINAL_CALL_STATES.has(to));
    expect(ends.filter(([at]) => at !== 'ending')).toEqual([['waiting_agent', 'failed']]);
  });

  it('are the very lists the page library exports and the simulator sets', () => {
    expect(page.BROWSER_CALL_STATES).toBe(BROWSER_CALL_STATES);
    expect(page.TERMINAL_CALL_STATES).toBe(TERMINAL_CALL_STATES);
    expect(page.BROWSER_CALL_TRANSITIONS).toBe(BROWSER_CALL_TRANSITIONS);
    expect(TERMINAL_STATES).toBe(TERMINAL_CALL_STATES);
  });
});
