import type { Invitation } from 'sip.js/lib/api/invitation.js';
import type { Session } from 'sip.js/lib/api/session.js';
import { SessionState } from 'sip.js/lib/api/session-state.js';
import type { AudioSessionHandler } from './audio-session-handler.js';
import { watchQuality } from './call-quality.js';
import { createCallWarnings, type AudioLook } from './call-warnings.js';
import type { Clock } from './clock.js';
import { VoiceBrowserError } from './errors.js';
import { microphoneError, type MediaControls } from './media-controls.js';
import { watchMediaPath, type PathSample } from './media-path.js';
import { createMicrophoneMeter, type MeterAudioContext, type MicrophoneMeter } from './microphone-meter.js';
import type { IncomingInvite, LinkEvent } from './sip-link.js';

/**
 * A call's dialog in SIP.js: the INVITE as the helper sees it, the answered session followed to its end,
 * and INFO sent in it. With sip-adapter.ts (the registered user agent) and audio-session-handler.ts (the
 * call's media) the only files that import SIP.js; loaded with them, on `connect()`.
 */

export function handlerOf(session: Session | undefined): AudioSessionHandler | undefined {
  return session?.sessionDescriptionHandler as AudioSessionHandler | undefined;
}

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
export function watchSession(session: Session, callId: string | undefined, { emit, media, clock, onTerminated, audio }: SessionWatch): void {
  let stopQuality: (() => void) | undefined;
  /** The microphone's level where the stats lack it (Firefox): open while the call's media is, closed at its end. */
  let microphone: MicrophoneMeter | undefined;
  // A service may tell of a state change in the dialog (the simulator sends INFO): read the call at once.
  // Setting the delegate means answering ourselves.
  session.delegate = {
    ...session.delegate,
    onInfo: (info) => {
      void info.accept().catch(() => undefined);
      emit({ type: 'call_changed', callId });
    },
    onNotify: (notification) => {
      void notification.accept().catch(() => undefined);
      emit({ type: 'call_changed', callId });
    },
    // A REFER asks the page to transfer the call by dialling another party itself (RFC 3515). The helper only
    // answers the calls its server places, so it declines (603); without a delegate SIP.js would follow it.
    onRefer: (referral) => void referral.reject({ statusCode: 603 }).catch(() => undefined),
  };
  let stopPath: (() => void) | undefined;
  session.stateChange.addListener((state) => {
    if (state === SessionState.Established) {
      const handler = handlerOf(session);
      const pc = handler?.peerConnection;
      if (handler) handler.onMicrophone = (outcome) => emit({ type: 'microphone', callId, outcome });
      if (pc) {
        const meter = (microphone = createMicrophoneMeter(pc, audio));
        const warnings = createCallWarnings(clock, (warning, raised) => emit({ type: 'warning', callId, warning, raised }));
        stopPath = watchMediaPath({
          sample: async () => {
            const look = await samplePath(pc, meter);
            warnings.look({ ...look, muted: media.isMuted() });
            return look;
          },
          onStateChange: (listener) => {
            pc.addEventListener('connectionstatechange', listener);
            return () => pc.removeEventListener('connectionstatechange', listener);
          },
          clock,
          restartIce: () => restartIce(session),
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
      }
      media.applyMute();
      void media.play(handler?.remoteMediaStream);
    }
    if (state === SessionState.Terminated) {
      stopPath?.();
      stopQuality?.();
      microphone?.close();
      onTerminated();
      emit({ type: 'session_ended', callId });
    }
  });
}

/**
 * The call's path as media-path.ts judges it: the connection's state, the audio received, the far end's
 * direction; with the microphone's totals for the silent-microphone warning.
 */
async function samplePath(pc: RTCPeerConnection, microphone: MicrophoneMeter): Promise<PathSample & Omit<AudioLook, 'muted'>> {
  let received = 0;
  const report = await pc.getStats();
  report.forEach((stat: { type: string; kind?: string; packetsReceived?: number }) => {
    if (stat.type === 'inbound-rtp' && stat.kind === 'audio') received += stat.packetsReceived ?? 0;
  });
  const mic = microphone.read(report);
  // RFC 3264 section 6.1: a far end that answered recvonly or inactive sends nothing, so its silence says nothing.
  const farEndSends = !/^a=(?:recvonly|inactive)\s*$/m.test(pc.currentRemoteDescription?.sdp ?? '');
  return { state: pc.connectionState, received, farEndSends, micEnergy: mic?.energy, micSeconds: mic?.seconds };
}

/** Restarts the call's ICE by a re-INVITE whose offer carries new ICE credentials; resolves on its 2xx. */
function restartIce(session: Session): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    session
      .invite({
        sessionDescriptionHandlerOptions: { offerOptions: { iceRestart: true } } as Session['sessionDescriptionHandlerOptionsReInvite'],
        requestDelegate: { onAccept: () => resolve(), onReject: (response) => reject(new Error(`re-INVITE answered ${response.message.statusCode}`)) },
      })
      .catch(reject);
  });
}

/** Sends one SIP INFO in the established session (DTMF when RFC 4733 was not negotiated). */
export function sendInfo(session: Session | undefined, contentType: string, content: string): Promise<void> {
  if (session?.state !== SessionState.Established) return Promise.reject(new VoiceBrowserError('no_active_call', 'the call is not established'));
  return new Promise<void>((resolve, reject) => {
    void session
      .info({
        requestDelegate: { onAccept: () => resolve(), onReject: (response) => reject(new Error(`INFO answered ${response.message.statusCode}`)) },
        requestOptions: { body: { contentDisposition: 'render', contentType, content } },
      })
      .catch(reject);
  });
}

/** The call an INVITE names: `X-Browser-Call-Id` for a browser call, `X-Call-Id` for a caller claimed from a queue. */
export const callIdOf = (request: Invitation['request']): string | undefined => request.getHeader('X-Browser-Call-Id') ?? request.getHeader('X-Call-Id');

/**
 * The INVITEs not yet answered, kept by id: each told to the helper as data (`invite_received`), answered or
 * declined when it names the id back. `onAccept` runs as an answer starts, so the session is followed from its
 * first state change.
 */
export function createInvites(emit: (event: LinkEvent) => void, microphone: string | undefined, clock: Clock, onAccept: (invitation: Invitation) => void) {
  const pending = new Map<number, Invitation>();
  const withdrawn = new WeakSet<Invitation>();
  let last = 0;
  return {
    received(invitation: Invitation): void {
      const id = ++last;
      const { request } = invitation;
      const callId = callIdOf(request);
      pending.set(id, invitation);
      // The service gave the INVITE up (SIP.js answers the CANCEL 487): the call changed, so it is read now.
      invitation.delegate = {
        onCancel: () => {
          withdrawn.add(invitation);
          pending.delete(id);
          emit({ type: 'invite_withdrawn', id, callId });
        },
      };
      // A queue's caller: their number is the From's user part, E.164 without its `+` as SIP URIs write it. A
      // supervisor's monitor leg (`X-Monitored-Call-Id`) is no caller to offer.
      const user = request.from.uri.user ?? '';
      const queued = request.hasHeader('X-Call-Id') && !request.hasHeader('X-Monitored-Call-Id');
      const caller = queued ? { caller: /^\d+$/.test(user) ? `+${user}` : user } : {};
      emit({ type: 'invite_received', invite: { id, callId, at: clock.now(), ...caller } });
    },
    async answer(id: number): Promise<void> {
      const invitation = pending.get(id);
      pending.delete(id);
      if (!invitation) return;
      onAccept(invitation);
      // A supervisor's monitor leg is answered listen-only: no microphone (audio false), so the answer is recvonly.
      const listen = invitation.request.hasHeader('X-Monitored-Call-Id');
      try {
        await invitation.accept({
          sessionDescriptionHandlerOptions: { constraints: { audio: !listen && (microphone ? { deviceId: { exact: microphone } } : true), video: false } },
        });
      } catch (cause) {
        // Withdrawn while we answered (a CANCEL crossed our 200 OK): not the page's failure.
        if (!withdrawn.has(invitation)) throw microphoneError(cause);
      }
    },
    decline(id: number): void {
      void pending.get(id)?.reject({ statusCode: 486 }).catch(() => undefined);
      pending.delete(id);
    },
  };
}
