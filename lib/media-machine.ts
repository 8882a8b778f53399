import type { Audio, CallQuality, CallWarning, StatusError, TimingEvent } from './types.js';

/**
 * What SIP and the page's audio element say of the current call, as a pure function beside the connection's and
 * the call's machines: `transition(state, event, current) -> [state, effects]`. It decides the call's `audio` and
 * `warnings`, and what to read or tell; never the call itself (only a read ends a call).
 *
 * @remarks
 * ```
 *         the call's INVITE answered              the audio element plays, or is blocked
 *  none ─────────────────────────▶ connecting ─────────────────────────────────▶ playing ◀──▶ blocked
 *   │ (audio before a call)          │    ▲                                       │   ▲        │   ▲
 *   └──▶ playing, blocked            ▼    │ ICE restart, then the media again     ▼   │        ▼   │
 *                                 reconnecting ◀───────────────────────────────────────────────────
 *  connecting, playing, blocked, reconnecting ──the call ended, or its media failed──▶ ended
 *  playing, blocked, reconnecting, ended ──the next call's INVITE answered──▶ connecting
 *  ended ──the audio element plays, or is blocked──▶ playing, blocked
 * ```
 * `reconnecting` keeps the audio it interrupted (or that it became meanwhile) to show again once the media
 * flows. News of a call other than `current` (the call shown, still going at the service) moves nothing.
 * AUDIO_TRANSITIONS (state-transitions.ts) lists every arrow; the runtime commits no other move.
 */

export interface MediaSlice {
  audio: Audio;
  warnings: readonly CallWarning[];
  /** During an ICE restart: the audio to show once the media flows again. */
  underRestart: Audio | null;
}

export type MediaEvent =
  /** This page answers the current call's INVITE (told by the runtime as it answers). */
  | { type: 'answering' }
  /** A read showed the call over (told by the runtime as it ends the call). */
  | { type: 'media_ended' }
  /** ICE and DTLS are up: audio can flow (first, or again after an ICE restart). */
  | { type: 'media_connected'; callId: string | undefined }
  /** The call's media path stopped; ICE is being restarted. */
  | { type: 'media_reconnecting'; callId: string | undefined }
  /** The media path failed and every ICE restart with it: the audio is over, though the call is not. */
  | { type: 'media_failed'; callId: string | undefined }
  | { type: 'warning'; callId: string | undefined; warning: CallWarning; raised: boolean }
  /** The microphone went away mid-call: another took its place, or none is left (the call goes on). */
  | { type: 'microphone'; callId: string | undefined; outcome: 'replaced' | 'unavailable' }
  /** The page's audio element plays the call, or the browser blocked it (autoplay policy). */
  | { type: 'audio'; audio: 'playing' | 'blocked' }
  /** A sample of the call's WebRTC statistics. */
  | { type: 'quality'; callId: string | undefined; quality: CallQuality }
  /** Our SIP dialog of the call ended (BYE either way, or a failure). */
  | { type: 'session_ended'; callId: string | undefined }
  /** The service signalled a change of the call (INFO, NOTIFY, or the INVITE withdrawn). */
  | { type: 'call_changed'; callId: string | undefined };

export type MediaEffect =
  /** What `status().error` says now; with `code`, only if the error shown has that code. */
  | { type: 'report'; error: StatusError | null; code?: string }
  /** Tells `onTiming`: once per call for a milestone (`once`), else each time. */
  | { type: 'timing'; name: TimingEvent['name']; callId: string | undefined; once?: true; extra?: Pick<TimingEvent, 'quality' | 'warning'> }
  /** Read the call now; `expect`: the change to read again soon for until shown (the call over, or its state left). */
  | { type: 'read'; expect?: 'over' | 'left' };

export const noMedia: MediaSlice = { audio: 'none', warnings: [], underRestart: null };

const flowing = (audio: Audio) => audio === 'connecting' || audio === 'playing' || audio === 'blocked';
const timing = (name: TimingEvent['name'], callId: string | undefined, extra?: Extract<MediaEffect, { type: 'timing' }>['extra']): MediaEffect => ({ type: 'timing', name, callId, extra });

/** One case per event, each the arrows of the diagram above that the event may take. */
export function transition(state: MediaSlice, event: MediaEvent, current: string | null): [MediaSlice, MediaEffect[]] {
  const { audio } = state;
  const refused: [MediaSlice, MediaEffect[]] = [state, []];
  /** The news is of the current call: only such news moves the audio and the warnings. */
  const mine = 'callId' in event && !!event.callId && event.callId === current;
  switch (event.type) {
    case 'answering':
      return [{ ...state, audio: 'connecting' }, []];
    case 'media_ended':
      return audio === 'none' ? refused : [{ ...noMedia, audio: 'ended' }, []];
    case 'media_reconnecting':
      if (!mine || !flowing(audio)) return refused;
      return [{ ...state, audio: 'reconnecting', underRestart: audio }, [timing('media_reconnecting', event.callId)]];
    case 'media_connected': {
      const milestone: MediaEffect = { type: 'timing', name: 'media_connected', callId: event.callId, once: true };
      if (!mine || audio !== 'reconnecting') return [state, [milestone]];
      return [{ ...state, audio: state.underRestart ?? 'playing', underRestart: null }, [milestone, timing('media_reconnected', event.callId)]];
    }
    case 'media_failed':
      if (!mine || audio === 'none') return refused;
      return [
        { ...state, audio: 'ended' },
        [{ type: 'report', error: { code: 'connection_failed', message: "the call's audio path failed and three ICE restarts could not restore it; hang up and call again" } }, { type: 'read' }],
      ];
    case 'warning': {
      if (!mine) return refused;
      const others = state.warnings.filter((shown) => shown !== event.warning);
      return [{ ...state, warnings: event.raised ? [...others, event.warning] : others }, [timing(event.raised ? 'warning_raised' : 'warning_cleared', event.callId, { warning: event.warning })]];
    }
    case 'microphone':
      if (!mine) return refused;
      return [
        state,
        [
          event.outcome === 'unavailable'
            ? { type: 'report', error: { code: 'microphone_unavailable', message: 'the microphone went away and no other was found; plug one in, the call goes on' } }
            : { type: 'report', error: null, code: 'microphone_unavailable' },
          timing(event.outcome === 'replaced' ? 'microphone_replaced' : 'microphone_lost', event.callId),
        ],
      ];
    case 'audio': {
      const report: MediaEffect =
        event.audio === 'blocked'
          ? { type: 'report', error: { code: 'audio_playback_blocked', message: 'the browser blocked the call audio; click to resume it' } }
          : { type: 'report', error: null, code: 'audio_playback_blocked' };
      // During an ICE restart the page keeps showing `reconnecting`; the new playback state shows after it.
      return [audio === 'reconnecting' ? { ...state, underRestart: event.audio } : { ...state, audio: event.audio }, [report]];
    }
    case 'quality':
      return [state, [timing('call_quality', event.callId, { quality: event.quality })]];
    case 'session_ended':
      return [state, [{ type: 'read', expect: 'over' }]];
    case 'call_changed':
      return [state, [{ type: 'read', expect: 'left' }]];
    default:
      return refused;
  }
}
