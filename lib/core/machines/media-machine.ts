import type { Audio, CallQuality, CallWarning, StatusError, TimingEvent } from '../types.js';

/**
 * What SIP and the page's audio element say of the current call, as a pure function beside the connection's and
 * the call's machines: `transition(state, event, current) -> [state, effects]`. It decides the call's `audio` and
 * `warnings`, and what to read or tell; never the call itself (only a read ends a call).
 *
 * @remarks
 * ```
 *         the call's INVITE answered          audio flows over its media path, and the audio element plays or is blocked
 *  none ─────────────────────────▶ connecting ─────────────────────────────────────────────▶ playing ◀──▶ blocked
 *                                    │    ▲                                                    │   ▲        │   ▲
 *                                    ▼    │ ICE restart, then the path up again                ▼   │        ▼   │
 *                                 reconnecting ◀────────────────────────────────────────────────────────────────
 *  connecting, playing, blocked, reconnecting ──the path never came up or was lost, and every restart failed──▶ failed
 *  connecting, playing, blocked, reconnecting ──the far end holds the call──▶ held ──off hold──▶ connecting, playing, blocked
 *  connecting, playing, blocked, reconnecting, held, failed ──the call ended──▶ ended
 *  every state ──the next call's INVITE answered──▶ connecting
 * ```
 * While `held` (RFC 3264 section 8.4) no audio is expected: nothing restarts or fails, and what the path and the
 * element say is kept for when the call comes off hold.
 * The audio element's word (`playing`, `blocked`) shows only while the media path is up: before, it is kept in
 * `playback` and shown once the path comes up, so a call whose media never flowed is never `playing`.
 * `reconnecting` and `failed` keep it too. News of a call other than `current` (the call shown, still going at
 * the service) moves nothing. AUDIO_TRANSITIONS lists every arrow; the runtime commits no
 * other move.
 */

export interface MediaSlice {
  audio: Audio;
  warnings: readonly CallWarning[];
  /** What the page's audio element last said in this call; null before it said anything. */
  playback: 'playing' | 'blocked' | null;
  /**
   * The call's media path: `setup` until audio first flows over it (or when there is no call), `up` while it
   * flows, and `down` once it flowed and stopped (ICE restarting, or given up).
   */
  path: 'setup' | 'up' | 'down';
}

export type MediaEvent =
  /** This page answers the current call's INVITE (told by the runtime as it answers). */
  | { type: 'answering' }
  /** A read showed the call over (told by the runtime as it ends the call). */
  | { type: 'media_ended' }
  /** Audio flows over the call's media path (first, or again after an ICE restart). */
  | { type: 'media_connected'; callId: string | undefined }
  /** The call's media path stopped; ICE is being restarted. */
  | { type: 'media_reconnecting'; callId: string | undefined }
  /**
   * The media path never came up, or was lost, and every ICE restart failed: no audio, though the call may run;
   * or, with `error`, the call's offer/answer itself failed (the call was hung up).
   */
  | { type: 'media_failed'; callId: string | undefined; error?: StatusError }
  /** The far end holds the call (RFC 3264 section 8.4), or took it off hold. */
  | { type: 'media_held' | 'media_resumed'; callId: string | undefined }
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

export const noMedia: MediaSlice = { audio: 'none', warnings: [], playback: null, path: 'setup' };

/** The audio of a call this page answered whose path may still come up or back. */
const live = (audio: Audio) => audio === 'connecting' || audio === 'playing' || audio === 'blocked' || audio === 'reconnecting';
const timing = (name: TimingEvent['name'], callId: string | undefined, extra?: Extract<MediaEffect, { type: 'timing' }>['extra']): MediaEffect => ({ type: 'timing', name, callId, extra });

/**
 * The error shown once every ICE restart failed: it says what failed (no audio path, whether audio ever flowed
 * over it) and what is still true (the call may run at the service); what to try is errorAdvice's.
 */
function pathFailed(path: MediaSlice['path']): StatusError {
  const what = path === 'setup' ? 'no audio ever flowed' : 'the path was lost';
  return { code: 'audio_path_failed', message: `no audio path between this browser and the voice service: ${what}, and ICE restarts could not set it up; the call itself may still be up` };
}

/** The page's audio element plays the call, or the browser blocked it. */
function playback(state: MediaSlice, said: 'playing' | 'blocked'): [MediaSlice, MediaEffect[]] {
  const report: MediaEffect =
    said === 'blocked'
      ? { type: 'report', error: { code: 'audio_playback_blocked', message: 'the browser blocked the call audio; click to resume it' } }
      : { type: 'report', error: null, code: 'audio_playback_blocked' };
  // The element's word shows only over a path that is up; until then (and during an ICE restart) it waits.
  const shown = state.path === 'up' && live(state.audio) && state.audio !== 'reconnecting' ? said : state.audio;
  return [{ ...state, audio: shown, playback: said }, [report]];
}

/** One case per event, each the arrows of the diagram above that the event may take. */
export function transition(state: MediaSlice, event: MediaEvent, current: string | null): [MediaSlice, MediaEffect[]] {
  const { audio } = state;
  const refused: [MediaSlice, MediaEffect[]] = [state, []];
  /** The news is of the current call: only such news moves the audio and the warnings. */
  const mine = !!current && 'callId' in event && event.callId === current;
  switch (event.type) {
    case 'answering':
      return [{ ...state, audio: 'connecting', playback: null, path: 'setup' }, []];
    case 'media_ended':
      return audio === 'none' ? refused : [{ ...noMedia, audio: 'ended' }, []];
    case 'media_reconnecting':
      if (!mine || !live(audio) || audio === 'reconnecting') return refused;
      return [{ ...state, audio: 'reconnecting', path: state.path === 'up' ? 'down' : state.path }, [timing('media_reconnecting', event.callId)]];
    case 'media_connected': {
      const milestone: MediaEffect = { type: 'timing', name: 'media_connected', callId: event.callId, once: true };
      // On hold, the path is noted up for when the call comes off it.
      if (mine && audio === 'held') return [{ ...state, path: 'up' }, [milestone]];
      if (!mine || (audio !== 'connecting' && audio !== 'reconnecting')) return [state, [milestone]];
      const up: MediaSlice = { ...state, audio: state.playback ?? 'connecting', path: 'up' };
      return [up, audio === 'reconnecting' ? [milestone, timing('media_reconnected', event.callId)] : [milestone]];
    }
    case 'media_failed':
      if (!mine || !live(audio)) return refused;
      return [{ ...state, audio: 'failed', path: state.path === 'up' ? 'down' : state.path }, [{ type: 'report', error: event.error ?? pathFailed(state.path) }, { type: 'read' }]];
    case 'media_held':
      return mine && live(audio) ? [{ ...state, audio: 'held' }, []] : refused;
    case 'media_resumed':
      if (!mine || audio !== 'held') return refused;
      return [{ ...state, audio: state.path === 'up' ? (state.playback ?? 'connecting') : 'connecting' }, []];
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
    case 'audio':
      return playback(state, event.audio);
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
