import type { Invitation } from 'sip.js/lib/api/invitation.js';
import type { Session } from 'sip.js/lib/api/session.js';
import { SessionState } from 'sip.js/lib/api/session-state.js';
import type { SessionDescriptionHandler } from 'sip.js/lib/platform/web/session-description-handler/session-description-handler.js';
import { watchQuality } from './call-quality.js';
import type { Clock } from './clock.js';
import { VoiceBrowserError } from './errors.js';
import { microphoneError, type MediaControls } from './media-controls.js';
import type { IncomingInvite, SipEvents } from './sip-link.js';

/**
 * A call's dialog in SIP.js: the INVITE as the helper sees it, the answered session followed to its end,
 * and INFO sent in it. With sip-adapter.ts (the registered user agent) the only files that import SIP.js;
 * loaded with it, on `connect()`.
 */

export function handlerOf(session: Session | undefined): SessionDescriptionHandler | undefined {
  return session?.sessionDescriptionHandler as SessionDescriptionHandler | undefined;
}

/** What a session's watch reports to, and what it starts once the session is up. */
export interface SessionWatch {
  events: SipEvents;
  media: MediaControls;
  clock: Clock;
  onTerminated(): void;
}

/**
 * Follows an answered session: in-dialog INFO/NOTIFY (a change of the call), media up or failed, quality
 * samples while up, and its end.
 */
export function watchSession(session: Session, callId: string | undefined, { events, media, clock, onTerminated }: SessionWatch): void {
  let stopQuality: (() => void) | undefined;
  // A service may tell of a state change in the dialog (the simulator sends INFO): read the call at once.
  // Setting the delegate means answering ourselves.
  session.delegate = {
    ...session.delegate,
    onInfo: (info) => {
      void info.accept().catch(() => undefined);
      events.onCallChanged(callId);
    },
    onNotify: (notification) => {
      void notification.accept().catch(() => undefined);
      events.onCallChanged(callId);
    },
  };
  session.stateChange.addListener((state) => {
    if (state === SessionState.Established) {
      const pc = handlerOf(session)?.peerConnection;
      const report = () => {
        // ICE or DTLS gave up: no audio will flow on this call (SIP.js does not restart ICE).
        if (pc?.connectionState === 'failed') return events.onMediaFailed(callId);
        if (pc?.connectionState !== 'connected') return;
        events.onMediaConnected(callId);
        stopQuality ??= watchQuality(pc, clock, (quality) => events.onQuality(callId, quality));
      };
      pc?.addEventListener('connectionstatechange', report);
      report();
      media.applyMute();
      void media.play(handlerOf(session)?.remoteMediaStream);
    }
    if (state === SessionState.Terminated) {
      stopQuality?.();
      onTerminated();
      events.onSessionEnded(callId);
    }
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

/**
 * An INVITE as the helper sees it: its call id, whether the service withdrew it, and accept or refuse.
 * `onAccept` runs as the answer starts, so the session is followed from its first state change.
 */
export function incomingInvite(invitation: Invitation, events: SipEvents, microphone: string | undefined, onAccept: () => void): IncomingInvite {
  const callId = invitation.request.getHeader('X-Browser-Call-Id');
  let withdrawn = false;
  // The service gave the INVITE up (SIP.js answers the CANCEL 487): the call changed, so it is read now.
  invitation.delegate = {
    onCancel: () => {
      withdrawn = true;
      events.onCallChanged(callId);
    },
  };
  return {
    callId,
    get withdrawn() {
      return withdrawn;
    },
    accept: async () => {
      onAccept();
      try {
        await invitation.accept({
          sessionDescriptionHandlerOptions: { constraints: { audio: microphone ? { deviceId: { exact: microphone } } : true, video: false } },
        });
      } catch (cause) {
        throw microphoneError(cause);
      }
    },
    reject: () => void invitation.reject({ statusCode: 486 }).catch(() => undefined),
  };
}
