import type { transition as callTransition } from '../core/machines/call-attempts.js';
import type { CallEffect, CallEvent } from '../core/machines/call-machine.js';
import type { CallRoutes } from './call-reads.js';
import type { Clock } from '../core/clock.js';
import type { ConnectionEffect, ConnectionEvent } from '../core/machines/connection-machine.js';
import type { createExpiryTimer } from './expiry-timer.js';
import type { MediaEffect, MediaEvent, transition as mediaTransition } from '../core/machines/media-machine.js';
import type { claimedCaller } from './queue-call.js';
import type { reconcileReads } from './reconcile.js';
import type { SipLink, SipLinkOptions } from './sip-link.js';

/** The loop's words (runtime.ts): its events and effects, what it is given, and where a call comes from. Types only. */

/**
 * What the runtime is given besides the page's options: its clock, and the SIP chunk's parts that open a link
 * and take what it says, loaded on the first connect() (voice-browser.ts loads the chunk, or a test's fakes).
 */
export interface RuntimeSeams {
  clock: Clock;
  linkParts(): Promise<LinkParts>;
}

/** The SIP chunk's parts the runtime uses (sip-chunk.ts), with the link itself (sip-adapter.ts). */
export interface LinkParts {
  openSipLink(options: SipLinkOptions): Promise<SipLink>;
  claimedCaller: typeof claimedCaller;
  reconcileReads: typeof reconcileReads;
  createExpiryTimer: typeof createExpiryTimer;
  mediaTransition: typeof mediaTransition;
  callTransition: typeof callTransition;
}

/** Every event of the loop: each machine takes its own and leaves the others'. */
export type HelperEvent = ConnectionEvent | CallEvent | MediaEvent;
/** Each event is one machine's: no two share an event's name (the compiler refuses this line otherwise). */
export type EventsDisjoint = [Extract<ConnectionEvent['type'], CallEvent['type'] | MediaEvent['type']> | Extract<CallEvent['type'], MediaEvent['type']>] extends [never] ? true : never;
/** Every effect the machines decide; runtime.ts runs each. */
export type Effect = ConnectionEffect | CallEffect | MediaEffect;

/**
 * Where the current call came from: its session, when this page started it (unset: recover() found it), and,
 * for a caller claimed from a queue, the routes it is read and hung up by (queue-call.ts); unset, a browser
 * call's.
 */
export interface CallOrigin {
  sessionId: string;
  startedAt?: number;
  routes?: CallRoutes;
}
