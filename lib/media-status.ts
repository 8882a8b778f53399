import type { CallWarning, TimingEvent, VoiceBrowserStatus } from './types.js';

/**
 * What SIP says of the current call's media, shown in the status: the audio's playback, `reconnecting` around
 * an ICE restart, the warnings, and a microphone lost mid-call. Part of the SIP chunk: it comes with SIP.js on
 * the first `connect()` (the helper imports the chunk dynamically and hands its parts to the runtime), so a page
 * that only recovers or cleans up never downloads it.
 */

/** The runtime's parts the media's status acts on (it alone holds the status store). */
export interface MediaStatusHost {
  status(): VoiceBrowserStatus;
  commit(patch: Partial<Pick<VoiceBrowserStatus, 'audio' | 'warnings' | 'error'>>): void;
  /** Tells `onTiming` of the current call, timed from its start. */
  timing(name: TimingEvent['name'], callId: string | undefined, extra?: Pick<TimingEvent, 'warning'>): void;
  /** SIP speaks of the call now shown, still going at the service. */
  isCurrent(callId: string | undefined): boolean;
}

export type MediaStatus = ReturnType<typeof createMediaStatus>;

export function createMediaStatus({ status, commit, timing, isCurrent }: MediaStatusHost) {
  /** The page's audio while an ICE restart runs (`reconnecting` shows meanwhile), to show again after it. */
  let audioUnderRestart: 'connecting' | 'playing' | 'blocked' | undefined;

  return {
    reconnecting(callId: string | undefined): void {
      const audio = status().audio;
      if (!isCurrent(callId) || (audio !== 'connecting' && audio !== 'playing' && audio !== 'blocked')) return;
      audioUnderRestart = audio;
      commit({ audio: 'reconnecting' });
      timing('media_reconnecting', callId);
    },
    /** The media flows (first, or again after an ICE restart). */
    connected(callId: string | undefined): void {
      if (status().audio !== 'reconnecting' || !isCurrent(callId)) return;
      commit({ audio: audioUnderRestart ?? 'playing' });
      timing('media_reconnected', callId);
    },
    warning(callId: string | undefined, warning: CallWarning, raised: boolean): void {
      if (!isCurrent(callId)) return;
      const others = status().warnings.filter((shown) => shown !== warning);
      commit({ warnings: raised ? [...others, warning] : others });
      timing(raised ? 'warning_raised' : 'warning_cleared', callId, { warning });
    },
    /**
     * The media path failed and every ICE restart with it: the audio is over though the call is not (only a read
     * ends a call), and the page is told what to do. False for a call no longer shown.
     */
    failed(callId: string | undefined): boolean {
      if (!isCurrent(callId)) return false;
      commit({ audio: 'ended', error: { code: 'connection_failed', message: "the call's audio path failed and three ICE restarts could not restore it; hang up and call again" } });
      return true;
    },
    /** The microphone went away mid-call: told either way, and shown as an error while none is left. */
    microphone(callId: string | undefined, outcome: 'replaced' | 'unavailable'): void {
      if (!isCurrent(callId)) return;
      const shown = status().error?.code === 'microphone_unavailable';
      if (outcome === 'unavailable') {
        commit({ error: { code: 'microphone_unavailable', message: 'the microphone went away and no other was found; plug one in, the call goes on' } });
      } else if (shown) commit({ error: null });
      timing(outcome === 'replaced' ? 'microphone_replaced' : 'microphone_lost', callId);
    },
    audio(audio: 'playing' | 'blocked'): void {
      // During an ICE restart the page keeps showing `reconnecting`; the new playback state shows after it.
      const restarting = status().audio === 'reconnecting';
      if (restarting) audioUnderRestart = audio;
      const shown = restarting ? 'reconnecting' : audio;
      if (audio === 'blocked') {
        commit({ audio: shown, error: { code: 'audio_playback_blocked', message: 'the browser blocked the call audio; click to resume it' } });
      } else {
        commit({ audio: shown, ...(status().error?.code === 'audio_playback_blocked' ? { error: null } : {}) });
      }
    },
  };
}
