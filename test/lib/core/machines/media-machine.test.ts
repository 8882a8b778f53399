import { describe, expect, it } from 'vitest';
import { noMedia, transition, type MediaEvent, type MediaSlice } from '../../../../lib/core/machines/media-machine.js';
import { AUDIO_TRANSITIONS } from '../../../../lib/core/state-transitions.js';
import { AUDIO_STATES, type Audio } from '../../../../lib/core/types.js';

/** The media machine alone (lib/core/machines/media-machine.ts): every arrow of its diagram, and every move it refuses. */

const CALL = 'call-1';
/** A slice showing `audio`, as the machine leaves it: the path up while the element's word shows, down while restarting. */
const at = (audio: Audio): MediaSlice => ({
  audio,
  warnings: [],
  playback: audio === 'playing' ? 'playing' : audio === 'blocked' || audio === 'reconnecting' ? 'blocked' : null,
  path: audio === 'playing' || audio === 'blocked' ? 'up' : audio === 'reconnecting' || audio === 'failed' ? 'down' : 'setup',
});

/** For each event, where each audio state goes; a state not named does not move (or refuses the event). */
const ARROWS: Array<[MediaEvent, Partial<Record<Audio, Audio>>]> = [
  [{ type: 'answering' }, { none: 'connecting', connecting: 'connecting', playing: 'connecting', blocked: 'connecting', reconnecting: 'connecting', held: 'connecting', failed: 'connecting', ended: 'connecting' }],
  [{ type: 'media_held', callId: CALL }, { connecting: 'held', playing: 'held', blocked: 'held', reconnecting: 'held' }],
  [{ type: 'media_resumed', callId: CALL }, { held: 'connecting' }],
  [{ type: 'media_reconnecting', callId: CALL }, { connecting: 'reconnecting', playing: 'reconnecting', blocked: 'reconnecting' }],
  [{ type: 'media_connected', callId: CALL }, { reconnecting: 'blocked' }],
  [{ type: 'media_failed', callId: CALL }, { connecting: 'failed', playing: 'failed', blocked: 'failed', reconnecting: 'failed' }],
  [{ type: 'audio', audio: 'playing' }, { blocked: 'playing' }],
  [{ type: 'audio', audio: 'blocked' }, { playing: 'blocked' }],
  [{ type: 'media_ended' }, { connecting: 'ended', playing: 'ended', blocked: 'ended', reconnecting: 'ended', held: 'ended', failed: 'ended', ended: 'ended' }],
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
    // Media again shows whichever audio the restart interrupted; a path up at last shows what the element said.
    for (const to of ['connecting', 'playing'] as const) taken.add(`reconnecting → ${to}`);
    for (const to of ['playing', 'blocked'] as const) taken.add(`connecting → ${to}`);
    // Off hold, the audio shows what the path and the element said meanwhile.
    for (const to of ['playing', 'blocked'] as const) taken.add(`held → ${to}`);
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
    expect(restarting).toMatchObject({ audio: 'reconnecting', playback: 'blocked', path: 'down' });
    const [resumed, effects] = transition(restarting, { type: 'audio', audio: 'playing' }, CALL);
    expect(resumed).toMatchObject({ audio: 'reconnecting', playback: 'playing' });
    expect(effects).toEqual([{ type: 'report', error: null, code: 'audio_playback_blocked' }]);
    const [flowing, timings] = transition(resumed, { type: 'media_connected', callId: CALL }, CALL);
    expect(flowing).toMatchObject({ audio: 'playing', playback: 'playing', path: 'up' });
    expect(timings).toEqual([
      { type: 'timing', name: 'media_connected', callId: CALL, once: true },
      { type: 'timing', name: 'media_reconnected', callId: CALL, extra: undefined },
    ]);
  });

  it('never shows playing before the media path is up: the element plays a stream with nothing in it yet', () => {
    const [answering] = transition(at('ended'), { type: 'answering' }, CALL);
    expect(answering).toMatchObject({ audio: 'connecting', playback: null, path: 'setup' });
    const [played, effects] = transition(answering, { type: 'audio', audio: 'playing' }, CALL);
    expect(played).toMatchObject({ audio: 'connecting', playback: 'playing' });
    expect(effects).toEqual([{ type: 'report', error: null, code: 'audio_playback_blocked' }]);
    const [up, timings] = transition(played, { type: 'media_connected', callId: CALL }, CALL);
    expect(up).toMatchObject({ audio: 'playing', path: 'up' });
    expect(timings).toEqual([{ type: 'timing', name: 'media_connected', callId: CALL, once: true }]);
    // An element that has not said yet leaves the audio connecting over a path that is up; its word then shows.
    const [silent] = transition(answering, { type: 'media_connected', callId: CALL }, CALL);
    expect(silent).toMatchObject({ audio: 'connecting', path: 'up' });
    expect(transition(silent, { type: 'audio', audio: 'blocked' }, CALL)[0].audio).toBe('blocked');
  });

  it('is failed, not playing, when the path never came up and every restart failed, and says so', () => {
    let slice = transition(at('ended'), { type: 'answering' }, CALL)[0];
    slice = transition(slice, { type: 'audio', audio: 'playing' }, CALL)[0];
    slice = transition(slice, { type: 'media_reconnecting', callId: CALL }, CALL)[0];
    expect(slice).toMatchObject({ audio: 'reconnecting', path: 'setup' });
    const [failed, effects] = transition(slice, { type: 'media_failed', callId: CALL }, CALL);
    expect(failed).toMatchObject({ audio: 'failed', playback: 'playing' });
    expect(transition(failed, { type: 'audio', audio: 'playing' }, CALL)[0].audio).toBe('failed');
    const [report] = effects;
    expect(report).toMatchObject({ type: 'report', error: { code: 'audio_path_failed' } });
    const message = report?.type === 'report' ? (report.error?.message ?? '') : '';
    expect(message).toContain('no audio ever flowed');
    expect(message).not.toMatch(/hang up|call again/);
    // A path that was up and then lost says that instead.
    const lost = transition(at('reconnecting'), { type: 'media_failed', callId: CALL }, CALL)[1][0];
    expect(lost).toMatchObject({ error: { code: 'audio_path_failed', message: expect.stringContaining('the path was lost') } });
  });

  it('is held while the far end holds: no restart or failure moves it, and off hold it shows what the path and the element said', () => {
    const [held] = transition(at('playing'), { type: 'media_held', callId: CALL }, CALL);
    expect(held).toMatchObject({ audio: 'held', playback: 'playing', path: 'up' });
    for (const event of [
      { type: 'media_reconnecting', callId: CALL },
      { type: 'media_failed', callId: CALL },
      { type: 'audio', audio: 'blocked' },
    ] as MediaEvent[]) {
      expect(transition(held, event, CALL)[0].audio, event.type).toBe('held');
    }
    const blocked = transition(held, { type: 'audio', audio: 'blocked' }, CALL)[0];
    expect(transition(blocked, { type: 'media_resumed', callId: CALL }, CALL)[0].audio).toBe('blocked');
    // Held before the path ever came up: the path noted up meanwhile shows once off hold.
    const early = transition(transition(at('connecting'), { type: 'media_held', callId: CALL }, CALL)[0], { type: 'media_connected', callId: CALL }, CALL)[0];
    expect(transition({ ...early, playback: 'playing' }, { type: 'media_resumed', callId: CALL }, CALL)[0]).toMatchObject({ audio: 'playing', path: 'up' });
  });

  it('raises and clears warnings of the current call, and empties them when the call ends', () => {
    const [raised, effects] = transition(at('playing'), { type: 'warning', callId: CALL, warning: 'high_rtt', raised: true }, CALL);
    expect(raised.warnings).toEqual(['high_rtt']);
    expect(effects).toEqual([{ type: 'timing', name: 'warning_raised', callId: CALL, extra: { warning: 'high_rtt' } }]);
    const [twice] = transition(raised, { type: 'warning', callId: CALL, warning: 'high_rtt', raised: true }, CALL);
    expect(twice.warnings).toEqual(['high_rtt']);
    expect(transition(raised, { type: 'media_ended' }, null)[0]).toEqual({ audio: 'ended', warnings: [], playback: null, path: 'setup' });
  });

  it('reports a failed media path and asks for a read; a lost microphone is reported, and cleared only if still shown', () => {
    expect(transition(at('playing'), { type: 'media_failed', callId: CALL }, CALL)[1]).toEqual([{ type: 'report', error: expect.objectContaining({ code: 'audio_path_failed' }) }, { type: 'read' }]);
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
    expect(noMedia).toEqual({ audio: 'none', warnings: [], playback: null, path: 'setup' });
  });
});
