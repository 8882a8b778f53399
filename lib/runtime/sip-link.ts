import type { Clock } from '../core/clock.js';
import type { CallQuality, CallWarning, SessionTransport, StatusError } from '../core/types.js';

/** How a digit left the page (the simulator records the same names). */
export type DtmfMethod = 'rfc4733' | 'sip-info';

/**
 * What the helper and its SIP layer say to each other: the link it opens, the INVITEs and events it gets.
 * Types only: the runtime speaks to SIP.js through these (`openSipLink` implements them, loaded on
 * `connect()`), and tests through a fake that behaves (`FakeSip` of the testing kit).
 */

/**
 * An INVITE from the service, not yet answered, as data: the link keeps the INVITE itself under `id`, and
 * answers or declines it when told that id ({@link SipLink.answer}).
 */
export interface IncomingInvite {
  id: number;
  /** The call the INVITE names (`X-Browser-Call-Id`, or `X-Call-Id` for a queue's caller); undefined when none. */
  callId: string | undefined;
  /** A queue's caller (`X-Call-Id`): their number, from the INVITE's `From`; undefined for a browser call's INVITE. */
  caller?: string;
  /** When it came (the link's clock). */
  at: number;
}

/**
 * What a link tells, as events of the helper's one loop (`createRuntime`): it dispatches them as they come, to
 * the machine each is for (the call machine takes the INVITE, the media machine the news of the call's media,
 * the connection machine the socket's). Each carries what it is about: the INVITE's id, the call id.
 */
export type LinkEvent =
  /** An INVITE from the service, not yet answered: the call machine decides, its effect names this INVITE's id. */
  | { type: 'invite_received'; invite: IncomingInvite }
  /** The service withdrew an INVITE before it was answered (CANCEL, answered 487): it can no longer be answered. */
  | { type: 'invite_withdrawn'; id: number; callId: string | undefined }
  | { type: 'session_ended' | 'call_changed' | 'media_connected' | 'media_reconnecting'; callId: string | undefined }
  /** The call's media failed: every ICE restart, or the offer/answer itself (`error` says which). */
  | { type: 'media_failed'; callId: string | undefined; error?: StatusError }
  /** The far end put the call on hold (RFC 3264 section 8.4), or took it off. */
  | { type: 'media_held' | 'media_resumed'; callId: string | undefined }
  | { type: 'quality'; callId: string | undefined; quality: CallQuality }
  | { type: 'microphone'; callId: string | undefined; outcome: 'replaced' | 'unavailable' }
  | { type: 'warning'; callId: string | undefined; warning: CallWarning; raised: boolean }
  | { type: 'audio'; audio: 'playing' | 'blocked' }
  /** The WebSocket dropped (or the binding lapsed), and the link tries to reconnect and register again; or it did. */
  | { type: 'socket_dropped' | 'socket_restored' }
  /** While it reconnects, the browser says it went offline (`navigator.onLine`, the `offline` event), or back online. */
  | { type: 'browser_offline' | 'browser_online' }
  /** The registration is gone for good: the registrar refused the credentials, or the session is over. */
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
  /**
   * Answers INVITE `id` with the microphone. Resolves once answered, or when the service withdrew it (before or
   * during the answer: the call's read says what became of it); rejects with a coded error when the microphone
   * or the answer fails.
   */
  answer(id: number): Promise<void>;
  /** Declines INVITE `id` (486 Busy Here); one withdrawn or already answered is left as it is. */
  decline(id: number): void;
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
