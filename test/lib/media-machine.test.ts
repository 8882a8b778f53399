import { describe, expect, it } from 'vitest';
import { noMedia, transition, type MediaEvent, type MediaSlice } from '../../lib/media-machine.js';
import { AUDIO_TRANSITIONS } from '../../lib/state-transitions.js';
import { AUDIO_STATES, type Audio } from '../../lib/types.js';

/** The media machine alone (lib/media-machine.ts): every arrow of its diagram, and every move it refuses. */

const CALL = 'call-1';
const at = (audio: Audio): MediaSlice => ({ audio, warnings: [], underRestart: audio === 'reconnecting' ? 'blocked' : null });

/** For each event, where each audio state goes; a state not named does not move (or refuses the event). */
const ARROWS: Array<[MediaEvent, Partial<Record<Audio, Audio>>]> = [
  [{ type: 'answering' }, { none: 'connecting', connecting: 'connecting', playing: 'connecting', blocked: 'connecting', reconnecting: 'connecting', ended: 'connecting' }],
  [{ type: 'media_reconnecting', callId: CALL }, { connecting: 'reconnecting', playing: 'reconnecting', blocked: 'reconnecting' }],
  [{ type: 'media_connected', callId: CALL }, { reconnecting: 'blocked' }],
  [{ type: 'media_failed', callId: CALL }, { connecting: 'ended', playing: 'ended', blocked: 'ended', reconnecting: 'ended', ended: 'ended' }],
  [{ type: 'audio', audio: 'playing' }, { none: 'playing', connecting: 'playing', playing: 'playing', blocked: 'playing', reconnecting: 'reconnecting', ended: 'playing' }],
  [{ type: 'audio', audio: 'blocked' }, { none: 'blocked', connecting: 'blocked', playing: 'blocked', blocked: 'blocked', reconnecting: 'reconnecting', ended: 'blocked' }],
  [{ type: 'media_ended' }, { connecting: 'ended', playing: 'ended', blocked: 'ended', reconnecting: 'ended', ended: 'ended' }],
];

describe('the media machine', () => {
  for (const [event, arrows] of ARROWS) {
    it(`takes ${event.type}${'audio' in event ? ` ${event.audio}` : ''} only where the diagram draws it, each move in AUDIO_TRANSITIONS`, () => {
      for (const state of AUDIO_STATES) {
        const before = at(state);
        const [after] = transition(before, event, CALL);
        const to = arrows[state];
        if (to === undefined) {
          expect(after.audio, `${event.type} from ${state}`).toBe(state);
          continue;
        }
        expect(after.audio, `${event.type} from ${state}`).toBe(to);
        if (to !== state) expect(AUDIO_TRANSITIONS, `${state} → ${to}`).toContainEqual([state, to]);
      }
    });
  }

  it('draws no arrow the machine never takes, and each once', () => {
    const taken = new Set<string>();
    for (const [, arrows] of ARROWS) for (const state of AUDIO_STATES) if (arrows[state] && arrows[state] !== state) taken.add(`${state} → ${arrows[state]}`);
    // Media again shows whichever audio the restart interrupted.
    for (const to of ['connecting', 'playing'] as const) taken.add(`reconnecting → ${to}`);
    const listed = AUDIO_TRANSITIONS.map(([from, to]) => `${from} → ${to}`);
    expect(new Set(listed).size).toBe(listed.length);
    expect(new Set(listed)).toEqual(taken);
  });

  it('moves nothing on news of another call, of none, or of a call no longer current', () => {
    for (const state of AUDIO_STATES) {
      for (const [event, current] of [
        [{ type: 'media_reconnecting', callId: 'call-9' }, CALL],
        [{ type: 'media_failed', callId: undefined }, CALL],
        [{ type: 'warning', callId: CALL, warning: 'high_rtt', raised: true }, null],
        [{ type: 'microphone', callId: CALL, outcome: 'unavailable' }, null],
      ] as Array<[MediaEvent, string | null]>) {
        const before = at(state);
        expect(transition(before, event, current), `${event.type} from ${state}`).toEqual([before, []]);
      }
    }
  });

  it('shows again after an ICE restart what the audio was, or became meanwhile', () => {
    const [restarting] = transition(at('blocked'), { type: 'media_reconnecting', callId: CALL }, CALL);
    expect(restarting).toMatchObject({ audio: 'reconnecting', underRestart: 'blocked' });
    const [resumed, effects] = transition(restarting, { type: 'audio', audio: 'playing' }, CALL);
    expect(resumed).toMatchObject({ audio: 'reconnecting', underRestart: 'playing' });
    expect(effects).toEqual([{ type: 'report', error: null, code: 'audio_playback_blocked' }]);
    const [flowing, timings] = transition(resumed, { type: 'media_connected', callId: CALL }, CALL);
    expect(flowing).toMatchObject({ audio: 'playing', underRestart: null });
    expect(timings).toEqual([
      { type: 'timing', name: 'media_connected', callId: CALL, once: true },
      { type: 'timing', name: 'media_reconnected', callId: CALL, extra: undefined },
    ]);
  });

  it('raises and clears warnings of the current call, and empties them when the call ends', () => {
    const [raised, effects] = transition(at('playing'), { type: 'warning', callId: CALL, warning: 'high_rtt', raised: true }, CALL);
    expect(raised.warnings).toEqual(['high_rtt']);
    expect(effects).toEqual([{ type: 'timing', name: 'warning_raised', callId: CALL, extra: { warning: 'high_rtt' } }]);
    const [twice] = transition(raised, { type: 'warning', callId: CALL, warning: 'high_rtt', raised: true }, CALL);
    expect(twice.warnings).toEqual(['high_rtt']);
    expect(transition(raised, { type: 'media_ended' }, null)[0]).toEqual({ audio: 'ended', warnings: [], underRestart: null });
  });

  it('reports a failed media path and asks for a read; a lost microphone is reported, and cleared only if still shown', () => {
    expect(transition(at('playing'), { type: 'media_failed', callId: CALL }, CALL)[1]).toEqual([{ type: 'report', error: expect.objectContaining({ code: 'connection_failed' }) }, { type: 'read' }]);
    expect(transition(at('playing'), { type: 'microphone', callId: CALL, outcome: 'unavailable' }, CALL)[1]).toEqual([
      { type: 'report', error: expect.objectContaining({ code: 'microphone_unavailable' }) },
      { type: 'timing', name: 'microphone_lost', callId: CALL, extra: undefined },
    ]);
    expect(transition(at('playing'), { type: 'microphone', callId: CALL, outcome: 'replaced' }, CALL)[1]).toEqual([
      { type: 'report', error: null, code: 'microphone_unavailable' },
      { type: 'timing', name: 'microphone_replaced', callId: CALL, extra: undefined },
    ]);
  });

  it('asks for a read when the dialog ends or the service signals a change, whatever the call', () => {
    expect(transition(noMedia, { type: 'session_ended', callId: 'call-9' }, CALL)).toEqual([noMedia, [{ type: 'read', expect: 'over' }]]);
    expect(transition(noMedia, { type: 'call_changed', callId: undefined }, null)).toEqual([noMedia, [{ type: 'read', expect: 'left' }]]);
  });

  it("leaves the other machines' events, and starts with no audio and no warnings", () => {
    expect(transition(noMedia, { type: 'socket_dropped' } as unknown as MediaEvent, CALL)).toEqual([noMedia, []]);
    expect(noMedia).toEqual({ audio: 'none', warnings: [], underRestart: null });
  });
});
