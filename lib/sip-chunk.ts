/**
 * The parts of the SIP chunk that act only with a link: the one list of them. sip-adapter.ts re-exports them
 * beside the link itself (`openSipLink`), so the chunk's type is the module's own (`SipParts` in
 * voice-browser.ts); the testing kit hands the same parts in with a fake link, without SIP.js. The runtime takes
 * the media's status, the link's events, the invite and reconciliation effects and the expiry timer from here on
 * the first connect(); the helper its connect(), renew(), startCall(), sendDtmf(), preflight() and watchQueues().
 */
export { transition as callTransition } from './call-attempts.js';
export { createCallControl } from './call-control.js';
export { createCloseProtection } from './close-protection.js';
export { createExpiryTimer } from './expiry-timer.js';
export { createOfferRinger } from './offer-ringer.js';
export { transition as mediaTransition } from './media-machine.js';
export { runPreflight } from './preflight.js';
export { claimedCaller } from './queue-call.js';
export { reconcileReads } from './reconcile.js';
export { watchQueueStream } from './queue-watch.js';
export { createSessionSetup } from './session-setup.js';
