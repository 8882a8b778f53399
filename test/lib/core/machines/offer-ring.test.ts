import { describe, expect, it } from 'vitest';
import { silent, transition } from '../../../../lib/core/machines/offer-ring.js';
import type { Offer } from '../../../../lib/core/types.js';

/** The offer's ring alone (lib/core/machines/offer-ring.ts): what it rings, stops and declines as the status's offer changes. */

const offer = (callId: string): Offer => ({ callId, caller: '+12025550121', queueId: null, since: 1_000 });

describe('the offer ring', () => {
  it('rings a new offer, times it and reads it for its queue; the same offer shown again changes nothing', () => {
    const [ringing, effects] = transition(silent, { type: 'offer_shown', offer: offer('qc_1') });
    expect(ringing).toEqual({ ringing: 'qc_1' });
    expect(effects).toEqual([{ type: 'ring', offer: offer('qc_1') }, { type: 'time_out', callId: 'qc_1' }, { type: 'read_offer', callId: 'qc_1' }]);
    expect(transition(ringing, { type: 'offer_shown', offer: { ...offer('qc_1'), queueId: 'q-support' } })).toEqual([ringing, []]);
  });

  it('stops when no offer is shown, and stops the last before ringing the next', () => {
    const ringing = { ringing: 'qc_1' };
    expect(transition(ringing, { type: 'offer_shown', offer: null })).toEqual([silent, [{ type: 'stop' }]]);
    expect(transition(silent, { type: 'offer_shown', offer: null })).toEqual([silent, []]);
    const [next, effects] = transition(ringing, { type: 'offer_shown', offer: offer('qc_2') });
    expect(next).toEqual({ ringing: 'qc_2' });
    expect(effects.map((effect) => effect.type)).toEqual(['stop', 'ring', 'time_out', 'read_offer']);
  });

  it('declines an offer that rang out and says the agent away; a ring-out of an offer gone does nothing', () => {
    expect(transition({ ringing: 'qc_1' }, { type: 'rang_out', callId: 'qc_1' })).toEqual([{ ringing: 'qc_1' }, [{ type: 'decline' }, { type: 'say_away' }]]);
    expect(transition({ ringing: 'qc_2' }, { type: 'rang_out', callId: 'qc_1' })).toEqual([{ ringing: 'qc_2' }, []]);
    expect(transition(silent, { type: 'rang_out', callId: 'qc_1' })).toEqual([silent, []]);
  });
});
