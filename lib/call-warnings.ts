import type { Clock } from './clock.js';
import type { CallWarning } from './types.js';

/**
 * Warnings during a call, raised and cleared by themselves from the statistics the helper already samples:
 * no audio from a far end that sends, a microphone that sends silence while not muted, packet loss, a long
 * round trip. Pure over the injected clock; sip-session.ts feeds it the media path's looks and the quality
 * samples, and tells each change.
 */

/** How long audio must be missing (from the far end, or from the microphone) before a warning says so. */
export const SILENCE_WARN_MS = 3000;
/** Inbound loss over one quality interval above which `high_packet_loss` is raised. */
export const LOSS_WARN_PERCENT = 5;
/** Round trip above which `high_rtt` is raised. */
export const RTT_WARN_MS = 400;
/** Mean microphone level (0 to 1, as `audioLevel`) under which it is taken as silent: about -60 dBov. */
export const SILENT_LEVEL = 0.001;

/** One look at the call's audio: what media-path.ts samples, with the microphone's energy and the mute wish. */
export interface AudioLook {
  /** Audio packets received since the call began. */
  received: number;
  farEndSends: boolean;
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
  let heardAt = clock.now();
  let loudAt = clock.now();
  let mic: { energy: number; seconds: number } | undefined;
  const set = (warning: CallWarning, on: boolean) => {
    if (on === raised.has(warning)) return;
    if (on) raised.add(warning);
    else raised.delete(warning);
    onChange(warning, on);
  };
  return {
    look({ received: now, farEndSends, micEnergy, micSeconds, muted }) {
      const at = clock.now();
      if (now > received || !farEndSends) heardAt = at;
      received = now;
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
