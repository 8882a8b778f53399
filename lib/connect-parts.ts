/**
 * The parts of the SIP chunk: those that act only with a link, and the cleanup beside them; the one list of them. The chunk's entry puts them
 * beside the link itself (`openSipLink`), so the chunk's type is this module's own (`SipParts`); the testing kit hands the same parts in with a fake link, without SIP.js. The runtime takes
 * the media's status, the link's events, the invite and reconciliation effects and the expiry timer from here on
 * the first connect(); the helper its connect(), renew(), startCall(), sendDtmf(), preflight() and watchQueues(),
 * and from then on disconnect() and recover() too, which otherwise come in a chunk of their own.
 */
import { createCallControl as createPageCalls } from './api/calls/call-control.js';
import { createDeskControl } from './api/desk/desk-control.js';
import type { Runtime } from './runtime/runtime-types.js';

/** A page's own calls and the desk's claims over one runtime, on one record of the request in flight. */
export function createCallControl(rt: Runtime) {
  const calls = { rt };
  return { ...createPageCalls(calls), ...createDeskControl(calls) };
}

export { transition as callTransition } from './core/machines/call-attempts.js';
export { createCloseProtection } from './api/session/close-protection.js';
export { createExpiryTimer } from './runtime/expiry-timer.js';
export { createOfferRinger } from './platform/web/media/offer-ringer.js';
export { transition as mediaTransition } from './core/machines/media-machine.js';
export { runPreflight } from './api/preflight/preflight.js';
export { reconcileReads } from './runtime/reconcile.js';
export { watchQueueStream } from './platform/web/queue-watch.js';
export { createSessionSetup } from './api/session/session-setup.js';
export { disconnect, recover } from './api/session/connection-control.js';
