import { watchQuality } from '../media/call-quality.js';
import { createCallWarnings, type AudioLook } from '../../../core/call-warnings.js';
import type { Clock } from '../../../core/clock.js';
import type { MediaControls } from '../media/media-controls.js';
import { watchMediaPath, type PathSample } from '../media/media-path.js';
import { createMicrophoneMeter, type MeterAudioContext, type MicrophoneMeter } from '../media/microphone-meter.js';
import type { LinkEvent } from '../../../runtime/sip-link.js';
import type { Call } from './sip-call.js';
import { reoffer } from './sip-offer-answer.js';

/**
 * An answered call followed for the helper (the SIP session holds its dialog): the in-dialog requests that tell of a
 * change, its media's path, quality and warnings while up, and its end, each told as a link event. Part of the SIP
 * chunk, with the link.
 */

/** What a session's watch reports to, and what it starts once the session is up. */
export interface SessionWatch {
  emit(event: LinkEvent): void;
  media: MediaControls;
  clock: Clock;
  onTerminated(): void;
  /** Makes the AudioContext of a microphone meter (default: the browser's); a seam for tests. */
  audio?: () => MeterAudioContext | undefined;
}

/**
 * Follows an answered session: in-dialog INFO/NOTIFY (a change of the call), media up or failed, quality
 * samples while up, and its end.
 */
export function watchSession(session: Call, callId: string | undefined, watch: SessionWatch): void {
  const { emit, media, onTerminated } = watch;
  let stopMedia: (() => void) | undefined;
  // A service may tell of a state change in the dialog (the simulator sends INFO): read the call at once.
  // Setting the delegate means answering ourselves.
  session.delegate = {
    onInfo: (info) => {
      info.accept();
      emit({ type: 'call_changed', callId });
    },
    onNotify: (notification) => {
      notification.accept();
      emit({ type: 'call_changed', callId });
    },
    // A REFER asks the page to transfer the call by dialling another party itself (RFC 3515). The helper only
    // answers the calls its server places, so it declines (603).
    onRefer: (referral) => void referral.reject({ statusCode: 603 }),
  };
  session.listeners.push((state) => {
    if (state === 'established') {
      const { handler } = session;
      const pc = handler?.peerConnection;
      if (handler) handler.onMicrophone = (outcome) => emit({ type: 'microphone', callId, outcome });
      if (pc) stopMedia = watchMedia(session, pc, callId, watch);
      // The far end's hold (RFC 3264 section 8.4) is no failure: the path's watch and the warnings rest meanwhile.
      session.tell = (news) => {
        if ('held' in news) return emit({ type: news.held ? 'media_held' : 'media_resumed', callId });
        emit({ type: 'media_failed', callId, error: { code: 'audio_path_failed', message: news.failed } });
      };
      // Refused by the TURN server with no candidate of its own besides (a relay-only network): no path can form.
      if (handler?.turnRefused && !/^a=candidate/m.test(pc?.localDescription?.sdp ?? '')) {
        emit({ type: 'media_failed', callId, error: { code: 'turn_refused', message: 'TURN refused the credentials' } });
      }
      media.applyMute();
      void media.play(handler?.remoteMediaStream);
    }
    if (state === 'terminated') {
      stopMedia?.();
      onTerminated();
      emit({ type: 'session_ended', callId });
    }
  });
}

/**
 * The watches of an established call's media: its path, its quality and warnings once audio flows, and the
 * microphone's level where the stats lack it (Firefox). Returns what ends them all, at the call's end.
 */
function watchMedia(session: Call, pc: RTCPeerConnection, callId: string | undefined, { emit, media, clock, audio }: SessionWatch): () => void {
  let stopQuality: (() => void) | undefined;
  const meter = createMicrophoneMeter(pc, audio);
  const warnings = createCallWarnings(clock, (warning, raised) => emit({ type: 'warning', callId, warning, raised }));
  const stopPath = watchMediaPath({
    sample: async () => {
      const look = await samplePath(pc, meter, !!session.held);
      warnings.look({ ...look, muted: media.isMuted() });
      return look;
    },
    onStateChange: (listener) => {
      pc.addEventListener('connectionstatechange', listener);
      return () => pc.removeEventListener('connectionstatechange', listener);
    },
    clock,
    restartIce: () => reoffer(session, clock, true),
    onConnected: () => {
      emit({ type: 'media_connected', callId });
      stopQuality ??= watchQuality(
        pc,
        clock,
        (quality) => {
          warnings.quality(quality);
          emit({ type: 'quality', callId, quality });
        },
        meter.read,
      );
    },
    onReconnecting: () => emit({ type: 'media_reconnecting', callId }),
    onFailed: () => emit({ type: 'media_failed', callId }),
  });
  return () => {
    stopPath();
    stopQuality?.();
    meter.close();
  };
}

/**
 * The call's path as the media path's watch judges it: the connection's state, the audio received, the far end's
 * direction and hold; with the microphone's totals for the silent-microphone warning.
 */
async function samplePath(pc: RTCPeerConnection, microphone: MicrophoneMeter, held: boolean): Promise<PathSample & Omit<AudioLook, 'muted'>> {
  let received = 0;
  const report = await pc.getStats();
  report.forEach((stat: { type: string; kind?: string; packetsReceived?: number }) => {
    if (stat.type === 'inbound-rtp' && stat.kind === 'audio') received += stat.packetsReceived ?? 0;
  });
  const mic = microphone.read(report);
  // RFC 3264 section 6.1: a far end that answered recvonly or inactive sends nothing, so its silence says nothing.
  const farEndSends = !/^a=(?:recvonly|inactive)\s*$/m.test(pc.currentRemoteDescription?.sdp ?? '');
  return { state: pc.connectionState, received, farEndSends, held, micEnergy: mic?.energy, micSeconds: mic?.seconds };
}
