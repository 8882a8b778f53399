import type { Clock } from './clock.js';
import type { DtmfMethod } from './media-controls.js';
import type { CallQuality, CallWarning, SessionTransport, StatusError } from './types.js';

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

/**
 * What a link tells, as events of the helper's one loop (runtime.ts): it dispatches them as they come, to the
 * machine each is for (call-machine.ts takes the INVITE, media-machine.ts the news of the call's media,
 * connection-machine.ts the socket's). Each carries what it is about: the INVITE itself, the call id.
 */
export type LinkEvent =
  /** An INVITE from the service, not yet answered: the call machine decides, its effect names this INVITE. */
  | { type: 'invite_received'; invite: IncomingInvite }
  | { type: 'session_ended' | 'call_changed' | 'media_connected' | 'media_reconnecting' | 'media_failed'; callId: string | undefined }
  | { type: 'quality'; callId: string | undefined; quality: CallQuality }
  | { type: 'microphone'; callId: string | undefined; outcome: 'replaced' | 'unavailable' }
  | { type: 'warning'; callId: string | undefined; warning: CallWarning; raised: boolean }
  | { type: 'audio'; audio: 'playing' | 'blocked' }
  /** The WebSocket dropped, and the link tries to reconnect and register again; or it did. */
  | { type: 'socket_dropped' | 'socket_restored' }
  /** The WebSocket or the registration is gone for good (reconnection failed, refresh refused, expired). */
  | { type: 'link_gone'; error: StatusError };

export interface SipLinkOptions {
  transport: SessionTransport;
  remoteAudio?: HTMLAudioElement;
  audioDevices?: { microphoneId?: string; speakerId?: string };
  /** Where the link's events go: the helper's loop. */
  emit(event: LinkEvent): void;
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
