import type { Invitation } from 'sip.js/lib/api/invitation.js';
import { Registerer } from 'sip.js/lib/api/registerer.js';
import { RegistererState } from 'sip.js/lib/api/registerer-state.js';
import type { Session } from 'sip.js/lib/api/session.js';
import { SessionState } from 'sip.js/lib/api/session-state.js';
import { UserAgent } from 'sip.js/lib/api/user-agent.js';
import type { SessionDescriptionHandler } from 'sip.js/lib/platform/web/session-description-handler/session-description-handler.js';
import { VoiceBrowserError } from './errors.js';
import type { SessionTransport } from './types.js';

/**
 * The only file that imports SIP.js: a registered user agent over WebSocket that reports INVITEs, session
 * ends and media, and plays the remote audio. It decides nothing; voice-browser.ts does.
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
}

export interface SipEvents {
  onInvite(invite: IncomingInvite): void;
  /** The SIP dialog of an accepted call ended (BYE either way, or a failure). */
  onSessionEnded(callId: string | undefined): void;
  /** ICE and DTLS are up: audio can flow. */
  onMediaConnected(callId: string | undefined): void;
  onAudio(state: 'playing' | 'blocked'): void;
  /** The WebSocket dropped or the registration was lost. */
  onDisconnected(error: VoiceBrowserError): void;
}

export interface SipLinkOptions {
  transport: SessionTransport;
  remoteAudio?: HTMLAudioElement;
  audioDevices?: { microphoneId?: string; speakerId?: string };
  events: SipEvents;
}

export interface SipLink {
  /** Sends BYE for an accepted call (or CANCEL-equivalent reject if still ringing). */
  endSession(): void;
  /** Unregisters and closes the WebSocket; the microphone is released with the session. */
  close(): Promise<void>;
}

/** getUserMedia failures, told apart (spec 4.9 asks that permission failures be distinguishable). */
function microphoneError(cause: unknown): VoiceBrowserError {
  const name = (cause as { name?: string } | undefined)?.name;
  if (name === 'NotAllowedError' || name === 'SecurityError') {
    return new VoiceBrowserError('microphone_permission_denied', 'the microphone permission was refused; allow it in the browser and try again', { cause });
  }
  if (name === 'NotFoundError' || name === 'OverconstrainedError' || name === 'NotReadableError') {
    return new VoiceBrowserError('microphone_unavailable', 'no usable microphone was found; plug one in or pick another', { cause });
  }
  return new VoiceBrowserError('connection_failed', 'the call could not be answered in the browser', { cause });
}

async function playRemote(session: Session, options: SipLinkOptions): Promise<void> {
  const audio = options.remoteAudio;
  const sdh = session.sessionDescriptionHandler as SessionDescriptionHandler | undefined;
  if (!audio || !sdh) return;
  audio.srcObject = sdh.remoteMediaStream;
  const speakerId = options.audioDevices?.speakerId;
  const sinkable = audio as HTMLAudioElement & { setSinkId?: (id: string) => Promise<void> };
  if (speakerId && sinkable.setSinkId) await sinkable.setSinkId(speakerId).catch(() => undefined);
  try {
    await audio.play();
    options.events.onAudio('playing');
  } catch {
    // Autoplay policy: playback needs a user gesture (the page resumes it with a click).
    options.events.onAudio('blocked');
  }
}

function watchSession(session: Session, callId: string | undefined, options: SipLinkOptions): void {
  session.stateChange.addListener((state) => {
    if (state === SessionState.Established) {
      const pc = (session.sessionDescriptionHandler as SessionDescriptionHandler | undefined)?.peerConnection;
      const report = () => {
        if (pc?.connectionState === 'connected') options.events.onMediaConnected(callId);
      };
      pc?.addEventListener('connectionstatechange', report);
      report();
      void playRemote(session, options);
    }
    if (state === SessionState.Terminated) options.events.onSessionEnded(callId);
  });
}

/** Registers the session's temporary credentials over WebSocket; resolves once registered. */
export async function openSipLink(options: SipLinkOptions): Promise<SipLink> {
  const { transport, events } = options;
  const uri = UserAgent.makeURI(transport.sipUri);
  if (!uri) throw new VoiceBrowserError('connection_failed', `the session's SIP URI is not valid: ${transport.sipUri}`);
  const microphone = options.audioDevices?.microphoneId;
  let current: Session | undefined;
  let closing = false;

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
        events.onInvite({
          callId,
          accept: async () => {
            current = invitation;
            watchSession(invitation, callId, options);
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
        if (!closing) events.onDisconnected(new VoiceBrowserError('connection_failed', 'the SIP connection to the voice service dropped', { cause: error }));
      },
    },
  });

  try {
    await ua.start();
  } catch (cause) {
    throw new VoiceBrowserError('connection_failed', 'could not open the SIP WebSocket to the voice service', { cause });
  }
  const registerer = new Registerer(ua, { expires: transport.registrationExpiresSeconds ?? 600 });
  await new Promise<void>((resolve, reject) => {
    const fail = (why: string) => reject(new VoiceBrowserError('connection_failed', `SIP registration failed: ${why}`));
    registerer.stateChange.addListener((state) => {
      if (state === RegistererState.Registered) resolve();
    });
    registerer
      .register({ requestDelegate: { onReject: (response) => fail(`${response.message.statusCode} ${response.message.reasonPhrase}`) } })
      .catch((error: unknown) => fail(String(error)));
  }).catch(async (error: unknown) => {
    closing = true;
    await ua.stop().catch(() => undefined);
    throw error;
  });

  return {
    endSession: () => {
      const session = current;
      if (!session) return;
      if (session.state === SessionState.Established) void session.bye().catch(() => undefined);
    },
    close: async () => {
      closing = true;
      if (current?.state === SessionState.Established) await current.bye().catch(() => undefined);
      if (registerer.state === RegistererState.Registered) await registerer.unregister().catch(() => undefined);
      await registerer.dispose().catch(() => undefined);
      await ua.stop().catch(() => undefined);
    },
  };
}
