import { disconnect, recover } from './api/session/connection-control.js';

/**
 * What disconnect() and recover() load: the one entry of the connection's cleanup, without SIP.js. A page that only
 * recovers or cleans up downloads this small chunk alone, and the initial load carries neither operation. The SIP
 * chunk holds them too: once connect() loaded it, the helper takes them from there and never fetches this one.
 */

/** The operations that end or find a session: they need no SIP link. */
export const parts = { disconnect, recover };

