import type { Clock } from './clock.js';
import type { VoiceBrowserError } from './errors.js';
import type { DtmfMethod } from './media-controls.js';
import type { CallQuality, CallWarning, SessionTransport } from './types.js';

/**
 * What the helper and its SIP layer say to each other: the link it opens, the INVITEs and events it gets.
 * Types only: the runtime speaks to SIP.js through these (sip-adapter.ts implements them, loaded on
 * `connect()`), and tests through a fake that behaves (test/support/fake-sip.ts).
 */

/** An INVITE from the service, not yet answered. */
export interface IncomingInvite {
  /** The call the INVITE names (`X-Browser-Call-Id`, or `X-Call-Id` for a queue's caller); undefined when none. */
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
  /** ICE and DTLS are up: audio can flow (first, or again after an ICE restart). */
  onMediaConnected(callId: string | undefined): void;
  /** The call's media path stopped; ICE is being restarted (a re-INVITE in the same call). */
  onMediaReconnecting(callId: string | undefined): void;
  /** The call's media path failed and every ICE restart with it: the call is up in SIP but no audio can flow. */
  onMediaFailed(callId: string | undefined): void;
  /** A sample of the call's WebRTC statistics, every 2 s while its media is connected. */
  onQuality(callId: string | undefined, quality: CallQuality): void;
  /** The microphone went away mid-call: replaced by the system's default, or none left (the call goes on). */
  onMicrophone(callId: string | undefined, outcome: 'replaced' | 'unavailable'): void;
  /** A warning about the call's audio was raised or cleared (call-warnings.ts). */
  onWarning(callId: string | undefined, warning: CallWarning, raised: boolean): void;
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
