import type { Clock } from './clock.js';
import type { CallWarning } from './types.js';

/**
 * Warnings during a call, raised and cleared by themselves from the statistics the helper already samples:
 * a media path that never connected, no audio from a far end that sends, a microphone that sends silence while
 * not muted, packet loss, a long round trip. Pure over the injected clock; the SIP link's call feeds it the
 * media path's looks and the quality samples, and tells each change.
 */

/** How long audio (or, before it ever connected, the media path) must be missing before a warning says so. */
export const SILENCE_WARN_MS = 3000;
/** Inbound loss over one quality interval above which `high_packet_loss` is raised. */
export const LOSS_WARN_PERCENT = 5;
/** Round trip above which `high_rtt` is raised. */
export const RTT_WARN_MS = 400;
/** Mean microphone level (0 to 1, as `audioLevel`) under which it is taken as silent: about -60 dBov. */
export const SILENT_LEVEL = 0.001;

/** One look at the call's audio: what `watchMediaPath` samples, with the microphone's energy and the mute wish. */
export interface AudioLook {
  /** The peer connection's `connectionState` (ICE and DTLS together). */
  state: RTCPeerConnectionState;
  /** Audio packets received since the call began. */
  received: number;
  farEndSends: boolean;
  /** The far end holds the call: no audio and no path are then expected of it. */
  held?: boolean;
  /** The microphone's `totalAudioEnergy` and `totalSamplesDuration` (webrtc-stats media-source), when reported. */
  micEnergy?: number;
  micSeconds?: number;
  muted: boolean;
}

export interface CallWarnings {
  look(sample: AudioLook): void;
  quality(sample: { lossPercent: number | null; rttMs: number | null }): void;
}

/** Creates the warnings of one call; `onChange` hears each warning raised or cleared. */
export function createCallWarnings(clock: Clock, onChange: (warning: CallWarning, raised: boolean) => void): CallWarnings {
  const raised = new Set<CallWarning>();
  let received = 0;
  /** The path connected once in this call: until then no audio can come, and only the path is missing. */
  let connected = false;
  let startedAt = clock.now();
  let heardAt = startedAt;
  let loudAt = clock.now();
  let mic: { energy: number; seconds: number } | undefined;
  const set = (warning: CallWarning, on: boolean) => {
    if (on === raised.has(warning)) return;
    if (on) raised.add(warning);
    else raised.delete(warning);
    onChange(warning, on);
  };
  return {
    look({ state, received: now, farEndSends, held, micEnergy, micSeconds, muted }) {
      const at = clock.now();
      connected ||= state === 'connected';
      // A hold is no lost path: its silence and the path's setup are timed afresh once off hold.
      if (held) startedAt = at;
      // Before the path ever connected the silence says only that: no path (ICE and DTLS not up), not a lossy one.
      if (!connected || now > received || !farEndSends || held) heardAt = at;
      received = now;
      set('no_audio_path', !connected && at - startedAt >= SILENCE_WARN_MS);
      set('no_inbound_audio', at - heardAt >= SILENCE_WARN_MS);
      // The mean level since the last look: totalAudioEnergy sums level squared over time (webrtc-stats).
      const energy = micEnergy ?? 0;
      const seconds = micSeconds ?? 0;
      const level = mic && seconds > mic.seconds ? Math.sqrt((energy - mic.energy) / (seconds - mic.seconds)) : undefined;
      mic = { energy, seconds };
      if (muted || level === undefined || level >= SILENT_LEVEL) loudAt = at;
      set('silent_microphone', at - loudAt >= SILENCE_WARN_MS);
    },
    quality({ lossPercent, rttMs }) {
      if (lossPercent !== null) set('high_packet_loss', lossPercent > LOSS_WARN_PERCENT);
      if (rttMs !== null) set('high_rtt', rttMs > RTT_WARN_MS);
    },
  };
}
