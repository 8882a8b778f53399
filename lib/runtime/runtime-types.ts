import type { transition as callTransition } from '../core/machines/call-attempts.js';
import type { CallEffect, CallEvent, CallSlice } from '../core/machines/call-machine.js';
import type { CallPorts, CallReads, CallRoutes } from './call-reads.js';
import type { Clock } from '../core/clock.js';
import type { ConnectionEffect, ConnectionEvent, ConnectionSlice } from '../core/machines/connection-machine.js';
import type { createExpiryTimer } from './expiry-timer.js';
import type { MediaEffect, MediaEvent, transition as mediaTransition } from '../core/machines/media-machine.js';
import type { SettingsEffect, SettingsEvent } from '../core/machines/settings-machine.js';
import type { VoiceBackend } from '../core/backend-types.js';
import type { VoiceBrowserError } from '../core/errors.js';
import type { BrowserCall, SessionTransport, TimingEvent, VoiceBrowserStatus } from '../core/types.js';
import type { SipLink, SipLinkOptions } from './sip-link.js';

/** The loop's words: its events and effects, what it is given, and where a call comes from. Types only. */

/**
 * What the runtime is given besides the page's options: its clock, and the SIP chunk's parts that open a link
 * and take what it says, loaded on the first connect() (the helper loads the chunk, or a test hands in fakes).
 */
export interface RuntimeSeams {
  clock: Clock;
  linkParts(): Promise<LinkParts>;
}

/** The SIP chunk's parts the runtime uses, with the link itself. */
export interface LinkParts {
  openSipLink(options: SipLinkOptions): Promise<SipLink>;
  /** Reads until a lost request's call is named, reporting to the call machine. */
  reconcileReads(reads: CallReads, ports: CallPorts): void;
  createExpiryTimer: typeof createExpiryTimer;
  mediaTransition: typeof mediaTransition;
  callTransition: typeof callTransition;
}

/** Every event of the loop: each machine takes its own and leaves the others'. */
export type HelperEvent = ConnectionEvent | CallEvent | MediaEvent | SettingsEvent;
/** Each event is one machine's: no two share an event's name (the compiler refuses this line otherwise). */
export type EventsDisjoint = [Extract<ConnectionEvent['type'], CallEvent['type'] | MediaEvent['type'] | SettingsEvent['type']> | Extract<CallEvent['type'], MediaEvent['type'] | SettingsEvent['type']> | Extract<MediaEvent['type'], SettingsEvent['type']>] extends [never] ? true : never;
/** Every effect the machines decide; the loop runs each. */
export type Effect = ConnectionEffect | CallEffect | MediaEffect | SettingsEffect;

/**
 * Where the current call came from: its session, when this page started it (unset: recover() found it), and,
 * for a caller claimed from a queue, the routes it is read and hung up by; unset, a browser call's.
 */
export interface CallOrigin {
  sessionId: string;
  startedAt?: number;
  routes?: CallRoutes;
}

/**
 * The loop as the operations see it: its state to read, and the events, requests and link moves they ask of it.
 * Written out as a type, so that the operations import the loop's shape and not the file that builds it.
 */
export interface Runtime {
  readonly callState: CallSlice;
  readonly backend: VoiceBackend;
  readonly clock: Clock;
  dispatch(event: HelperEvent): void;
  readonly connectionState: ConnectionSlice;
  status(): VoiceBrowserStatus;
  timing(name: TimingEvent['name'], startedAt: number | undefined, callId?: string): void;
  /** Rejects with `error`, which shows first: an event of the settings machine (a refused input, a failed request). */
  refuse(error: VoiceBrowserError): Promise<never>;
  /** The lifetime of this connection: aborted by disconnect(), begun again by connect() and recover(). */
  signal(): AbortSignal;
  beginLifetime(): void;
  endLifetime(): void;
  readonly link: SipLink | undefined;
  /** Opens a link whose events count from now on (an older link's are ignored from here, its INVITEs refused). */
  openLink(transport: SessionTransport): Promise<SipLink>;
  /** The registered link of the session now shown. */
  useLink(next: SipLink): void;
  /** From now on no link's events count (a link that failed to register). */
  ignoreLinkEvents(): void;
  /** Unregisters and closes the link; its events stop counting at once. */
  closeLink(): Promise<void>;
  readonly origin: CallOrigin | undefined;
  /** A call starts on `sessionId` (startCall(); a retry keeps the first start's time). */
  startCall(next: CallOrigin, event: Extract<CallEvent, { type: 'attempt_started' }>): void;
  /** A call recover() found: shown and polled, on its own routes for a caller claimed from a queue. */
  recoverCall(found: BrowserCall, sessionId: string, routes?: CallRoutes): void;
  /** hangup(): asks the service to end the call; with no call id yet, as soon as one is known. */
  hangup(): Promise<void>;
  /** The call's reads: disconnect() waits on them for the call's end, and stops them. */
  readonly reads: CallReads;
}
