import type { Invitation } from 'sip.js/lib/api/invitation.js';
import { Registerer } from 'sip.js/lib/api/registerer.js';
import { RegistererState } from 'sip.js/lib/api/registerer-state.js';
import type { Session } from 'sip.js/lib/api/session.js';
import { SessionState } from 'sip.js/lib/api/session-state.js';
import { UserAgent } from 'sip.js/lib/api/user-agent.js';
import type { SessionDescriptionHandler } from 'sip.js/lib/platform/web/session-description-handler/session-description-handler.js';
import { watchQuality } from './call-quality.js';
import type { Clock } from './clock.js';
import { VoiceBrowserError } from './errors.js';
import { createMediaControls, microphoneError, type DtmfMethod, type MediaControls } from './media-controls.js';
import type { CallQuality, SessionTransport } from './types.js';

/**
 * The only file that imports SIP.js: a registered user agent over WebSocket that reports INVITEs, session
 * ends, media and registration, and plays the remote audio. It decides nothing; voice-browser.ts does.
 *
 * @remarks
 * Loaded with a dynamic `import()` from `connect()`, so a page that only recovers or cleans up never
 * downloads SIP.js. Deep imports keep the parts of SIP.js we do not use out of the bundle.
 */

/** An INVITE from the service, not yet answered. */
export interface IncomingInvite {
  /** `X-Browser-Call-Id` of the INVITE (DESIGN.md); undefined when the service sent none. */
  callId: string | undefined;
  /** Answers with the microphone; rejects with a coded error when the microphone or the answer fails. */
  accept(): Promise<void>;
  /** Declines (486 Busy Here). */
  reject(): void;
  /**
   * The service withdrew it before we answered (CANCEL, answered 487): it can no longer be accepted, and the
   * call's read says what became of it.
   */
  readonly withdrawn: boolean;
}

export interface SipEvents {
  onInvite(invite: IncomingInvite): void;
  /** The SIP dialog of an accepted call ended (BYE either way, or a failure). */
  onSessionEnded(callId: string | undefined): void;
  /** The service signalled a change of the call inside its dialog (an INFO or NOTIFY that is not ours to show). */
  onCallChanged(callId: string | undefined): void;
  /** ICE and DTLS are up: audio can flow. */
  onMediaConnected(callId: string | undefined): void;
  /** The call's media path failed (ICE or DTLS): the call is up in SIP but no audio can flow. */
  onMediaFailed(callId: string | undefined): void;
  /** A sample of the call's WebRTC statistics, every 2 s while its media is connected. */
  onQuality(callId: string | undefined, quality: CallQuality): void;
  onAudio(state: 'playing' | 'blocked'): void;
  /** The WebSocket dropped; the link is trying to reconnect and register again. */
  onReconnecting(): void;
  /** Reconnected and registered again after a drop. */
  onReconnected(): void;
  /** The WebSocket or the registration is gone for good (reconnection failed, refresh refused, expired). */
  onDisconnected(error: VoiceBrowserError): void;
}

export interface SipLinkOptions {
  transport: SessionTransport;
  remoteAudio?: HTMLAudioElement;
  audioDevices?: { microphoneId?: string; speakerId?: string };
  events: SipEvents;
  clock: Clock;
}

export interface SipLink {
  /** Sends BYE for an accepted call. */
  endSession(): void;
  /** Mutes or unmutes the outgoing audio of the current call and of calls answered later. */
  setMuted(muted: boolean): void;
  /** Sends one digit on the established call: RFC 4733 when negotiated, else SIP INFO. */
  sendDtmf(digit: string): Promise<DtmfMethod>;
  /** Plays the remote audio again after the autoplay policy blocked it (call from a user gesture). */
  resumeAudio(): Promise<void>;
  /** Unregisters and closes the WebSocket; the microphone is released with the session. */
  close(): Promise<void>;
}

/** Reconnection after a dropped WebSocket: attempts and the wait before each (ms). */
const RECONNECT_DELAYS_MS = [250, 1000, 3000];

function handlerOf(session: Session | undefined): SessionDescriptionHandler | undefined {
  return session?.sessionDescriptionHandler as SessionDescriptionHandler | undefined;
}

/** Registers the session's temporary credentials over WebSocket; resolves once registered. */
export async function openSipLink(options: SipLinkOptions): Promise<SipLink> {
  const { transport, events, clock } = options;
  const uri = UserAgent.makeURI(transport.sipUri);
  if (!uri) throw new VoiceBrowserError('connection_failed', `the session's SIP URI is not valid: ${transport.sipUri}`);
  const microphone = options.audioDevices?.microphoneId;
  let current: Session | undefined;
  let closing = false;
  let reconnecting = false;
  const media: MediaControls = createMediaControls({
    peerConnection: () => handlerOf(current)?.peerConnection,
    sendInfo: async (contentType, content) => {
      const session = current;
      if (session?.state !== SessionState.Established) throw new VoiceBrowserError('no_active_call', 'the call is not established');
      await new Promise<void>((resolve, reject) => {
        void session
          .info({
            requestDelegate: { onAccept: () => resolve(), onReject: (response) => reject(new Error(`INFO answered ${response.message.statusCode}`)) },
            requestOptions: { body: { contentDisposition: 'render', contentType, content } },
          })
          .catch(reject);
      });
    },
    remoteAudio: options.remoteAudio,
    speakerId: options.audioDevices?.speakerId,
    onAudio: events.onAudio,
    clock,
  });

  const watch = (session: Session, callId: string | undefined) => {
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
        if (current === session) current = undefined;
        events.onSessionEnded(callId);
      }
    });
  };

  const ua = new UserAgent({
    uri,
    authorizationUsername: transport.authorizationUsername,
    authorizationPassword: transport.authorizationPassword,
    transportOptions: { server: transport.websocketUrl, connectionTimeout: 5 },
    logLevel: 'error',
    // Always the session's ICE servers: SIP.js would otherwise use a public STUN server.
    sessionDescriptionHandlerFactoryOptions: { peerConnectionConfiguration: { iceServers: transport.iceServers }, iceGatheringTimeout: 1000 },
    delegate: {
      onInvite: (invitation: Invitation) => {
        const callId = invitation.request.getHeader('X-Browser-Call-Id');
        let withdrawn = false;
        // The service gave the INVITE up (SIP.js answers the CANCEL 487): the call changed, so it is read now.
        invitation.delegate = {
          onCancel: () => {
            withdrawn = true;
            events.onCallChanged(callId);
          },
        };
        events.onInvite({
          callId,
          get withdrawn() {
            return withdrawn;
          },
          accept: async () => {
            current = invitation;
            watch(invitation, callId);
            try {
              await invitation.accept({
                sessionDescriptionHandlerOptions: { constraints: { audio: microphone ? { deviceId: { exact: microphone } } : true, video: false } },
              });
            } catch (cause) {
              throw microphoneError(cause);
            }
          },
          reject: () => void invitation.reject({ statusCode: 486 }).catch(() => undefined),
        });
      },
      onDisconnect: (error?: Error) => {
        if (!closing && !reconnecting) void reconnect(error);
      },
    },
  });

  const registerer = new Registerer(ua, { expires: transport.registrationExpiresSeconds ?? 600 });
  const register = () =>
    new Promise<void>((resolve, reject) => {
      const fail = (why: string) => reject(new VoiceBrowserError('connection_failed', `SIP registration failed: ${why}`));
      registerer
        .register({
          requestDelegate: {
            onAccept: () => resolve(),
            onReject: (response) => fail(`${response.message.statusCode} ${response.message.reasonPhrase}`),
          },
        })
        .catch((error: unknown) => fail(String(error)));
    });

  /** A dropped WebSocket: reconnect and register again a few times; the call's media does not need it. */
  async function reconnect(cause: Error | undefined): Promise<void> {
    reconnecting = true;
    events.onReconnecting();
    for (const delay of RECONNECT_DELAYS_MS) {
      await new Promise<void>((resolve) => clock.setTimeout(resolve, delay));
      if (closing) return;
      try {
        await ua.reconnect();
        await register();
        reconnecting = false;
        events.onReconnected();
        return;
      } catch {
        // The next attempt waits longer; after the last one the link is gone.
      }
    }
    reconnecting = false;
    if (!closing) events.onDisconnected(new VoiceBrowserError('connection_failed', 'the SIP connection to the voice service dropped and could not be restored', { cause }));
  }

  registerer.stateChange.addListener((state) => {
    // The registrar refused a refresh, or the registration ran out (never past the session): no new calls.
    if (state === RegistererState.Unregistered && !closing && !reconnecting) {
      events.onDisconnected(new VoiceBrowserError('browser_session_unavailable', 'the SIP registration ended; renew() the session to take calls again'));
    }
  });

  try {
    await ua.start();
  } catch (cause) {
    throw new VoiceBrowserError('connection_failed', 'could not open the SIP WebSocket to the voice service', { cause });
  }
  await register().catch(async (error: unknown) => {
    closing = true;
    await ua.stop().catch(() => undefined);
    throw error;
  });

  return {
    endSession: () => {
      if (current?.state === SessionState.Established) void current.bye().catch(() => undefined);
    },
    setMuted: media.setMuted,
    sendDtmf: media.sendDtmf,
    resumeAudio: media.resumeAudio,
    close: async () => {
      closing = true;
      if (current?.state === SessionState.Established) await current.bye().catch(() => undefined);
      if (registerer.state === RegistererState.Registered) await registerer.unregister().catch(() => undefined);
      await registerer.dispose().catch(() => undefined);
      await ua.stop().catch(() => undefined);
    },
  };
}
