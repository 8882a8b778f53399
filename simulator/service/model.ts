import type { SessionIce } from '../turn/network-profile.js';
import type { QueueCallRecord } from '../../contract/queue-call.js';
import { TERMINAL_CALL_STATES, type BrowserCallRecord, type BrowserCallStateName } from '../../contract/browser-call.js';

/**
 * Wire shapes of the simulated voice service (spec 2.6, 4.7) and the simulator's own call facts. A browser
 * call's record, its states and the moves between them are the contract's (spec 3.2), drawn there once; the
 * simulator sets them, the page library reads them.
 */

/** A call state the simulator sets: one of the contract's list, never the open string a page must tolerate. */
export type BrowserCallState = BrowserCallStateName;

/** States after which neither leg runs: `busy` is false only here (spec 3.2). */
export const TERMINAL_STATES: ReadonlySet<string> = TERMINAL_CALL_STATES;

export interface Agent {
  id: string;
  name: string;
  type: 'webrtc';
  externalSubject: string;
  createdAt: string;
}

export type SessionStatus = 'active' | 'ended' | 'expired';

export interface BrowserSession {
  id: string;
  agentId: string;
  externalSubject: string;
  status: SessionStatus;
  expiresAt: string;
  backend: 'simulator';
  createdAt: string;
  endedAt: string | null;
}

/**
 * Temporary SIP registration and ICE configuration handed to the page (spec 2.6 `transport`): the exact
 * shape the service sends. The page library's `SessionTransport` is its tolerant reading of it; a wire-shapes
 * test checks that one is read by the other.
 */
export interface SessionTransport {
  websocketUrl: string;
  sipUri: string;
  authorizationUsername: string;
  authorizationPassword: string;
  realm: string;
  /** Registration lifetime the registrar grants at most; the page re-registers before it runs out. */
  registrationExpiresSeconds: number;
  iceServers: SessionIce['iceServers'];
  /** `relay` when only TURN may carry the media (webrtc-pc `RTCIceTransportPolicy`); absent, any path. */
  iceTransportPolicy?: SessionIce['iceTransportPolicy'];
  expiresAt: string;
}

/** What went wrong with a `failed` call: the contract record's `error`. */
export type CallError = NonNullable<BrowserCallRecord['error']>;

/** A browser call as the simulator holds and answers it: the contract's record, one shape for every reader. */
export type BrowserCall = BrowserCallRecord;

/** Error body of every rejection (spec 2.2). */
export interface ErrorBody {
  error: string;
  code: string;
  message?: string;
}

/** A queue (spec 4.8): its `notifySecret` is kept by the service and never returned. */
export interface Queue {
  id: string;
  name: string;
  holdAudioUrl: string;
  notifyUrl: string;
  createdAt: string;
}

/** Generic call states (spec 3.1); `active` in a listing is every state before the terminal ones. */
export type GenericCallState = 'calling' | 'ringing' | 'pre_established' | 'established' | 'queued' | 'dequeuing' | 'finished' | 'failed' | 'cancelled' | 'no_answer' | 'busy';

export { TERMINAL_GENERIC_STATES } from '../../contract/queue-call.js';

/** DESIGN.md: an agent that does not answer a dequeued caller in 20 s puts the caller back at the head. */
export const QUEUE_ANSWER_TIMEOUT_MS = 20_000;

/** An inbound call that reached a queue (the contract's `QueueCallRecord`), in a state the simulator sets. */
export interface QueueCall extends QueueCallRecord {
  state: GenericCallState;
}
