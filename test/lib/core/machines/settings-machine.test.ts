import { describe, expect, it } from 'vitest';
import { noSettings, transition } from '../../../../lib/core/machines/settings-machine.js';

describe('the settings machine', () => {
  it('holds the mute wish and the availability the service said, a new slice for each word even when it repeats', () => {
    const [muted, none] = transition(noSettings, { type: 'mute_set', muted: true });
    expect([muted, none]).toEqual([{ muted: true, availability: null }, []]);
    const [again] = transition(muted, { type: 'mute_set', muted: true });
    expect(again).not.toBe(muted);
    expect(transition(muted, { type: 'availability_read', availability: 'away' })[0]).toEqual({ muted: true, availability: 'away' });
  });

  it('reports a refusal as an error to show, its slice unchanged, and leaves the events of the other machines alone', () => {
    const error = { code: 'invalid_argument', message: 'no' };
    expect(transition(noSettings, { type: 'refused', error })).toEqual([noSettings, [{ type: 'report', error }]]);
    const [same, effects] = transition(noSettings, { type: 'connect_started' } as never);
    expect(same).toBe(noSettings);
    expect(effects).toEqual([]);
  });
});
