import { describe, expect, it } from 'vitest';
import { BRIDGED_QUEUE_STATES, isBridged, isLiveMonitorLeg, LIVE_MONITOR_LEG_STATES, TERMINAL_GENERIC_STATES } from '../../contract/queue-call.js';

/** A queue's call and a monitor leg in spec 3.1's generic states: which of them are terminal, bridged, running. */

/** spec 3.1's table, every state and its phase. */
const ACTIVE = ['calling', 'ringing', 'pre_established', 'established', 'queued', 'dequeuing'];
const TERMINAL = ['finished', 'failed', 'cancelled', 'no_answer', 'busy'];

describe("a queue's call (spec 3.1)", () => {
  it('ends in the terminal states of the table, and in no active one', () => {
    expect([...TERMINAL_GENERIC_STATES].sort()).toEqual([...TERMINAL].sort());
    for (const state of ACTIVE) expect(TERMINAL_GENERIC_STATES.has(state)).toBe(false);
  });

  it('is bridged to an agent once claimed (`dequeuing`) and once answered (`established`), in nothing else', () => {
    expect([...BRIDGED_QUEUE_STATES]).toEqual(['dequeuing', 'established']);
    expect([...ACTIVE, ...TERMINAL].filter(isBridged)).toEqual(['established', 'dequeuing']);
    for (const odd of [undefined, null, 7, 'DEQUEUING']) expect(isBridged(odd)).toBe(false);
  });

  it('holds a monitor leg running while it rings the agent and once answered, never past an end', () => {
    expect([...LIVE_MONITOR_LEG_STATES]).toEqual(['ringing', 'established']);
    expect([...ACTIVE, ...TERMINAL].filter(isLiveMonitorLeg)).toEqual(['ringing', 'established']);
    for (const state of [...BRIDGED_QUEUE_STATES, ...LIVE_MONITOR_LEG_STATES]) expect(TERMINAL_GENERIC_STATES.has(state)).toBe(false);
    expect(isLiveMonitorLeg(undefined)).toBe(false);
  });
});
