import { describe, expect, it } from 'vitest';
import type { SimulatorEdge, SimulatorEdgeInput } from '../../../simulator/http/control-client.js';
import { withEdge } from '../../../simulator/http/edge-for-test.js';

/** The edge a test asks for, around that test only: what the e2e fixtures and the package's Playwright fixture run. */

const KAMAILIO: SimulatorEdge = { profile: 'kamailio', sessionExpiresSeconds: 90, carrierInviteBody: 'multipart', refuseEveryNthRefresh: 2, restartingUntil: null };

/** A control API that behaves: it holds one edge, takes every setting, and keeps what it was told. */
function fakeControl(edge: SimulatorEdge) {
  const told: SimulatorEdgeInput[] = [];
  return {
    told,
    current: () => edge,
    edge: async () => edge,
    setEdge: async (input: SimulatorEdgeInput) => {
      told.push(input);
      edge = { ...edge, ...input, restartingUntil: null };
      return edge;
    },
  };
}

describe('withEdge', () => {
  it('runs the test on the edge asked for, by name or with settings, and puts back the one it had', async () => {
    const control = fakeControl(KAMAILIO);
    const during: string[] = [];
    await withEdge(control, 'asterisk', async () => void during.push(control.current().profile));
    await withEdge(control, { profile: 'asterisk', sessionExpiresSeconds: 4 }, async () => void during.push(`${control.current().profile} ${control.current().sessionExpiresSeconds}`));
    expect(during).toEqual(['asterisk', 'asterisk 4']);
    expect(control.current()).toEqual(KAMAILIO);
  });

  it('puts the edge back when the test throws, without the restart the edge was in', async () => {
    const control = fakeControl({ ...KAMAILIO, restartingUntil: '2026-11-29T10:00:00.000Z' });
    await expect(withEdge(control, 'carrier-sbc', () => Promise.reject(new Error('the test failed')))).rejects.toThrow('the test failed');
    expect(control.told.at(-1)).toEqual({ profile: 'kamailio', sessionExpiresSeconds: 90, carrierInviteBody: 'multipart', refuseEveryNthRefresh: 2 });
  });

  it('leaves the edge alone when no edge is asked for', async () => {
    const control = fakeControl(KAMAILIO);
    let ran = false;
    await withEdge(control, undefined, async () => void (ran = true));
    expect(ran).toBe(true);
    expect(control.told).toEqual([]);
  });
});
